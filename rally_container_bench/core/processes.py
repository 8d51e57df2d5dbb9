"""Signals that reach only the process they are meant for.

A pid is a number the kernel hands out again once its process has been
reaped: on a CI host (pid_max 32768) a 100-container task forks the whole
range in under a minute. A signal sent to a bare number can then kill
anything, a container's shim among them. So every signal of this project
goes through here, to one of:

- a child not yet reaped (its ``subprocess.Popen`` with no returncode):
  until it is reaped, even as a zombie, its pid and its process group's
  number belong to it and to nothing else;
- a ``Recorded`` process: a pid with the start time it had when it was
  started (``/proc/PID/stat`` field 22), signalled only while the
  process with that pid still has that start time.

``tests/unit/test_kills.py`` keeps every other kill out of the tree.
"""

import collections
import os
import shlex
import signal
import subprocess
import time

from rally_container_bench.core import proc


def start_ticks(pid):
    """When pid started (clock ticks after boot), or None if there is none.

    A zombie still has its start time: it holds its pid until reaped.
    """
    text = proc.read_stat(pid)
    try:
        return None if text is None else proc.start_ticks(text)
    except (ValueError, IndexError):
        return None


_TICK_S = 1.0 / os.sysconf("SC_CLK_TCK")

# How much later than its pid file a process may seem to start and still be
# the one the file names. The start time and /proc/uptime are whole ticks
# (10 ms), truncated; a file's mtime is the kernel's coarse clock. A daemon
# that writes its pid file right after its fork (nginx, sleep & echo $!)
# seemed to start up to 11 ms after the file's time: 16 of 300 such
# daemons were refused at one tick of slack (2026-12-06), and a CI left
# an nginx running. A pid handed out again within 1 s would need the whole
# pid range forked in that second (a 100-container task takes a minute).
PIDFILE_SLACK_S = 1.0


def started_at(ticks):
    """The wall-clock time (epoch s) of a start time in ticks after boot."""
    with open("/proc/uptime") as f:
        uptime = float(f.read().split()[0])
    return time.time() - uptime + ticks * _TICK_S


def command_name(pid):
    """The kernel's name of pid's program (15 characters at most), or None."""
    try:
        with open("/proc/%d/comm" % pid) as f:
            return f.read().rstrip("\n")
    except OSError:
        return None


def parent(pid):
    """pid's parent pid, or None if there is no process at pid."""
    text = proc.read_stat(pid)
    try:
        return None if text is None else proc.ppid(text)
    except (ValueError, IndexError):
        return None


def running(pid):
    """True if pid runs (a zombie does not)."""
    text = proc.read_stat(pid)
    try:
        return text is not None and proc.state(text) not in ("Z", "X")
    except (ValueError, IndexError):
        return False


class Recorded(collections.namedtuple("Recorded", "pid start")):
    """A pid with the start time it had when recorded."""

    __slots__ = ()

    @classmethod
    def of(cls, pid):
        """pid as it runs now; None if nothing runs at pid."""
        start = start_ticks(pid)
        return None if start is None else cls(pid, start)

    @classmethod
    def parse(cls, text):
        """'PID START' as ``str()`` writes it; None for anything else."""
        words = text.split()
        if len(words) != 2 or not all(w.isdigit() for w in words):
            return None
        return cls(int(words[0]), int(words[1]))

    @classmethod
    def in_pidfile(cls, path):
        """The process a pid file names, or None if that is not sure.

        'PID START' (written by this project) is that process. A bare pid
        (written by the daemon itself, or by start-stop-daemon) names the
        process at that pid only if it started before the file was
        written: one started after is another that got the number since.
        """
        try:
            with open(path) as f:
                text = f.read()
            written = os.stat(path).st_mtime
        except OSError:
            return None
        recorded = cls.parse(text)
        if recorded is not None:
            return recorded
        if not text.strip().isdigit():
            return None
        now = cls.of(int(text))
        if now is None \
                or started_at(now.start) > written + PIDFILE_SLACK_S:
            return None
        return now

    def __str__(self):
        return "%d %d" % (self.pid, self.start)

    def same(self):
        """True while pid is still the process recorded (maybe a zombie)."""
        return start_ticks(self.pid) == self.start

    def alive(self):
        return self.same() and running(self.pid)

    def signal(self, signum):
        """Send signum if pid is still the process recorded; True if sent.

        A pid reused after the check within the same clock tick is the
        only case left, and a process cannot be reaped and its pid handed
        out again within one tick of /proc being read.
        """
        if not self.same():
            return False
        try:
            os.kill(self.pid, signum)
        except ProcessLookupError:
            return False
        return True

    def stop(self, timeout, kill_after=5.0, interval=0.2):
        """SIGTERM, then SIGKILL after timeout s; True once it is gone."""
        if not self.signal(signal.SIGTERM):
            return True
        deadline = time.monotonic() + timeout
        killed = False
        while self.alive():
            if time.monotonic() > deadline:
                if killed:
                    return False
                self.signal(signal.SIGKILL)
                killed = True
                deadline = time.monotonic() + kill_after
            time.sleep(interval)
        return True


