"""One engine daemon process: started detached, found again by pid file.

A daemon started here is detached (its own session) and its pid is kept in
<daemon_state_dir>/<name>.pid (host-wide, /run/rcbench by default: a
second user's HOME must find the daemons the first one started, not start
its own) so ``rcbench engines stop`` stops exactly what was started here
and nothing else.

Detached daemons are re-parented to PID 1, which may never reap them: a
stopped daemon can linger as a zombie, so liveness is read from
/proc/PID/stat (state Z = gone), never from ``kill -0``. The pid file
holds the daemon's start time too (core.processes.Recorded): a signal
reaches it only while its pid still names it.

No engine module here: engines (engines/*/daemon.py) build
their Daemons on it.
"""

import functools
import os
import socket
import subprocess
import time

from rally_container_bench.core import base
from rally_container_bench.core import processes
from rally_container_bench import opts


class Daemon(object):
    """One engine daemon: how to start it and how to tell it answers.

    Without ``answers`` it answers while the process started here runs.
    """

    def __init__(self, name, argv, state_dir, answers=None, prepare=None,
                 after_start=None, before_stop=None, own_pidfiles=(),
                 dump_signal=None):
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
        # the signal on which it writes its threads' stacks (Go daemons:
        # SIGUSR1), for a daemon that stops answering
        self.dump_signal = dump_signal

    def _files(self):
        directory = opts.resolved_dir(self.state_dir)
        os.makedirs(directory, exist_ok=True)
        return (os.path.join(directory, self.name + ".pid"),
                os.path.join(directory, self.name + ".log"))

    def started(self):
        """The daemon this tool started (a processes.Recorded), if it runs.

        The pid file holds its pid and start time: a pid reused by another
        process since (the daemon crashed, the host forked on) is not it.
        A pid file of an earlier version (the pid alone) names it if it
        started before the file was written.
        """
        recorded = processes.Recorded.in_pidfile(self._files()[0])
        return recorded if recorded is not None and recorded.alive() \
            else None

    def started_pid(self):
        """Pid of the daemon this tool started, if it still runs."""
        recorded = self.started()
        return recorded.pid if recorded is not None else None

    def start(self, timeout=60):
        """Start unless it answers already; True when started here.

        A daemon that runs and does not answer yet (busy: a dockerd
        creating 100 containers answered its ping after 5 s) is waited
        for, never started twice: a second one would fail on the first's
        pid file, and its pid, written here, would replace the first's.
        """
        if self.prepare is not None:
            self.prepare()
        if self.answers():
            return False
        running = self._running_instance()
        if running is not None:
            self._wait_answers(running.alive, timeout, "%s (pid %d)"
                               % (self.name, running.pid))
            return False
        self._remove_stale_own_pidfiles()
        pidfile, logfile = self._files()
        with open(logfile, "ab") as log:
            proc = subprocess.Popen(self.argv, stdin=subprocess.DEVNULL,
                                    stdout=log, stderr=log,
                                    start_new_session=True)
        # not reaped: the pid is still this child's
        recorded = processes.Recorded.of(proc.pid)
        with open(pidfile, "w") as f:
            f.write(str(recorded))
        try:
            self._wait_answers(lambda: proc.poll() is None, timeout,
                               self.name)
            if proc.poll() is not None:  # another one answers
                raise base.DriverError(
                    "%s exited at start (exit %d), yet one answers: "
                    "started by someone else; see %s"
                    % (self.name, proc.returncode, logfile))
        except base.DriverError:
            if proc.poll() is not None:
                _remove(pidfile)
            raise
        return True

    def _running_instance(self):
        """The daemon running already: ours, or one its pid files name.

        A pid file's process counts only if it runs this daemon's program
        (dockerd's files name its containerd too).
        """
        ours = self.started()
        if ours is not None:
            return ours
        program = os.path.basename(self.argv[0])[:15]
        for path in self.own_pidfiles:
            held = _pid_in(path)
            if held is not None and processes.running(held) \
                    and processes.command_name(held) == program:
                return processes.Recorded.of(held)
        return None

    def _wait_answers(self, runs, timeout, who):
        """Until it answers; DriverError once runs() is False or at timeout."""
        logfile = self._files()[1]
        deadline = time.monotonic() + timeout
        while not self.answers():
            if not runs():
                raise base.DriverError("%s exited before it answered; see "
                                       "%s" % (who, logfile))
            if time.monotonic() > deadline:
                raise base.DriverError("%s does not answer after %s s; see "
                                       "%s" % (who, timeout, logfile))
            time.sleep(0.2)

    def _remove_stale_own_pidfiles(self):
        for path in self.own_pidfiles:
            pid = _pid_in(path)
            if pid is not None and not processes.running(pid):
                _remove(path)

    def stop(self, timeout=30):
        """Stop the daemon started here (no other); True when stopped."""
        recorded = self.started()
        pidfile, _ = self._files()
        if recorded is None:
            _remove(pidfile)
            return False
        recorded.stop(timeout)
        _remove(pidfile)
        return True

    def dump_stacks(self, wait=2.0):
        """Ask the daemon started here for its stacks; what it logged then.

        None where it has no such signal or was not started here.
        """
        logfile = self._files()[1]
        offset = os.path.getsize(logfile) if os.path.exists(logfile) else 0
        if self.dump_signal is None or not self.kill(self.dump_signal):
            return None
        time.sleep(wait)
        with open(logfile, errors="replace") as f:
            f.seek(offset)
            return f.read()

    def kill(self, signum):
        """signum to the daemon started here; True if it was sent."""
        recorded = self.started()
        return recorded is not None and recorded.signal(signum)


def _pid_in(path):
    try:
        with open(path) as f:
            return int(f.read().strip())
    except (OSError, ValueError):
        return None


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
