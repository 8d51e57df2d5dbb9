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
import dataclasses
import logging
import os
import re
import shlex
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
    "Reading", "at host cpu running busy own instances unplaced others",
    defaults=(0.0, None))
# busy, own: seconds of CPU since boot; instances: {name: seconds};
# unplaced: the part of own that is the harness's CPU on a host that
# shares this kernel but only some of its CPUs (ComputeHost._with_harness);
# running: procs_running; others: threads runnable outside the harness's
# tree (the reader's own host only; None: not counted)


# Reads of /proc at most per local_processes(): a process gone meanwhile
# makes it read again.
SCANS = 3


def _read(path):
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
                    _read("/proc/%d/stat" % pid))
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
                    _read("/proc/%s/task/%s/stat" % (name, tid)))
            except (OSError, IndexError):
                continue
            if state == "R":
                found.append(int(tid))
    return found


def _seconds(source, read_usage, processes):
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


def _guarded(host, before=False):
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
        cpu_times, busy, running = cpu.parse_stat(_read("/proc/stat"))
        table = local_processes()
        instances = {}
        for name, source in self.registry.sources().items():
            seconds = _seconds(source, _read, lambda: table)
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
        self.registry.add(name, source)
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
        found.before = _guarded(self, before=True)
        try:
            yield found
        finally:
            found.after = _guarded(self) if found.before else None

    def close(self):
        pass


def usage_source(pid):
    """What to read for an instance of this host whose main process is pid."""
    if not pid:
        return None
    try:
        usage = cpu.cgroup_usage_file(
            _read("/proc/%d/cgroup" % pid),
            os.path.isdir(os.path.join(cpu.CGROUP_ROOT, "unified")))
    except OSError:
        return None
    own = cpu.cgroup_usage_file(_read("/proc/self/cgroup"))
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
_SCRIPT = r"""
mode=$1; key=$2; done_file=$3; stat_at=$4; sources=$5; shift 5
stat() { echo "== stat"; grep -E '^(cpu[0-9]*|procs_running) ' /proc/stat; }
reading() {
    echo "== reading"
    [ "$1" = last ] || stat
    every=
    for s in $sources; do
        case $s in
        pid:*) every=1 ;;
        *) echo "== usage $s"; cat "$s" 2>/dev/null ;;
        esac
    done
    echo "== own"
    for p in $(grep -lzx "RCBENCH_OWN=$key" /proc/[0-9]*/environ 2>/dev/null)
    do
        cat "${p%/environ}/stat" 2>/dev/null
    done
    echo "== finished"
    awk '{ s += $1 } END { print s + 0 }' "$done_file" 2>/dev/null
    if [ -n "$every" ]; then
        echo "== processes"; cat /proc/[0-9]*/stat 2>/dev/null
    fi
    [ "$1" != last ] || stat
    echo "== end"
}
own_done() {
    IFS=' '
    read -r s < /proc/$$/stat
    set -- ${s##*) }
    echo $(( ${12} + ${13} + ${14} + ${15} )) >> "$done_file"
}
IFS='
'
if [ "$mode" != window ]; then
    # sweep-read: first, the files of runs that ended a day ago or more
    [ "$mode" = read ] || find "${done_file%/*}" -maxdepth 1 -type f \
        -name 'rcbench-own-*' -mtime +0 -delete 2>/dev/null
    reading "$stat_at"
    own_done
    exit 0
fi
reading last >&2
"$@"
rc=$?
reading first >&2
own_done
exit $rc
"""

# Where the cgroup of a compute host's process is, and whether the host
# mounts cgroup2 beside v1 (hybrid); $1: the pid.
_CGROUP = r"""
cat "/proc/$1/cgroup" && echo "== self" && cat /proc/self/cgroup || exit
echo "== unified"
[ -d /sys/fs/cgroup/unified ] && echo yes
exit 0
"""


def split_readings(text):
    """(text without its Readings, [each Reading's text])."""
    rest, readings, inside = [], [], None
    for line in text.splitlines():
        if line == "== reading":
            inside = []
            continue
        if inside is None:
            rest.append(line)
            continue
        inside.append(line)
        if line == "== end":
            readings.append("\n".join(inside))
            inside = None
    if inside is not None:
        readings.append("\n".join(inside))  # cut short: parse says so
    return "\n".join(rest) + ("\n" if rest else ""), readings


