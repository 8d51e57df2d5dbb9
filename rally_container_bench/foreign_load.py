"""Foreign load: the host's CPU that nothing of the measurement used.

Over one test run, the host's busy time (/proc/stat, steal left out) is
set against what the measurement itself used:

- the harness: the Rally process that set up the task and every process
  under it (its runner workers, the native sysbench processes, SSH and
  engine CLI clients), each counted with the children it reaped;
- every instance of the task alive on this host: its cgroup's CPU where
  it has one of its own (containers, a VM's machine cgroup), else its
  main process and what runs under it (a QEMU process and its threads).

The rest is foreign: a build, a backup, a neighbour's job. A run beside
more than a limit of foreign cores is *disturbed*. What CPU accounting
cannot see (memory bandwidth or cache taken by a neighbour that uses
little CPU, or I/O) is not caught here; the paired native twin measured
next to each test sees it as drift of both.

Instances are registered per task in a directory that every runner
process sees (the harness's pid names it). Parsing is pure; reading
/proc and /sys is the only I/O.
"""

import os
import time

from rally_container_bench.core import ports as ports_lib

# Cores of foreign load above which a test run is disturbed: a quarter
# of a core is ~5x what kernel threads and engine daemons use beside a
# test on a quiet 2-core host (0.01-0.05 cores measured), and a quarter
# of what a single-threaded foreign job takes.
DEFAULT_LIMIT = 0.25
TICKS = os.sysconf("SC_CLK_TCK")
# Ticks of rounding in the host's busy time over one run (several
# /proc/stat fields, each rounded): allowed before a run is disturbed.
SLACK_TICKS = 3
CGROUP_ROOT = "/sys/fs/cgroup"

_harness = None


def set_harness(pid):
    """The process whose tree is the harness (Rally's, before it forks)."""
    global _harness
    _harness = pid


def harness():
    return _harness or os.getpid()


# -- pure parsing ----------------------------------------------------------

def parse_process_stat(text):
    """/proc/<pid>/stat -> (ppid, CPU ticks of it and its reaped children)."""
    fields = text.rsplit(")", 1)[1].split()
    # after the name: state ppid ... utime(11) stime cutime cstime
    return int(fields[1]), sum(int(v) for v in fields[11:15])


def parse_host_busy(text):
    """/proc/stat -> ticks the CPUs were busy, steal left out."""
    for line in text.splitlines():
        words = line.split()
        if words and words[0] == "cpu":
            values = [int(v) for v in words[1:9]]
            values += [0] * (8 - len(values))
            user, nice, system, idle, iowait, irq, softirq, _ = values
            return user + nice + system + irq + softirq
    raise ValueError("no cpu line in /proc/stat")


def cgroup_usage_file(cgroup_text):
    """The CPU usage file of a process's own cgroup, or None (root).

    v1: cpuacct.usage (ns) of the cpuacct hierarchy; v2: cpu.stat
    (usage_usec). A VM's emulator thread sits in a child of its
    machine cgroup (libvirt): its parent holds the vCPUs too.
    """
    v1 = v2 = None
    for line in cgroup_text.splitlines():
        number, controllers, path = (line.split(":", 2) + ["", ""])[:3]
        names = controllers.split(",")
        if "cpuacct" in names:
            v1 = (",".join(names), path, "cpuacct.usage")
        elif number == "0" and not controllers:
            v2 = ("", path, "cpu.stat")
    found = v1 or v2
    if not found or found[1] in ("", "/"):
        return None
    mount, path, name = found
    if path.rstrip("/").endswith("/emulator"):
        path = path.rstrip("/")[:-len("/emulator")]
    if name == "cpu.stat" and os.path.isdir(os.path.join(CGROUP_ROOT,
                                                         "unified")):
        mount = "unified"  # a hybrid host's cgroup2 mount
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


