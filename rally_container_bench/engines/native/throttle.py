"""A known effect: a share of the CPU time withheld by the kernel's quota.

The instrument check's known-effect cell (report/instrument.py) runs
native tests in a cgroup of their own whose CPU bandwidth is capped at
(1 - withheld) of one CPU: the CFS quota (cgroup v2 ``cpu.max``, v1
``cpu.cfs_quota_us`` / ``cpu.cfs_period_us``). A CPU-bound test there
does (1 - withheld) of its work per second, so its effect against its
unthrottled twin is known before it is measured. A short period (10 ms)
keeps the effect even over runs of half a second.
"""

import itertools
import os

from rally_container_bench.core import base
from rally_container_bench.core import processes

PERIOD_US = 10000
PREFIX = "rcbench-slowed-"
_MOUNTS = "/proc/self/mounts"
_numbers = itertools.count(1)  # a process's caps (one per thread's run)


def hierarchy(mounts=_MOUNTS):
    """(version, directory) of the hierarchy with the cpu controller.

    (None, why not) where there is none.
    """
    try:
        with open(mounts) as f:
            entries = [line.split() for line in f]
    except OSError as e:
        return None, "cannot read %s: %s" % (mounts, e)
    entries = [e[1:4] for e in entries if len(e) >= 4]
    for where, kind, options in entries:
        if kind == "cgroup" and "cpu" in options.split(","):
            return 1, where
    for where, kind, _ in entries:
        if kind == "cgroup2" and "cpu" in _read(
                os.path.join(where, "cgroup.controllers")).split():
            return 2, where
    return None, ("no cgroup hierarchy here has the cpu controller (%s): "
                  "the known effect needs the kernel's CPU quota" % mounts)


def available():
    """(True, None), or (False, why the known effect cannot run here)."""
    version, where = hierarchy()
    if version is None:
        return False, where
    if not os.access(where, os.W_OK):
        return False, ("the cgroup hierarchy %s is not writable: the known "
                       "effect needs root" % where)
    return True, None


def _read(path):
    try:
        with open(path) as f:
            return f.read()
    except OSError:
        return ""


def _write(path, text):
    with open(path, "w") as f:
        f.write(text)


class Throttle:
    """A cgroup capping its processes at (1 - withheld) of one CPU.

    ``wrap(argv)`` is the argv that enters it first; ``close()`` removes
    it (its processes have ended by then).
    """

    def __init__(self, withheld, name=None):
        if not 0 < withheld < 1:
            raise base.DriverError("withheld is a share of the CPU time "
                                   "between 0 and 1, not %r" % (withheld,))
        self.withheld = withheld
        self.version, self.root = hierarchy()
        if self.version is None:
            raise base.DriverError(self.root)
        self.path = os.path.join(self.root, name or "%s%d-%d" % (
            PREFIX, os.getpid(), next(_numbers)))
        self.quota_us = int(round(PERIOD_US * (1 - withheld)))
        self._remove_stale()
        try:
            os.makedirs(self.path, exist_ok=True)
            if self.version == 2:
                self._enable_controller()
                _write(os.path.join(self.path, "cpu.max"),
                       "%d %d" % (self.quota_us, PERIOD_US))
            else:
                _write(os.path.join(self.path, "cpu.cfs_period_us"),
                       str(PERIOD_US))
                _write(os.path.join(self.path, "cpu.cfs_quota_us"),
                       str(self.quota_us))
        except OSError as e:
            self.close()
            raise base.DriverError("cannot cap the CPU of %s: %s"
                                   % (self.path, e))

    def _enable_controller(self):
        control = os.path.join(self.root, "cgroup.subtree_control")
        if "cpu" not in _read(control).split():
            _write(control, "+cpu")

    def _remove_stale(self):
        """Caps left by a process that died before it removed its own."""
        try:
            names = os.listdir(self.root)
        except OSError:
            return
        for name in names:
            pid = name[len(PREFIX):].split("-")[0]
            if name.startswith(PREFIX) and pid.isdigit() \
                    and not processes.running(int(pid)):
                try:
                    os.rmdir(os.path.join(self.root, name))
                except OSError:
                    pass  # still holds a process: not stale

    def wrap(self, argv):
        """argv, entering the cgroup before it execs.

        No value is interpreted by the shell: the path and argv are its
        arguments.
        """
        return ["sh", "-c", 'echo $$ > "$0" && exec "$@"',
                os.path.join(self.path, "cgroup.procs")] + list(argv)

    def describe(self):
        control = ("cpu.max %d %d" if self.version == 2 else
                   "cpu.cfs_quota_us %d of cpu.cfs_period_us %d") % (
            self.quota_us, PERIOD_US)
        return ("%g %% of one CPU's time withheld by the kernel's quota "
                "(cgroup v%d %s)" % (100 * self.withheld, self.version,
                                     control))

    def close(self):
        try:
            os.rmdir(self.path)
        except FileNotFoundError:
            pass
        except OSError:
            pass  # a process still in it: _remove_stale takes it later