def parse_sections(text):
    """{section: text} of a command's "== name" sections."""
    found, name, lines = {}, None, []
    for line in text.splitlines():
        if line.startswith("== "):
            if name is not None:
                found[name] = "\n".join(lines)
            name, lines = line[3:], []
        else:
            lines.append(line)
    if name is not None:
        found[name] = "\n".join(lines)
    return found


def parse_reading(text, at, host, sources):
    """A Reading from the text _SCRIPT wrote. Pure.

    sources: {instance name: source}.
    """
    sections = parse_sections(text)
    if "end" not in sections:
        raise ValueError("the reading of %s ended early: %r"
                         % (host, text[-300:]))
    cpu_times, busy, running = cpu.parse_stat(sections["stat"])
    own = sum(ticks for _, ticks in cpu.parse_processes(
        sections.get("own", "")).values())
    own += sum(int(line) for line in sections.get("finished", "").split()
               if line.isdigit())
    processes = cpu.parse_processes(sections.get("processes", ""))
    instances = {}
    for name, source in sources.items():
        seconds = _seconds(source,
                           lambda path: sections["usage " + path],
                           lambda: processes)
        if seconds is not None:
            instances[name] = seconds
    return Reading(at, host, cpu_times, running, busy / cpu.TICKS,
                   own / cpu.TICKS, instances)


# The hosts (ComputeHost.key) whose old DONE_FILEs this process removed.
_SWEPT = set()


