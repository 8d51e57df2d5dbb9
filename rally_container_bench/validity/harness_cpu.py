"""The harness's CPU, and on which of this machine's CPUs it ran.

A test cloud's compute hosts are namespaces of this machine, each
confined to some of its CPUs; Rally's processes beside a test run on any
CPU. Summed whole, the harness's CPU is "unplaced": it may hide as much
foreign load on the host's CPU, and a run where it is above the limit is
flagged (791 of 5301 test runs of the test cloud's KEK campaign on
2026-12-06 were flagged for it alone, with no foreign load read). cgroup
v1's cpuacct counts a cgroup's CPU per CPU (cpuacct.usage_percpu): with
the harness's processes in a cgroup of their own, the part that ran on
the host's CPUs is known, counts as the host's own, and the rest ran
elsewhere. Where there is no such controller in a hierarchy of its own
(cgroup v2 alone, or cpuacct mounted with cpu) the harness stays
unplaced, as before.
"""

import collections
import os

from rally_container_bench.validity import cpu

CPUACCT = os.path.join(cpu.CGROUP_ROOT, "cpuacct")
PREFIX = "rcbench-harness-"

# seconds: the harness tree's CPU (ticks of its processes); percpu: the
# seconds of its cgroup on each of this machine's CPUs since the cgroup
# was made, or None where it has none.
HarnessCpu = collections.namedtuple("HarnessCpu", "seconds percpu")
NONE = HarnessCpu(0.0, None)


def on_cpus(harness, cpu_ids):
    """Seconds of the harness on the CPUs cpu_ids, or None if unknown."""
    if harness.percpu is None or not cpu_ids:
        return None
    return sum(harness.percpu[i] for i in cpu_ids
               if 0 <= i < len(harness.percpu))


def _cpuacct_path(pid):
    """The pid's cgroup in the cpuacct hierarchy ("/..."), or None."""
    with open("/proc/%d/cgroup" % pid) as f:
        for _, controllers, path in cpu.cgroup_lines(f.read()):
            if "cpuacct" in controllers:
                return path
    return None


def alone_in_mount(mounts_text):
    """Whether a cgroup v1 mount holds cpuacct without cpu. Pure.

    Co-mounted (cpu,cpuacct, as systemd mounts it), a cgroup of the
    harness would also be a cpu group of its own, weighed as one nice-0
    task against the rest: Rally's yielding (nice 19) would be undone.
    """
    for line in mounts_text.splitlines():
        words = line.split()
        if len(words) > 3 and words[2] == "cgroup":
            options = words[3].split(",")
            if "cpuacct" in options:
                return "cpu" not in options
    return False


def usable():
    """cpuacct's CPU per CPU here, in a hierarchy of its own, writable."""
    try:
        with open("/proc/self/mounts") as f:
            alone = alone_in_mount(f.read())
    except OSError:
        return False
    return alone and os.path.isfile(
        os.path.join(CPUACCT, "cpuacct.usage_percpu")) \
        and os.access(CPUACCT, os.W_OK)


class Cgroup:
    """The harness's cpuacct cgroup: made on first use, its tree moved in.

    A process forked inside stays inside; a process of the tree found
    outside (forked while the tree was moved) is moved at the next use.
    Its CPU before that counts for neither side: it reads as foreign
    load, which errs towards flagging a run, never towards passing one.
    """

    def __init__(self, harness_pid):
        self.harness = harness_pid
        self.path = None
        self._moved = set()
        self._failed = not usable()

    def _make(self):
        parent = _cpuacct_path(self.harness) or "/"
        name = os.path.basename(parent.rstrip("/"))
        if name == PREFIX + str(self.harness):
            return os.path.join(CPUACCT, parent.strip("/"))
        path = os.path.join(CPUACCT, parent.strip("/"),
                            PREFIX + str(self.harness))
        os.makedirs(path, exist_ok=True)
        return path

    def join(self, pids):
        """Move pids in; False where the cgroup cannot be had."""
        if self._failed:
            return False
        if self.path is None:
            try:
                self.path = self._make()
            except OSError:
                self._failed = True
                return False
        for pid in sorted(set(pids) - self._moved):
            try:
                with open(os.path.join(self.path, "cgroup.procs"), "w") as f:
                    f.write(str(pid))
            except OSError:
                continue  # gone meanwhile: its CPU is in no cgroup's
            self._moved.add(pid)
        return True

    def percpu(self):
        """Seconds of the cgroup on each CPU of this machine."""
        with open(os.path.join(self.path, "cpuacct.usage_percpu")) as f:
            return tuple(int(ns) / 1e9 for ns in f.read().split())


_cgroups = {}


def of_tree(processes, root):
    """HarnessCpu of root's tree: {pid: (ppid, ticks)} of this host."""
    tree = cpu.tree_pids(processes, root)
    seconds = cpu.ticks_of(processes, tree) / cpu.TICKS
    group = _cgroups.get(root)
    if group is None:
        group = _cgroups[root] = Cgroup(root)
    if not group.join(tree):
        return HarnessCpu(seconds, None)
    try:
        return HarnessCpu(seconds, group.percpu())
    except (OSError, ValueError):
        return HarnessCpu(seconds, None)


def leave(root):
    """Move root (this process) out of its cgroup and remove it if empty.

    The harness's context ends (Rally's runners have ended): its main
    process goes back to the cgroup it came from. Its runners made the
    cgroup, in processes of their own: the path is read, not remembered.
    """
    _cgroups.pop(root, None)
    try:
        path = _cpuacct_path(root)
    except OSError:
        return
    if not path or os.path.basename(path.rstrip("/")) != PREFIX + str(root):
        return
    group = os.path.join(CPUACCT, path.strip("/"))
    try:
        with open(os.path.join(os.path.dirname(group), "cgroup.procs"),
                  "w") as f:
            f.write(str(root))
        os.rmdir(group)
    except OSError:
        pass  # a process of it still runs: prune removes it later


def prune():
    """Remove the cgroups of harnesses that are gone (empty ones only)."""
    if not os.path.isdir(CPUACCT):
        return
    for parent, names, _ in os.walk(CPUACCT):
        for name in names:
            if name.startswith(PREFIX) and not os.path.exists(
                    "/proc/%s" % name[len(PREFIX):]):
                try:
                    os.rmdir(os.path.join(parent, name))
                except OSError:
                    pass
        names[:] = [n for n in names if not n.startswith(PREFIX)]
