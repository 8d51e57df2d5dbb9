"""Foreign load: a host's CPU that nothing of the measurement used.

Over one test run, the busy time of the host the test ran on (/proc/stat,
steal left out; hosts.py reads it there) is set against what the
measurement itself used on that host:

- on the Rally host, the harness: the Rally process that set up the task
  and every process under it (its runner workers, the native sysbench
  processes, SSH and engine CLI clients), each counted with the children
  it reaped; on a compute host, the native twins' commands (hosts.py
  marks them);
- every instance of the task alive on that host: its cgroup's CPU where
  it has one of its own (containers, a VM's machine cgroup), else its
  main process and what runs under it (a QEMU process and its threads).

The rest is foreign: a build, a backup, a neighbour's job. A run beside
more than a limit of foreign cores is *disturbed*. What CPU accounting
cannot see (memory bandwidth or cache taken by a neighbour that uses
little CPU, or I/O) is not caught here; the paired native twin measured
next to each test sees it as drift of both.

Instances are registered per task and per host in a directory that
every runner process sees (the harness's pid names it).
"""

import hashlib
import os
import re
import socket

from rally_container_bench.core import ports as ports_lib
from rally_container_bench.validity import cpu

# Cores of foreign load above which a test run is disturbed: a quarter
# of a core is ~5x what kernel threads and engine daemons use beside a
# test on a quiet 2-core host (0.01-0.05 cores measured), and a quarter
# of what a single-threaded foreign job takes.
DEFAULT_LIMIT = 0.25
# Ticks of rounding in the host's busy time over one run (several
# /proc/stat fields, each rounded): allowed before a run is disturbed.
SLACK_TICKS = 3
# A host with less idle CPU than this over a run had none to absorb
# foreign load: it came out of the tests' own time (a 1-CPU compute host,
# or every CPU busy with tests at once). There a third of the limit
# disturbs a run: on the test cloud's 1-CPU hosts, twins beside 0.11-0.15
# foreign cores read 11-24 % apart from their instances (2026-11-29;
# 0.0-0.05 on quiet runs), under the 0.25 limit. Quiet local runs on 2
# CPUs had no saturated run above a third of the limit.
SATURATED_IDLE = 0.1
SATURATED_SHARE = 0.33

# Foreign cores beyond the CPUs the instances left free that still fit
# (leaves_room): beside one test on 2 CPUs a one-core loop read 0.97-1.03
# cores (2026-12-01).
ROOM_SLACK = 0.1

# Registry names of an engine's helpers (base.Driver.helper_pids): their
# CPU is the task's own, but they are no instance of its.
HELPERS = "helpers-"
# The source of the host kernel's threads (children of kthreadd): the
# disk of an instance whose engine mounts it on the host (libvirt-LXC's
# loop or nbd device) is served by them. sysbench fileio with O_DIRECT
# in ext4 on a loop device took 0.41-0.48 cores of kernel threads (loop
# workers, softirqs, kblockd), against 0.01 on the host's own disk
# (2026-12-06); counted as foreign, it disturbed every fileio run of
# the test cloud's nova-lxc at 2-8 at once (0.24-0.39 cores).
KERNEL_THREADS = "kernel-threads"

_harness = None


def set_harness(pid):
    """The process whose tree is the harness (Rally's, before it forks)."""
    global _harness
    _harness = pid


def harness():
    return _harness or os.getpid()


def owner_key():
    """Names what this harness runs on another host: <host>-<pid>."""
    return re.sub(r"[^A-Za-z0-9_.-]", "_", "%s-%d" % (
        socket.gethostname(), harness()))


def prune(conf):
    """Forget the registries of harnesses that are gone (a crashed run)."""
    parent = ports_lib.state_subdir(conf, "own-cpu")
    for name in os.listdir(parent):
        if name.isdigit() and not os.path.exists("/proc/%s" % name):
            _remove_tree(os.path.join(parent, name))


def _remove_tree(directory):
    try:
        for entry in os.listdir(directory):
            path = os.path.join(directory, entry)
            if os.path.isdir(path):
                _remove_tree(path)
            else:
                _unlink(path)
        os.rmdir(directory)
    except OSError:
        pass  # another harness pruned it first