def tree_ticks(processes, root):
    """Ticks of root and every process under it: {pid: (ppid, ticks)}."""
    children = {}
    for pid, (ppid, _) in processes.items():
        children.setdefault(ppid, []).append(pid)
    total, todo = 0, [root]
    while todo:
        pid = todo.pop()
        if pid in processes:
            total += processes[pid][1]
        todo.extend(children.get(pid, ()))
    return total


# -- reading the host -------------------------------------------------------

def _read(path):
    with open(path) as f:
        return f.read()


def processes():
    """{pid: (ppid, ticks)} of every process that can be read now."""
    found = {}
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                found[int(name)] = parse_process_stat(
                    _read("/proc/%s/stat" % name))
            except (OSError, ValueError, IndexError):
                continue  # gone meanwhile
    return found


def usage_source(pid):
    """What to read for an instance whose main process is pid."""
    try:
        usage = cgroup_usage_file(_read("/proc/%d/cgroup" % pid))
    except OSError:
        return None
    own = cgroup_usage_file(_read("/proc/self/cgroup"))
    if usage and usage != own and os.path.exists(usage):
        return usage
    return "pid:%d" % pid


def _source_seconds(source, table):
    if source.startswith("pid:"):
        return tree_ticks(table, int(source[4:])) / TICKS
    try:
        return parse_usage(source, _read(source))
    except (OSError, ValueError):
        return None


def prune(conf):
    """Forget the registries of harnesses that are gone (a crashed run)."""
    parent = ports_lib.state_subdir(conf, "own-cpu")
    for name in os.listdir(parent):
        if name.isdigit() and not os.path.exists("/proc/%s" % name):
            directory = os.path.join(parent, name)
            try:
                for entry in os.listdir(directory):
                    _unlink(os.path.join(directory, entry))
                os.rmdir(directory)
            except OSError:
                pass  # another harness pruned it first


def _unlink(path):
    try:
        os.unlink(path)
    except OSError:
        pass


class Registry:
    """The task's instances alive on this host, seen by every runner."""

    def __init__(self, conf, root=None):
        self.path = os.path.join(ports_lib.state_subdir(conf, "own-cpu"),
                                 str(root or harness()))

    def add(self, name, pid):
        source = usage_source(pid) if pid else None
        if source is None:
            return
        os.makedirs(self.path, exist_ok=True)
        with open(os.path.join(self.path, name), "w") as f:
            f.write(source)

    def discard(self, name):
        _unlink(os.path.join(self.path, name))

    def sources(self):
        try:
            names = os.listdir(self.path)
        except OSError:
            return {}
        found = {}
        for name in names:
            try:
                found[name] = _read(os.path.join(self.path, name)).strip()
            except OSError:
                continue
        return found


class Sample:
    """The host's busy ticks and the measurement's own CPU at one moment."""

    def __init__(self, registry):
        self.at = time.monotonic()
        self.busy = parse_host_busy(_read("/proc/stat")) / TICKS
        table = processes()
        self.harness = tree_ticks(table, harness()) / TICKS
        self.instances = {}
        for name, source in (registry.sources() if registry else {}).items():
            seconds = _source_seconds(source, table)
            if seconds is not None:
                self.instances[name] = seconds


def load(before, after):
    """{foreign, own, busy} in cores between two Samples (and seconds).

    An instance seen at one end only (booted or deleted meanwhile) is
    left out of own: its CPU then counts as foreign, which errs towards
    flagging a run, never towards passing a disturbed one.
    """
    wall = after.at - before.at
    if wall <= 0:
        return {"foreign": None, "own": None, "busy": None, "seconds": 0}
    own = after.harness - before.harness
    for name, seconds in after.instances.items():
        if name in before.instances:
            own += max(0.0, seconds - before.instances[name])
    busy = after.busy - before.busy
    return {"foreign": max(0.0, busy - own) / wall, "own": own / wall,
            "busy": busy / wall, "seconds": wall}
