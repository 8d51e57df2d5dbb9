"""core.processes and core.daemon on real processes: a signal reaches only
the process meant, and a daemon is never started twice."""

import os
import signal
import subprocess
import tempfile
import time
import unittest

from rally_container_bench.core import base
from rally_container_bench.core import daemon
from rally_container_bench.core import processes


def _sleeper(*argv, **kwargs):
    proc = subprocess.Popen(list(argv) or ["sleep", "60"], **kwargs)
    # a failed test still leaves nothing: Popen.kill checks the reap
    return proc


class RecordedTestCase(unittest.TestCase):

    def setUp(self):
        self.proc = _sleeper()
        self.addCleanup(self.proc.wait, 10)
        self.addCleanup(self.proc.kill)

    def test_a_recorded_process_gets_its_signal(self):
        recorded = processes.Recorded.of(self.proc.pid)
        self.assertTrue(recorded.alive())
        self.assertTrue(recorded.signal(signal.SIGTERM))
        self.assertEqual(-signal.SIGTERM, self.proc.wait(10))
        # a zombie is gone; once reaped, nothing has its start time
        self.assertFalse(recorded.alive())
        self.assertFalse(recorded.signal(signal.SIGTERM))

    def test_another_start_time_at_the_pid_gets_no_signal(self):
        # what a pid handed out again looks like: the same number, another
        # start
        now = processes.Recorded.of(self.proc.pid)
        other = processes.Recorded(now.pid, now.start - 1)
        self.assertFalse(other.same())
        self.assertFalse(other.signal(signal.SIGKILL))
        self.assertIsNone(self.proc.poll())

    def test_written_and_parsed_back(self):
        recorded = processes.Recorded.of(self.proc.pid)
        self.assertEqual(recorded, processes.Recorded.parse(str(recorded)))
        for text in ("", "12", "12 x", "1 2 3"):
            self.assertIsNone(processes.Recorded.parse(text), text)

    def test_a_bare_pid_file_names_a_process_started_before_it(self):
        with tempfile.TemporaryDirectory() as scratch:
            path = os.path.join(scratch, "x.pid")
            with open(path, "w") as f:
                f.write("%d\n" % self.proc.pid)
            self.assertEqual(processes.Recorded.of(self.proc.pid),
                             processes.Recorded.in_pidfile(path))
            # written before the process started: another got the number
            an_hour_ago = time.time() - 3600
            os.utime(path, (an_hour_ago, an_hour_ago))
            self.assertIsNone(processes.Recorded.in_pidfile(path))
            self.assertIsNone(processes.Recorded.in_pidfile(path + "x"))

    def test_stop_terms_then_kills(self):
        stubborn = _sleeper("sh", "-c", "trap '' TERM; sleep 60 & wait")
        self.addCleanup(stubborn.wait, 10)
        self.addCleanup(stubborn.kill)
        time.sleep(0.2)  # the trap is set
        recorded = processes.Recorded.of(stubborn.pid)
        started = time.monotonic()
        self.assertTrue(recorded.stop(0.5, interval=0.05))
        self.assertLess(time.monotonic() - started, 5)
        self.assertEqual(-signal.SIGKILL, stubborn.wait(10))


class ChildTestCase(unittest.TestCase):

    def test_a_reaped_child_gets_no_signal(self):
        proc = _sleeper("true")
        proc.wait()
        self.assertFalse(processes.signal_child(proc, signal.SIGKILL))
        self.assertFalse(processes.signal_child(proc, signal.SIGKILL,
                                                group=True))

    def test_a_group_outlives_its_leader_until_end_group(self):
        # the leader exits at once and leaves a sleep in its group, as a
        # Rally leaves its runners
        leader = _sleeper("sh", "-c", "sleep 60 & echo $!",
                          stdout=subprocess.PIPE, text=True,
                          start_new_session=True)
        left = int(leader.stdout.readline())
        leader.stdout.close()
        self.assertTrue(processes.wait_exited(leader, 10))
        # not reaped: the leader's number is still its group's
        self.assertIsNone(leader.returncode)
        self.assertTrue(processes.running(left))
        processes.end_group(leader)
        self.assertEqual(0, leader.returncode)
        deadline = time.monotonic() + 5
        while processes.running(left) and time.monotonic() < deadline:
            time.sleep(0.05)
        self.assertFalse(processes.running(left))

    def test_wait_exited_times_out_on_a_running_child(self):
        proc = _sleeper()
        self.addCleanup(processes.end_group, proc)
        self.assertFalse(processes.wait_exited(proc, 0.2))
        self.assertIsNone(proc.returncode)


class SignalScriptTestCase(unittest.TestCase):

    def run_script(self, program, age=0):
        proc = _sleeper()
        self.addCleanup(proc.wait, 10)
        self.addCleanup(proc.kill)
        with tempfile.TemporaryDirectory() as scratch:
            path = os.path.join(scratch, "daemon.pid")
            with open(path, "w") as f:
                f.write(str(proc.pid))
            if age:
                os.utime(path, (time.time() - age, time.time() - age))
            subprocess.run(["sh", "-c", processes.signal_script(
                path, program)], check=False, timeout=10)
        time.sleep(0.1)
        return proc.poll()

    def test_the_daemon_named_is_stopped(self):
        self.assertEqual(-signal.SIGTERM, self.run_script("sleep"))

    def test_another_program_at_the_pid_is_left(self):
        self.assertIsNone(self.run_script("iperf3"))

    def test_a_pid_file_older_than_the_process_is_left(self):
        self.assertIsNone(self.run_script("sleep", age=3600))
        self.assertIsNone(self.run_script("sleep", age=3))