def exited(proc):
    """True once the child proc has ended, without reaping it.

    Its returncode stays None: its pid and its group's number stay its own
    (a zombie), so that signal_child can still end what it left in its
    group.
    """
    if proc.returncode is not None:
        return True
    try:
        info = os.waitid(os.P_PID, proc.pid,
                         os.WEXITED | os.WNOHANG | os.WNOWAIT)
    except ChildProcessError:
        return proc.poll() is not None  # reaped elsewhere (Popen knows)
    return info is not None


def wait_exited(proc, timeout, interval=0.1):
    """Wait until the child proc ends, without reaping it; True if it did."""
    deadline = time.monotonic() + timeout
    while not exited(proc):
        if time.monotonic() > deadline:
            return False
        time.sleep(interval)
    return True


def signal_child(proc, signum, group=False):
    """Send signum to the child proc (its process group: group); True if sent.

    Only while proc is not yet reaped: once it is, its number (and its
    group's) may be anyone's. A group whose leader is an unreaped zombie
    is still that leader's: its leftovers get the signal. A child that
    leads no group (started without a session of its own) gets it alone.
    """
    if proc.returncode is not None:
        return False
    if group:
        try:
            os.killpg(proc.pid, signum)
            return True
        except ProcessLookupError:
            pass  # not a group's leader: the child alone
    try:
        os.kill(proc.pid, signum)
    except ProcessLookupError:
        return False
    return True


def end_group(proc, timeout=60):
    """SIGKILL the child proc's process group if still sure of it; reap it.

    For a child started with ``start_new_session=True``. A child already
    reaped is left alone: its group's number is no longer sure to be its.
    """
    signal_child(proc, signal.SIGKILL, group=True)
    try:
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        pass


def signal_script(pidfile, program, signame="TERM"):
    """A POSIX sh line: signame to the process pidfile names, if sure.

    For a host or guest reached through an executor (no Python there):
    the process must run ``program`` and have started before pidfile was
    written, within PIDFILE_SLACK_S (the one recorded_pid of
    tools/openstack-aio/common.sh checks the same way); a pid file left by
    a daemon that died names nobody.
    """
    quoted = shlex.quote(pidfile)
    return (
        "pid=$(cat %(file)s 2>/dev/null) && [ -n \"$pid\" ] "
        "&& [ \"$(cat /proc/$pid/comm 2>/dev/null)\" = %(program)s ] "
        "&& awk -v written=\"$(date -r %(file)s +%%s.%%N)\" "
        "-v now=\"$(date +%%s.%%N)\" -v hz=\"$(getconf CLK_TCK)\" "
        "'FILENAME == \"/proc/uptime\" { up = $1; next } "
        "{ sub(/.*\\) /, \"\"); start = $20 } "
        "END { exit !(start != \"\" && now - up + start / hz "
        "<= written + %(slack)s) }' /proc/uptime /proc/$pid/stat "
        "&& kill -s %(sig)s \"$pid\"" % {
            "file": quoted, "program": shlex.quote(program[:15]),
            "sig": signame, "slack": PIDFILE_SLACK_S})
