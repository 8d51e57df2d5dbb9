"""One engine daemon process: started detached, found again by pid file.

A daemon started here is detached (its own session) and its pid is kept in
<daemon_state_dir>/<name>.pid (host-wide, /run/rcbench by default: a
second user's HOME must find the daemons the first one started, not start
its own) so ``rcbench engines stop`` stops exactly what was started here
and nothing else.

Detached daemons are re-parented to PID 1, which may never reap them: a
stopped daemon can linger as a zombie, so liveness is read from
/proc/PID/stat (state Z = gone), never from ``kill -0``.

No engine module here: engines (engines/*/daemon.py) build
their Daemons on it.
"""

import functools
import os
import signal
import socket
import subprocess
import time

from rally_container_bench.core import base
from rally_container_bench import opts


class Daemon(object):
    """One engine daemon: how to start it and how to tell it answers.

    Without ``answers`` it answers while the process started here runs.
    """

    def __init__(self, name, argv, state_dir, answers=None, prepare=None,
                 after_start=None, before_stop=None, own_pidfiles=()):
        self.name = name
        self.argv = argv
        self.state_dir = state_dir
        self.answers = answers or (lambda: self.started_pid() is not None)
        self.prepare = prepare
        # after_start(report) / before_stop(report): engine housekeeping
        # that needs the daemon up; report(text) tells the user.
        self.after_start = after_start
        self.before_stop = before_stop
        # The daemon's own pid files: after a crash they name dead (or not
        # yet reaped) processes; dockerd then refuses to start, or waits
        # for the containerd it had started until it times out.
        self.own_pidfiles = own_pidfiles

    def _files(self):
        directory = opts.resolved_dir(self.state_dir)
        os.makedirs(directory, exist_ok=True)
        return (os.path.join(directory, self.name + ".pid"),
                os.path.join(directory, self.name + ".log"))

    def started_pid(self):
        """Pid of the daemon this tool started, if it still runs."""
        pidfile, _ = self._files()
        try:
            with open(pidfile) as f:
                pid = int(f.read())
        except (OSError, ValueError):
            return None
        return pid if alive(pid) else None

    def start(self, timeout=60):
        """Start unless it answers already; True when started here."""
        if self.prepare is not None:
            self.prepare()
        if self.answers():
            return False
        self._remove_stale_own_pidfiles()
        pidfile, logfile = self._files()
        with open(logfile, "ab") as log:
            proc = subprocess.Popen(self.argv, stdin=subprocess.DEVNULL,
                                    stdout=log, stderr=log,
                                    start_new_session=True)
        with open(pidfile, "w") as f:
            f.write(str(proc.pid))
        deadline = time.monotonic() + timeout
        while not self.answers():
            if not alive(proc.pid):
                raise base.DriverError("%s exited at start; see %s"
                                       % (self.name, logfile))
            if time.monotonic() > deadline:
                raise base.DriverError("%s does not answer after %s s; see "
                                       "%s" % (self.name, timeout, logfile))
            time.sleep(0.2)
        return True

    def _remove_stale_own_pidfiles(self):
        for path in self.own_pidfiles:
            try:
                with open(path) as f:
                    pid = int(f.read().strip())
            except (OSError, ValueError):
                continue
            if not alive(pid):
                _remove(path)

    def stop(self, timeout=30):
        """Stop the daemon started here (no other); True when stopped."""
        pid = self.started_pid()
        pidfile, _ = self._files()
        if pid is None:
            _remove(pidfile)
            return False
        os.kill(pid, signal.SIGTERM)
        deadline = time.monotonic() + timeout
        while alive(pid):
            if time.monotonic() > deadline:
                os.kill(pid, signal.SIGKILL)
                deadline = time.monotonic() + 5
            time.sleep(0.2)
        _remove(pidfile)
        return True


def alive(pid):
    """True if pid runs (a zombie does not)."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            state = f.read().rsplit(")", 1)[-1].split()[0]
    except (OSError, IndexError):
        return False
    return state not in ("Z", "X")


def _remove(path):
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass


@functools.lru_cache(maxsize=None)
def hybrid_cgroups():
    """True on the hybrid cgroup layout (crun 1.8, libvirt-LXC refuse it).

    Hybrid: cgroup v1 controllers plus a cgroup2 mount at
    /sys/fs/cgroup/unified. Read once per process: every podman command
    asks.
    """
    try:
        with open("/proc/self/mountinfo") as f:
            for line in f:
                # ID PARENT DEV ROOT MOUNTPOINT OPTS ... - FSTYPE SOURCE ...
                mount, _, fs = line.partition(" - ")
                if (mount.split()[4] == "/sys/fs/cgroup/unified"
                        and fs.split()[0] == "cgroup2"):
                    return True
    except OSError:
        pass
    return False


def socket_answers(path):
    """A readiness check: the unix socket at path accepts a connection."""
    def answers():
        with socket.socket(socket.AF_UNIX) as s:
            try:
                s.connect(path)
                return True
            except OSError:
                return False
    return answers
