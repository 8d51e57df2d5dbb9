"""A host's CPU from the text of its /proc and cgroup files. Pure.

The same parsers serve this host (files read here) and a compute host
(the texts come back over SSH), so neither reading can drift from the
other.
"""

import collections
import os

from rally_container_bench.core import proc

# Median CPU steal above which a step's host is called disturbed.
STEAL_LIMIT = 0.02
TICKS = os.sysconf("SC_CLK_TCK")
CGROUP_ROOT = "/sys/fs/cgroup"
KTHREADD = 2  # the kernel's threads' parent, in the host's pid namespace

CpuTimes = collections.namedtuple("CpuTimes", "total idle steal cpus",
                                  defaults=(None,))


def elapsed(before, after):
    """Seconds between two CpuTimes by the host's own clock ticks, or None.

    Every CPU's ticks (idle included) add up to wall time: a reading
    taken late by a slow round trip to its host then still covers the
    same window as the busy ticks it is set against.
    """
    if not before.cpus or before.cpus != after.cpus:
        return None
    ticks = after.total - before.total
    return ticks / TICKS / before.cpus if ticks > 0 else None


def parse_stat(text):
    """/proc/stat -> (CpuTimes of all CPUs, busy ticks, runnable tasks).

    busy: user + nice + system + irq + softirq (idle, iowait and steal
    left out; guest time is already in user, not added twice).
    CpuTimes.cpus: how many CPUs the "cpu" line sums (the cpuN lines; a
    confined reader, lxcfs's, sees only its own).
    """
    cpu, busy, running, cpus = None, None, None, 0
    for line in text.splitlines():
        words = line.split()
        if words and words[0].startswith("cpu") and words[0][3:].isdigit():
            cpus += 1
        elif words and words[0] == "cpu":
            values = _columns(words)
            cpu = _times(values)
            busy = values[0] + values[1] + values[2] + values[5] + values[6]
        elif words and words[0] == "procs_running":
            running = int(words[1])
    if cpu is None:
        raise ValueError("no cpu line in /proc/stat")
    return cpu._replace(cpus=cpus or None), busy, running


def one_cpu(text, number):
    """/proc/stat -> CpuTimes of CPU `number` alone (its cpuN line)."""
    for line in text.splitlines():
        words = line.split()
        if words and words[0] == "cpu%d" % number:
            return _times(_columns(words))._replace(cpus=1)
    raise ValueError("no cpu%d line in /proc/stat" % number)


def _columns(words):
    values = [int(v) for v in words[1:]]
    return values + [0] * (8 - len(values))


def _times(values):
    # user nice system idle iowait irq softirq steal guest guest_nice
    return CpuTimes(sum(values[:8]), values[3] + values[4], values[7])


def host_load(before, after):
    """{busy, steal, running_max} between two readings (shares of 0..1).

    before, after: (CpuTimes, running) pairs.
    """
    (cpu0, running0), (cpu1, running1) = before, after
    running = max(r for r in (running0, running1, 0) if r is not None)
    total = cpu1.total - cpu0.total
    if total <= 0:
        return {"busy": None, "steal": None, "running_max": running}
    idle = cpu1.idle - cpu0.idle
    steal = cpu1.steal - cpu0.steal
    return {"busy": (total - idle) / total, "steal": steal / total,
            "running_max": running}


def parse_process_stat(text):
    """/proc/<pid>/stat -> (ppid, CPU ticks of it and its reaped children)."""
    return proc.ppid(text), proc.cpu_ticks(text)


def parse_processes(text):
    """Many /proc/<pid>/stat lines -> {pid: (ppid, ticks)}."""
    found = {}
    for line in text.splitlines():
        try:
            pid = int(line.split(None, 1)[0])
            found[pid] = parse_process_stat(line)
        except (ValueError, IndexError):
            continue  # a process gone while it was read
    return found


def parse_state(text):
    """/proc/<pid>/task/<tid>/stat -> the thread's state (R: runnable)."""
    return proc.state(text)


def tree_pids(processes, root):
    """root and every process under it: {pid: (ppid, ticks)} -> set."""
    children = {}
    for pid, (ppid, _) in processes.items():
        children.setdefault(ppid, []).append(pid)
    found, todo = set(), [root]
    while todo:
        pid = todo.pop()
        found.add(pid)
        todo.extend(children.get(pid, ()))
    return found


def ticks_of(processes, pids):
    """Ticks of the pids still in processes: {pid: (ppid, ticks)}."""
    return sum(processes[pid][1] for pid in pids if pid in processes)


def tree_ticks(processes, root):
    """Ticks of root and every process under it: {pid: (ppid, ticks)}."""
    return ticks_of(processes, tree_pids(processes, root))


def kernel_thread_ticks(processes):
    """Ticks of the kernel's threads: kthreadd (pid 2) and its children.

    processes: {pid: (ppid, ticks)}. A worker that ended between two
    readings takes its ticks with it: the difference errs low, towards
    foreign load, never hiding it.
    """
    return sum(ticks for pid, (ppid, ticks) in processes.items()
               if pid == KTHREADD or ppid == KTHREADD)


def cgroup_lines(cgroup_text):
    """(hierarchy number, [controllers], path) of /proc/<pid>/cgroup."""
    for line in cgroup_text.splitlines():
        number, controllers, path = (line.split(":", 2) + ["", ""])[:3]
        yield number, controllers.split(","), path


def cgroup_usage_file(cgroup_text, unified_mount=False):
    """The CPU usage file of a process's own cgroup, or None (root).

    v1: cpuacct.usage (ns) of the cpuacct hierarchy; v2: cpu.stat
    (usage_usec). A VM's emulator thread sits in a child of its
    machine cgroup (libvirt): its parent holds the vCPUs too.
    unified_mount: the host mounts cgroup2 at <root>/unified (hybrid).
    """
    v1 = v2 = None
    for number, names, path in cgroup_lines(cgroup_text):
        if "cpuacct" in names:
            v1 = (",".join(names), path, "cpuacct.usage")
        elif number == "0" and names == [""]:
            v2 = ("", path, "cpu.stat")
    found = v1 or v2
    if not found or found[1] in ("", "/"):
        return None
    mount, path, name = found
    if path.rstrip("/").endswith("/emulator"):
        path = path.rstrip("/")[:-len("/emulator")]
    if name == "cpu.stat" and unified_mount:
        mount = "unified"
    return os.path.join(CGROUP_ROOT, mount, path.lstrip("/"), name)


def parse_usage(name, text):
    """Seconds of CPU from a cgroup usage file's text."""
    if name.endswith("cpuacct.usage"):
        return int(text.strip()) / 1e9
    for line in text.splitlines():
        key, _, value = line.partition(" ")
        if key == "usage_usec":
            return int(value) / 1e6
    raise ValueError("no usage_usec in cpu.stat")
