"""A compute host as a measurement reads it: over SSH, one command per
Reading (validity.hosts has the Reading, and this host's own reader).

The measurement's own commands on it (the native twins) run through
ComputeHost.owned(), which marks them (an environment variable their
children inherit) and appends the CPU of each finished one to a file
there: marked processes alive plus that file are the measurement's own
CPU on the host. Where a compute host is this machine (one kernel: a
test cloud's hosts are network namespaces of it), the harness's own
processes (Rally's SSH sessions and polls) count as the measurement's
own there too, as they do on hosts.LocalHost.
"""

import contextlib
import dataclasses
import logging
import os
import re
import shlex
import time

from rally_container_bench.core import base
from rally_container_bench.validity import cpu
from rally_container_bench.validity import cpu_pairs
from rally_container_bench.validity import foreign_load
from rally_container_bench.validity import harness_cpu
from rally_container_bench.validity import host_reading
from rally_container_bench.validity import hosts

LOG = logging.getLogger(__name__)


# Where the cgroup of a compute host's process is, and whether the host
# mounts cgroup2 beside v1 (hybrid); $1: the pid.
_CGROUP = r"""
cat "/proc/$1/cgroup" && echo "== self" && cat /proc/self/cgroup || exit
echo "== unified"
[ -d /sys/fs/cgroup/unified ] && echo yes
exit 0
"""


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
        """harness_cpu.HarnessCpu where this host is this machine, else NONE.

        One kernel, one /proc/stat: Rally's processes here are work of
        the measurement on that host, not foreign load on it.
        """
        if self._same_kernel is None:
            found = self.executor.run(["cat", hosts.BOOT_ID], self.timeout)
            self._same_kernel = found.exit_code == 0 and (
                found.stdout.strip() == hosts.read_file(hosts.BOOT_ID).strip())
        if not self._same_kernel:
            return harness_cpu.NONE
        return harness_cpu.of_tree(hosts.local_processes(),
                                   foreign_load.harness())

    def _with_harness(self, reading, harness):
        """The reading with the harness's CPU counted as the host's own.

        harness: harness_cpu.HarnessCpu. Where the host has only some of
        this machine's CPUs (a test cloud's host confined to one), the
        harness's processes ran on any CPU: the part on the host's CPUs
        counts (its cgroup's CPU per CPU); where that is unknown, all of
        it, also kept as unplaced (foreign_load.load). Counted whole as
        own, Rally's bursts beside a test hid a CPU hog on the host's CPU
        (own 1.05 cores against busy 0.95 on a 1-CPU host, the test at
        half speed read as undisturbed; 2026-11-29).
        """
        whole = reading._replace(own=reading.own + harness.seconds,
                                 unplaced=0.0)
        if not (reading.cpu and reading.cpu.cpus
                and reading.cpu.cpus < self.machine_cpus):
            return whole
        placed = harness_cpu.on_cpus(harness, reading.cpu_ids)
        if placed is None:
            return whole._replace(unplaced=harness.seconds)
        return reading._replace(own=reading.own + placed, unplaced=0.0)

    def _argv(self, mode, stat_at, sources):
        return ["env", "RCBENCH_OWN=%s" % self.key,
                "sh", "-c", host_reading.SCRIPT, "rcbench-host", mode,
                self.key, self.done_file, stat_at,
                "\n".join(sorted(set(sources.values())))]

    def read(self, before=False):
        """A hosts.Reading; before: one that opens a run's window."""
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
        _, readings = host_reading.split_readings(result.stdout)
        if not readings:
            raise ValueError("the reading of %s said nothing: %r"
                             % (self.name, result.stdout[-300:]))
        return self._with_harness(host_reading.parse_reading(
            readings[0], at, self.name, sources), harness)

    @contextlib.contextmanager
    def window(self, owned=False):
        """The Readings around a run: window.readings = (before, after).

        owned: the run's commands go through owned(): each carries its
        own Readings (the first's before, the last's after are kept),
        so the window holds no round trip. Else read before and after.
        """
        found = hosts.Window(self)
        if owned:
            self._captured = []
        else:
            found.before = hosts.guarded(self, before=True)
        try:
            yield found
        finally:
            captured, self._captured = self._captured, None
            if captured:
                found.before, found.after = captured[0][0], captured[-1][1]
            elif found.before is not None or not owned:
                found.after = hosts.guarded(self) if found.before else None

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
        self.registry.add(name, source, driver.disk_in_host_kernel(instance))
        return source

    def _usage_source(self, pid):
        result = self.executor.run(["sh", "-c", _CGROUP, "rcbench-cgroup",
                                    str(pid)], self.timeout)
        if result.exit_code != 0:
            return "pid:%d" % pid
        sections = host_reading.parse_sections("== pid\n" + result.stdout)
        unified = sections.get("unified", "").strip() == "yes"
        usage = cpu.cgroup_usage_file(sections.get("pid", ""), unified)
        own = cpu.cgroup_usage_file(sections.get("self", ""), unified)
        if usage and usage != own and self.executor.run(
                ["test", "-r", usage], self.timeout).exit_code == 0:
            return usage
        return "pid:%d" % pid

    def cpus(self):
        """(usable CPUs, {cpu: its core's CPUs}) of a login here.

        cpu_pairs.parse_host_cpus of its cpuset and topology; DriverError
        where they cannot be read.
        """
        try:
            return cpu_pairs.parse_host_cpus(self.executor.run(
                ["sh", "-c", cpu_pairs.HOST_CPUS_SCRIPT], 60).stdout)
        except (base.DriverError, ValueError) as e:
            raise base.DriverError("the CPUs of compute host %s were not "
                                   "read: %s" % (self.name, e))

    def scratch(self, workdir):
        """A private directory in workdir here for a twin's files."""
        return self.executor.run(
            ["mktemp", "-d", "-p", workdir, "rcbench-native-XXXXXX"],
            60).check("mktemp on compute host %s" % self.name).stdout.strip()

    def remove(self, path):
        """Remove a scratch directory; a failure is logged, not raised."""
        try:
            self.executor.run(["rm", "-rf", path], 300)
        except base.DriverError as e:
            LOG.warning("%s: %s not removed: %s" % (self.name, path, e))

    def discard(self, name):
        self.registry.discard(name)

    def owned(self, executor=None):
        """An executor whose commands count as the measurement's own here."""
        return OwnedExecutor(executor or self.executor, self)

    def _capture(self, sent, received, stderr, sources,
                 harness=(harness_cpu.NONE, harness_cpu.NONE)):
        """The Readings a window's command wrote: (before, after) kept.

        harness: the harness's CPU here at sent and at received (its
        work for this command's session just outside the window counts
        as its own too).
        """
        rest, readings = host_reading.split_readings(stderr)
        if getattr(self, "_captured", None) is None:
            return rest
        try:
            if len(readings) != 2:
                raise ValueError("%d of its 2 readings came back"
                                 % len(readings))
            self._captured.append(tuple(
                self._with_harness(host_reading.parse_reading(
                    text, at, self.name, sources), ticks)
                for text, at, ticks in zip(readings, (sent, received),
                                           harness)))
        except ValueError as e:
            # The run stands; only its load is unknown (a Zun host once
            # sent a reading with no /proc/stat lines, 2026-12-06: the
            # iteration failed on it).
            LOG.warning("the load of %s around a run was not read: %s"
                        % (self.name, e))
            self._captured.append((None, None))
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