class PidFileWrittenAtOnceTestCase(unittest.TestCase):
    """A daemon writing its pid file right after its fork is the one named.

    nginx does; at one tick of slack 16 of 300 were refused and a CI left
    an nginx running.
    """

    TRIALS = 100

    def daemons(self, scratch):
        """(pid file, Recorded) of TRIALS daemons, each its file at once."""
        started = []
        for i in range(self.TRIALS):
            path = os.path.join(scratch, "%d.pid" % i)
            subprocess.run(["sh", "-c", "sleep 60 & echo $! > %s" % path],
                           check=True, timeout=10)
            with open(path) as f:
                recorded = processes.Recorded.of(int(f.read()))
            self.addCleanup(recorded.signal, signal.SIGKILL)
            started.append((path, recorded))
        return started

    def test_the_pid_file_names_its_daemon(self):
        with tempfile.TemporaryDirectory() as scratch:
            for path, recorded in self.daemons(scratch):
                self.assertEqual(recorded,
                                 processes.Recorded.in_pidfile(path))

    def test_the_signal_script_stops_its_daemon(self):
        with tempfile.TemporaryDirectory() as scratch:
            started = self.daemons(scratch)
            for path, _ in started:
                subprocess.run(["sh", "-c", processes.signal_script(
                    path, "sleep", "KILL")], check=False, timeout=10)
        time.sleep(0.1)
        self.assertEqual([], [r.pid for _, r in started if r.alive()])


class DaemonStartTestCase(unittest.TestCase):
    """A daemon that runs and does not answer yet is not started twice."""

    def setUp(self):
        scratch = tempfile.TemporaryDirectory()
        self.addCleanup(scratch.cleanup)
        self.dir = scratch.name
        self.answering = False

    def daemon(self, argv, own_pidfiles=()):
        made = daemon.Daemon("x", argv, self.dir,
                             answers=lambda: self.answering,
                             own_pidfiles=own_pidfiles)
        self.addCleanup(made.stop, 5)
        return made

    def test_started_once_and_stopped(self):
        made = self.daemon(["sleep", "60"])
        self.answering = True
        # answers already: nothing started
        self.assertFalse(made.start(timeout=1))
        self.answering = False
        with self.assertRaises(base.DriverError) as caught:
            made.start(timeout=0.5)
        self.assertIn("does not answer after 0.5 s", str(caught.exception))
        first = made.started()
        self.assertIsNotNone(first)
        # still not answering: the one running is waited for, none started
        with self.assertRaises(base.DriverError) as caught:
            made.start(timeout=0.5)
        self.assertIn("x (pid %d) does not answer" % first.pid,
                      str(caught.exception))
        self.assertEqual(first, made.started())
        self.assertTrue(made.stop(5))
        self.assertIsNone(made.started())
        self.assertFalse(processes.running(first.pid))

    def test_one_its_own_pid_file_names_is_waited_for(self):
        other = _sleeper()  # "sleep": the daemon's own program
        self.addCleanup(other.wait, 10)
        self.addCleanup(other.kill)
        own = os.path.join(self.dir, "own.pid")
        with open(own, "w") as f:
            f.write(str(other.pid))
        made = self.daemon(["sleep", "60"], own_pidfiles=(own,))
        with self.assertRaises(base.DriverError) as caught:
            made.start(timeout=0.3)
        self.assertIn("pid %d" % other.pid, str(caught.exception))
        self.assertIsNone(made.started())

    def test_a_second_one_exiting_while_another_answers_is_no_start(self):
        # started, it exits at once (its pid file is another's), and one
        # started elsewhere answers meanwhile
        made = self.daemon(["true"])
        calls = []

        def answers():  # not before the start; then, once it has exited
            calls.append(1)
            if len(calls) > 1:
                time.sleep(0.5)
            return len(calls) > 1
        made.answers = answers
        with self.assertRaises(base.DriverError) as caught:
            made.start(timeout=10)
        self.assertIn("started by someone else", str(caught.exception))
        self.assertIsNone(made.started())

    def test_a_dump_is_asked_of_the_one_started_here_only(self):
        import sys
        script = ("import signal, time\n"
                  "signal.signal(signal.SIGUSR1, lambda *_: print("
                  "'stacks written to /x', flush=True))\n"
                  "print('up', flush=True)\n"
                  "time.sleep(60)\n")
        made = daemon.Daemon("x", [sys.executable, "-c", script], self.dir,
                             dump_signal=signal.SIGUSR1)
        self.addCleanup(made.stop, 5)
        self.assertIsNone(made.dump_stacks(wait=0))  # none started yet
        self.assertTrue(made.start(timeout=10))
        base.wait_until(lambda: os.path.getsize(made._files()[1]) > 0, 10,
                        0.05, "the daemon's first line")
        self.assertEqual("stacks written to /x\n",
                         made.dump_stacks(wait=0.5))