def _unlink(path):
    try:
        os.unlink(path)
    except OSError:
        pass


class Registry:
    """The task's instances alive on one host, seen by every runner.

    host None: the Rally host; else a compute host's name. A source is
    what to read for an instance's CPU on its host: a cgroup usage file,
    "pid:N" (its process tree) or KERNEL_THREADS.
    """

    def __init__(self, conf, root=None, host=None):
        path = os.path.join(ports_lib.state_subdir(conf, "own-cpu"),
                            str(root or harness()))
        if host is not None:
            path = os.path.join(path, "@" + re.sub(r"[^A-Za-z0-9_.-]", "_",
                                                   host))
        self.path = path

    def add(self, name, source, disk_in_kernel=False):
        """Register an instance; disk_in_kernel: its disk is the host's.

        disk_in_kernel (base.Driver.disk_in_host_kernel): the host
        kernel's threads count as the task's own too (KERNEL_THREADS).
        """
        if disk_in_kernel:
            self.add_helpers(KERNEL_THREADS)
        if source is None:
            return
        os.makedirs(self.path, exist_ok=True)
        with open(os.path.join(self.path, name), "w") as f:
            f.write(source)

    def add_helpers(self, source):
        """Count a cgroup of the engine's helpers as the task's own.

        Shared by the instances of an engine, so it stays until the
        harness's registry goes (prune).
        """
        self.add(HELPERS + hashlib.sha1(source.encode()).hexdigest()[:12],
                 source)

    def discard(self, name):
        _unlink(os.path.join(self.path, name))

    def sources(self):
        try:
            names = os.listdir(self.path)
        except OSError:
            return {}
        found = {}
        for name in names:
            if name.startswith("@"):
                continue  # another host's registry
            try:
                with open(os.path.join(self.path, name)) as f:
                    found[name] = f.read().strip()
            except OSError:
                continue
        return found


def load(before, after):
    """{foreign, own, busy} in cores between two hosts.Readings (+seconds).

    The window is the host's own (its CPUs' ticks, cpu.elapsed), else
    the Rally host's clock between the readings.

    An instance seen at one end only (booted or deleted meanwhile) is
    left out of own: its CPU then counts as foreign, which errs towards
    flagging a run, never towards passing a disturbed one.
    """
    wall = (cpu.elapsed(before.cpu, after.cpu) if before.cpu and after.cpu
            else None) or after.at - before.at
    if wall <= 0 or before.busy is None or after.busy is None:
        return {"foreign": None, "own": None, "busy": None,
                "unplaced": None, "seconds": 0, "cpus": None}
    alive = [name for name in after.instances if name in before.instances]
    own = max(0.0, after.own - before.own) + sum(
        max(0.0, after.instances[name] - before.instances[name])
        for name in alive)
    busy = after.busy - before.busy
    # cumulative at both ends, or not a share of this window
    unplaced = max(0.0, after.unplaced - before.unplaced) \
        if before.unplaced and after.unplaced else 0.0
    cpus = before.cpu.cpus if before.cpu and after.cpu else None
    # a neighbour's threads are runnable at both readings; the daemons'
    # come and go (3-6 at one reading beside 2 here)
    runnable = [_others(reading) for reading in (before, after)]
    return {"foreign": max(0.0, busy - own) / wall, "own": own / wall,
            "busy": busy / wall, "unplaced": unplaced / wall,
            "seconds": wall, "cpus": cpus,
            "instances": sum(1 for name in alive
                             if not name.startswith(HELPERS)),
            "runnable": None if None in runnable else min(runnable)}


def _others(reading):
    """Tasks runnable at a reading besides the harness's (hosts.Reading).

    The threads counted outside the harness's tree where the reader's
    host counted them, else procs_running less the reader itself.
    """
    if reading.others is not None:
        return reading.others
    return None if reading.running is None else max(0, reading.running - 1)


def saturated(load):
    """Whether the host's CPUs (load()'s cpus) were all busy over the run.

    Either they read so, or the task had as many instances on the host as
    it has CPUs: each runs its test (or its twin does) at once, so every
    CPU had a test to run. The window around a short run also holds its
    start and end, when the CPUs idle: at 2 on 2 CPUs a 1 s cpu run read
    0.3 cores idle, while 0.12 foreign cores beside both instances of a
    wave took 5-8 % off each (2026-11-30; 6 of 748 quiet runs at 2).
    """
    load = load or {}
    if not load.get("cpus") or load.get("busy") is None:
        return False
    return (load["cpus"] - load["busy"] < SATURATED_IDLE
            or (load.get("instances") or 0) >= load["cpus"])


