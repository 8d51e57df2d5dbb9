"""A host as a measurement reads it: this one, or a compute host over SSH.

A Reading is the host's CPU at one moment: its busy ticks and steal from
/proc/stat, runnable tasks, the measurement's own CPU there, and each of
the task's instances registered on it (foreign_load.Registry).

- LocalHost: the Rally host; its files are read here and the harness is
  Rally's process tree.
- ComputeHost: a compute host, read by one command per Reading through
  an executor that runs there (SSH). The measurement's own commands on
  it (the native twins) run through ComputeHost.owned(), which marks
  them (an environment variable their children inherit) and appends the
  CPU of each finished one to a file there: marked processes alive plus
  that file are the measurement's own CPU on the host.

The Rally host's readings are never taken for a compute host's: each
Reading says which host it read (``host``). Where a compute host is this
machine (one kernel: a test cloud's hosts are network namespaces of it),
the harness's own processes (Rally's SSH sessions and polls) count as
the measurement's own there too, as they do on LocalHost.
"""

import collections
import contextlib
import logging
import os
import socket
import time

from rally_container_bench.core import base
from rally_container_bench.validity import cpu
from rally_container_bench.validity import foreign_load

# run_tests' default: read this host where the executor runs here.
HERE = object()
BOOT_ID = "/proc/sys/kernel/random/boot_id"

LOG = logging.getLogger(__name__)

Reading = collections.namedtuple(
    "Reading",
    "at host cpu running busy own instances unplaced others cpu_ids",
    defaults=(0.0, None, None))
# busy, own: seconds of CPU since boot; instances: {name: seconds};
# unplaced: the part of own that is the harness's CPU on a host that
# shares this kernel but only some of its CPUs (ComputeHost._with_harness);
# running: procs_running; others: threads runnable outside the harness's
# tree (the reader's own host only; None: not counted); cpu_ids: the
# machine's CPUs a compute host has (None: not read)


# Reads of /proc at most per local_processes(): a process gone meanwhile
# makes it read again.
SCANS = 3


def read_file(path):
    with open(path) as f:
        return f.read()


def local_processes():
    """{pid: (ppid, ticks)} of every process of this host readable now.

    A process reaped between the listing and its stat has its ticks in
    its parent's only from then on: read before, the parent had not got
    them, and a tree lost a whole run (two twins at once ending
    together: 0.3-0.4 s, read as 0.7 foreign cores, 2026-12-01). So the
    host is read again (at most SCANS times) until no process went.
    """
    for _ in range(SCANS):
        found, gone = {}, 0
        # parents (lower pids) before their children: a child reaped
        # after its own stat was read is then not counted twice
        for pid in sorted(int(name) for name in os.listdir("/proc")
                          if name.isdigit()):
            try:
                found[pid] = cpu.parse_process_stat(
                    read_file("/proc/%d/stat" % pid))
            except (OSError, ValueError, IndexError):
                gone += 1
        if not gone:
            break
    return found


def runnable_outside(excluded):
    """Thread ids runnable now on this host outside the excluded pids."""
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit() or int(name) in excluded:
            continue
        try:
            threads = os.listdir("/proc/%s/task" % name)
        except OSError:
            continue  # gone meanwhile
        for tid in threads:
            try:
                state = cpu.parse_state(
                    read_file("/proc/%s/task/%s/stat" % (name, tid)))
            except (OSError, IndexError):
                continue
            if state == "R":
                found.append(int(tid))
    return found


def seconds_of(source, read_usage, processes):
    if source == foreign_load.KERNEL_THREADS:
        return cpu.kernel_thread_ticks(processes()) / cpu.TICKS
    if source.startswith("pid:"):
        return cpu.tree_ticks(processes(), int(source[4:])) / cpu.TICKS
    try:
        return cpu.parse_usage(source, read_usage(source))
    except (OSError, ValueError, KeyError, TypeError):
        return None


class Window:
    """The Readings of a host around one run (None: not read)."""

    def __init__(self, host):
        self.host = host
        self.before = None
        self.after = None

    @property
    def readings(self):
        if self.before is None or self.after is None:
            return None
        return self.before, self.after