class ComputeHost:
    """A compute host, read through an executor that runs there.

    executor: a core.base.Executor on that host (core.ssh's, as the
    native twin's), closed with this view.
    """

    def __init__(self, name, executor, conf, timeout=60):
        self.name = name
        self.executor = executor
        self.timeout = timeout
        self.registry = foreign_load.Registry(conf, host=name)
        # per host: hosts that share a machine (a test cloud's) must not
        # count each other's twins
        self.key = "%s-%s" % (foreign_load.owner_key(), re.sub(
            r"[^A-Za-z0-9_.-]", "_", name))
        self.done_file = "/tmp/rcbench-own-%s" % self.key
        self._captured = None  # a window's Readings, from owned() runs
        self._same_kernel = None  # this machine's kernel? (asked once)
        self.machine_cpus = os.cpu_count() or 1

    def _harness_seconds(self):
        """The harness's CPU where this host is this machine, else 0.

        One kernel, one /proc/stat: Rally's processes here are work of
        the measurement on that host, not foreign load on it.
        """
        if self._same_kernel is None:
            found = self.executor.run(["cat", BOOT_ID], self.timeout)
            self._same_kernel = found.exit_code == 0 and (
                found.stdout.strip() == _read(BOOT_ID).strip())
        if not self._same_kernel:
            return 0.0
        return cpu.tree_ticks(local_processes(),
                              foreign_load.harness()) / cpu.TICKS

    def _with_harness(self, reading, harness):
        """The reading with the harness's CPU counted as the host's own.

        Where the host has only some of this machine's CPUs (a test
        cloud's host confined to one), the harness's processes ran on
        any CPU: what of their CPU was on this host's is unknown, so it
        is also kept as unplaced (foreign_load.load). Counted whole as
        own, Rally's bursts beside a test hid a CPU hog on the host's CPU
        (own 1.05 cores against busy 0.95 on a 1-CPU host, the test at
        half speed read as undisturbed; 2026-11-29).
        """
        unplaced = harness if reading.cpu and reading.cpu.cpus and (
            reading.cpu.cpus < self.machine_cpus) else 0.0
        return reading._replace(own=reading.own + harness,
                                unplaced=unplaced)

    def _argv(self, mode, stat_at, sources):
        return ["env", "RCBENCH_OWN=%s" % self.key,
                "sh", "-c", _SCRIPT, "rcbench-host", mode, self.key,
                self.done_file, stat_at,
                "\n".join(sorted(set(sources.values())))]

    def read(self, before=False):
        """A Reading; before: one that opens a run's window."""
        sources = self.registry.sources()
        # the harness's CPU at the end of the round trip nearer the
        # window's inside: read once, at that end
        harness_sent = None if before else self._harness_seconds()
        sent = time.monotonic()
        mode = "read" if self.key in _SWEPT else "sweep-read"
        result = self.executor.run(
            self._argv(mode, "last" if before else "first", sources),
            self.timeout)
        received = time.monotonic()
        # where in the round trip /proc/stat was read
        at = received if before else sent
        harness = self._harness_seconds() if before else harness_sent
        result.check("reading the CPU of compute host %s" % self.name)
        _SWEPT.add(self.key)
        _, readings = split_readings(result.stdout)
        if not readings:
            raise ValueError("the reading of %s said nothing: %r"
                             % (self.name, result.stdout[-300:]))
        return self._with_harness(
            parse_reading(readings[0], at, self.name, sources), harness)

    @contextlib.contextmanager
    def window(self, owned=False):
        """The Readings around a run: window.readings = (before, after).

        owned: the run's commands go through owned(): each carries its
        own Readings (the first's before, the last's after are kept),
        so the window holds no round trip. Else read before and after.
        """
        found = Window(self)
        if owned:
            self._captured = []
        else:
            found.before = _guarded(self, before=True)
        try:
            yield found
        finally:
            captured, self._captured = self._captured, None
            if captured:
                found.before, found.after = captured[0][0], captured[-1][1]
            elif found.before is not None or not owned:
                found.after = _guarded(self) if found.before else None

    def register(self, name, driver, instance):
        """Count the instance's CPU as the task's own on this host.

        driver.host_pid_command(instance): the argv that prints the
        instance's main process id on its compute host.
        """
        argv = driver.host_pid_command(instance)
        if not argv:
            raise base.DriverError("%s: its engine does not say which "
                                   "process it is" % instance.name)
        found = self.executor.run(argv, self.timeout)
        pid = found.stdout.strip().split()[-1] if found.exit_code == 0 \
            and found.stdout.strip() else ""
        if not pid.isdigit():
            raise base.DriverError(
                "%s: no process of %s on compute host %s (%s): %s"
                % (instance.name, instance.id, self.name, shlex.join(argv),
                   (found.stderr or found.stdout).strip()[-300:]))
        source = self._usage_source(int(pid))
        self.registry.add(name, source)
        return source

    def _usage_source(self, pid):
        result = self.executor.run(["sh", "-c", _CGROUP, "rcbench-cgroup",
                                    str(pid)], self.timeout)
        if result.exit_code != 0:
            return "pid:%d" % pid
        sections = parse_sections("== pid\n" + result.stdout)
        unified = sections.get("unified", "").strip() == "yes"
        usage = cpu.cgroup_usage_file(sections.get("pid", ""), unified)
        own = cpu.cgroup_usage_file(sections.get("self", ""), unified)
        if usage and usage != own and self.executor.run(
                ["test", "-r", usage], self.timeout).exit_code == 0:
            return usage
        return "pid:%d" % pid

    def discard(self, name):
        self.registry.discard(name)

    def owned(self, executor=None):
        """An executor whose commands count as the measurement's own here."""
        return OwnedExecutor(executor or self.executor, self)

    def _capture(self, sent, received, stderr, sources, harness=(0, 0)):
        """The Readings a window's command wrote: (before, after) kept.

        harness: the harness's CPU here at sent and at received (its
        work for this command's session just outside the window counts
        as its own too).
        """
        rest, readings = split_readings(stderr)
        if getattr(self, "_captured", None) is not None \
                and len(readings) == 2:
            self._captured.append((
                self._with_harness(parse_reading(
                    readings[0], sent, self.name, sources), harness[0]),
                self._with_harness(parse_reading(
                    readings[1], received, self.name, sources), harness[1])))
        return rest

    def close(self):
        self.executor.close()


class OwnedExecutor(base.Executor):
    """Runs commands on a compute host marked as the measurement's own.

    Each runs between two Readings of the host (ComputeHost.window).
    """

    def __init__(self, inner, host):
        self.inner = inner
        self.kind = inner.kind
        self.host = host

    @property
    def instance(self):
        return getattr(self.inner, "instance", None)

    def run(self, argv, timeout, cwd=None):
        argv = [str(a) for a in argv]
        sources = self.host.registry.sources()
        harness_sent = self.host._harness_seconds()
        sent = time.monotonic()
        result = self.inner.run(
            self.host._argv("window", "-", sources) + argv, timeout,
            cwd=cwd)
        received = time.monotonic()
        stderr = self.host._capture(
            sent, received, result.stderr, sources,
            (harness_sent, self.host._harness_seconds()))
        # The command as the results show it: the tool's, not the mark's.
        return dataclasses.replace(result, command=shlex.join(argv),
                                   stderr=stderr)

    def describe(self):
        return self.inner.describe()

    def close(self):
        self.inner.close()