def limit_for(load, limit, saturated_share=SATURATED_SHARE):
    """The foreign cores that disturb this run: lower on a saturated host."""
    return limit * saturated_share if saturated(load) else limit


def disturbed(load, limit, saturated_share=SATURATED_SHARE):
    """Whether a run's load (load()) is above limit cores of foreign load.

    saturated_share of limit (default a third) of foreign load where the
    host had no idle CPU (saturated). Also where more than limit cores
    were the harness's unplaced CPU (compute_host.ComputeHost._with_harness):
    counted as the host's own, they may hide that much foreign load.
    /proc/stat counts in ticks: over a short run a few ticks of rounding
    read as tenths of a core, so they are allowed for.
    """
    load = load or {}
    if load.get("foreign") is None:
        return False
    slack = SLACK_TICKS / cpu.TICKS / max(load.get("seconds") or 1.0, 1e-3)
    # Rally's unplaced CPU keeps the whole limit: on the test cloud's
    # 1-CPU hosts at 2 at once it is 0.1-0.3 cores in most runs (a third
    # of the limit flagged 82 of 256 runs on it alone, 2026-11-29)
    return load["foreign"] > limit_for(load, limit, saturated_share) \
        + slack or (load.get("unplaced") or 0.0) > limit + slack


def alike_in_pair(loads, limit):
    """Whether a pair's runs ran beside the same foreign load, with room.

    loads: load() of each run of an instance-and-twin pair. Alike: every
    run was read, their foreign cores are within limit of each other, and
    on each the host had a CPU left for that load beside the task's
    instances (leaves_room). A single-threaded loop on the
    other CPU of 2 slowed sysbench cpu and memory pinned on the first by
    1.8-2.1 %, with the same run-to-run SD (2026-12-01, 6 alternations
    of 4 runs each way): an instance and its twin beside the same such
    load lose the same, and their ratio keeps its answer. Where the load
    changed between them, or had to share a CPU with a test (every CPU
    had an instance: N at once on N CPUs), it does not.
    """
    if len(loads) < 2 or not all(leaves_room(load, limit)
                                 for load in loads):
        return False
    foreign = [load["foreign"] for load in loads]
    return max(foreign) - min(foreign) <= limit


def leaves_room(load, limit):
    """Whether a load (load()) left a CPU for its foreign cores.

    Fewer of the task's instances on the host than CPUs; instances plus
    foreign cores at most the CPUs plus ROOM_SLACK; instances plus the
    tasks runnable besides the harness's at both of the host's readings
    (``runnable``; the tests run between the readings) at most the
    CPUs: a load wanting more than the free CPUs takes what the tests
    leave, and its cores read no more than that (two loops beside one
    test pinned on one CPU of 2 read 1.07-1.08 foreign cores, the test
    keeping 0.92 of its CPU, 2026-12-01); Rally's unplaced CPU within
    the limit.
    """
    load = load or {}
    if load.get("foreign") is None or not load.get("cpus"):
        return False
    instances = load.get("instances") or 0
    runnable = load.get("runnable") or 0
    return (instances < load["cpus"]
            and instances + load["foreign"] <= load["cpus"] + ROOM_SLACK
            and instances + runnable <= load["cpus"]
            and (load.get("unplaced") or 0.0) <= limit)


def pair_disturbed(loads, limit, saturated_share=SATURATED_SHARE):
    """Whether a pair is disturbed: a run is, and not alike_in_pair."""
    return any(disturbed(load, limit, saturated_share) for load in loads) \
        and not alike_in_pair(loads, limit)


def read_window(outcome, window):
    """Set outcome's load, host and read_on from a run's window readings."""
    if window.readings:
        before, after = window.readings
        outcome.load = load(before, after)
        outcome.host = cpu.host_load((before.cpu, before.running),
                                     (after.cpu, after.running))
        outcome.read_on = after.host
