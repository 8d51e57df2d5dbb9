"""What makes a measurement valid, for local and cloud scenarios alike.

- cpu: pure parsing of a host's /proc and cgroup texts;
- hosts: a host read through an executor (this host's /proc, or a
  compute host's over SSH): busy time, steal, the measurement's own CPU;
- foreign_load: the CPU on a host that nothing of the measurement used,
  and the task's instances registered per host;
- clock: an instance's clock against the host's;
- barrier: the synchronised start of a wave;
- compute_hosts: which compute host an instance ran on, and how the Rally
  host reaches it (the native twin and the host's load are read there).

Below task/ and report/; imports no engine and no workload tool: what
is engine-specific (an instance's process on its host) is handed in.
"""