@contextlib.contextmanager
def watched(host, owned):
    """The host's Readings around a run (readings None: none watched)."""
    if host is None:
        yield Window(None)
        return
    with host.window(owned=owned) as found:
        yield found


def guarded(host, before=False):
    """A Reading of host, or None where it failed (logged)."""
    try:
        return host.read(before=before)
    except (base.DriverError, ValueError, OSError) as e:
        LOG.warning("the load of %s was not read: %s" % (host.name, e))
        return None


class LocalHost:
    """The Rally host."""

    def __init__(self, conf):
        self.name = socket.gethostname()
        self.registry = foreign_load.Registry(conf)

    def read(self, before=False):
        at = time.monotonic()
        cpu_times, busy, running = cpu.parse_stat(read_file("/proc/stat"))
        table = local_processes()
        instances = {}
        for name, source in self.registry.sources().items():
            seconds = seconds_of(source, read_file, lambda: table)
            if seconds is not None:
                instances[name] = seconds
        harness = cpu.tree_pids(table, foreign_load.harness())
        own = cpu.ticks_of(table, harness) / cpu.TICKS
        # Rally's runners, clients and twins (and this reader) are often
        # runnable at a reading (3-9 threads beside a one-core loop,
        # 2026-12-01): only the others can be a neighbour's
        others = len(runnable_outside(harness))
        return Reading(at, self.name, cpu_times, running, busy / cpu.TICKS,
                       own, instances, others=others)

    def register(self, name, driver, instance):
        """Count the instance's CPU as the task's own (driver.host_pid).

        Its engine helpers' too (driver.helper_pids). Returns what is
        read for the instance (a cgroup's usage file, "pid:N"), or None.
        """
        source = usage_source(driver.host_pid(instance))
        self.registry.add(name, source, driver.disk_in_host_kernel(instance))
        for pid in driver.helper_pids(instance):
            helpers = usage_source(pid)
            if helpers and not helpers.startswith("pid:"):
                self.registry.add_helpers(helpers)
        return source

    def discard(self, name):
        self.registry.discard(name)

    def owned(self, executor):
        return executor  # the harness's tree holds what it runs here

    @contextlib.contextmanager
    def window(self, owned=False):
        """The Readings around a run: window.readings = (before, after)."""
        found = Window(self)
        found.before = guarded(self, before=True)
        try:
            yield found
        finally:
            found.after = guarded(self) if found.before else None

    def close(self):
        pass


def usage_source(pid):
    """What to read for an instance of this host whose main process is pid."""
    if not pid:
        return None
    try:
        usage = cpu.cgroup_usage_file(
            read_file("/proc/%d/cgroup" % pid),
            os.path.isdir(os.path.join(cpu.CGROUP_ROOT, "unified")))
    except OSError:
        return None
    own = cpu.cgroup_usage_file(read_file("/proc/self/cgroup"))
    if usage and usage != own and os.path.exists(usage):
        return usage
    return "pid:%d" % pid


# The commands run on a compute host: one sh script, its arguments
#   MODE KEY DONE_FILE STAT_AT SOURCES [ARGV...]
# A Reading: /proc/stat's cpu and procs_running lines, each usage file
# in SOURCES (newline-separated), the CPU of the processes marked
# RCBENCH_OWN=KEY alive (their stat lines) and finished (the sum of
# DONE_FILE) and, for "pid:" sources, every process's stat line.
# STAT_AT: /proc/stat read first (a reading after a run) or last (before
# one), so the work of the reading itself falls outside the run's window.
# The whole script is the measurement's own: marked (started by env with
# RCBENCH_OWN=KEY, which its children inherit), and at its end it
# appends its CPU ticks, with all it reaped (the readings' commands, the
# run), to DONE_FILE. So one iteration's readings and twins are not
# foreign load in another's window on the same host.
# MODE read: one Reading on stdout (sweep-read: the same after removing
# DONE_FILEs untouched for a day, those of runs that ended: one sweep per
# host and Rally process). MODE window: ARGV run between a Reading before
# and one after, both on stderr: no round trip to the Rally host, and no
# login's work, inside the window.
