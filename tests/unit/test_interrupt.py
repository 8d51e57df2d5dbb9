"""The Ctrl-C context: a real SIGINT reaches the watcher, the abort retries.

STAND-IN: Rally's Task object is replaced where a busy or failing DB has
to be simulated; the whole path with Rally's real DB runs in
tests/functional/test_local_faults.py and test_rally_native.py.
"""

import signal
import threading
import unittest
from unittest import mock

from rally import consts

from rally_container_bench.task.contexts import interrupt

TASK = "0f0f0f0f-1111-2222-3333-444444444444"


class AbortTaskTestCase(unittest.TestCase):

    def patch_task(self, statuses, abort_errors):
        task = mock.patch.object(interrupt.objects, "Task").start()
        self.addCleanup(mock.patch.stopall)
        task.get_status.side_effect = statuses
        task.get.return_value.abort.side_effect = abort_errors
        return task

    def test_a_busy_db_is_retried_until_the_abort_is_stored(self):
        task = self.patch_task(
            [consts.TaskStatus.RUNNING] * 3,
            [RuntimeError("database is locked"),
             RuntimeError("database is locked"), None])
        with self.assertLogs(interrupt.LOG.logger, "WARNING") as logs:
            self.assertTrue(interrupt.abort_task(TASK, delay=0))
        self.assertEqual(3, task.get.return_value.abort.call_count)
        task.get.return_value.abort.assert_called_with(soft=False)
        self.assertEqual(2, len(logs.records))
        self.assertIn("attempt 1 of 20", logs.output[0])

    def test_a_task_that_ended_meanwhile_is_left_alone(self):
        for status in (consts.TaskStatus.FINISHED,
                       consts.TaskStatus.ABORTING):
            with self.subTest(status=status):
                task = self.patch_task([status], [])
                self.assertTrue(interrupt.abort_task(TASK, delay=0))
                task.get.return_value.abort.assert_not_called()
                mock.patch.stopall()

    def test_gives_up_after_the_attempts_and_says_so(self):
        task = self.patch_task([consts.TaskStatus.RUNNING] * 3,
                               [RuntimeError("no DB")] * 3)
        with self.assertLogs(interrupt.LOG.logger, "WARNING"):
            self.assertFalse(interrupt.abort_task(TASK, attempts=3,
                                                  delay=0))
        self.assertEqual(3, task.get.return_value.abort.call_count)


class WatcherTestCase(unittest.TestCase):

    def setUp(self):
        self.assertIs(threading.current_thread(), threading.main_thread())
        for signum in interrupt.SIGNALS:
            self.addCleanup(signal.signal, signum, signal.getsignal(signum))
        self.aborted = threading.Event()
        patcher = mock.patch.object(
            interrupt, "abort_task",
            side_effect=lambda task_id: self.aborted.set() or True)
        self.abort_task = patcher.start()
        self.addCleanup(patcher.stop)

    def send(self, signum):
        """A real signal to this process; what the watcher wrote."""
        watcher = interrupt._Watcher(TASK)
        signal.signal(signum, watcher.on_signal)
        with mock.patch.object(interrupt.sys, "stderr") as stderr:
            signal.raise_signal(signum)
            self.assertTrue(self.aborted.wait(10))
            watcher.thread.join(10)
        self.abort_task.assert_called_once_with(TASK)
        return stderr.write.call_args_list[0][0][0]

    def test_a_real_sigint_aborts_the_task_from_the_watcher_thread(self):
        self.assertIn("Ctrl-C: aborting task %s" % TASK,
                      self.send(signal.SIGINT))
        # The second Ctrl-C is Python's own: KeyboardInterrupt.
        self.assertIs(signal.default_int_handler,
                      signal.getsignal(signal.SIGINT))

    def test_sigterm_aborts_too_and_a_second_one_ends_rally(self):
        self.assertIn("SIGTERM again to stop at once",
                      self.send(signal.SIGTERM))
        self.assertIs(signal.SIG_DFL, signal.getsignal(signal.SIGTERM))

    def test_closing_without_a_signal_aborts_nothing(self):
        watcher = interrupt._Watcher(TASK)
        watcher.close()
        watcher.thread.join(10)
        self.assertFalse(watcher.thread.is_alive())
        self.abort_task.assert_not_called()

    def test_a_forked_worker_leaves_the_abort_to_the_main_process(self):
        watcher = interrupt._Watcher(TASK)
        self.addCleanup(watcher.close)
        with mock.patch.object(interrupt.os, "getpid",
                               return_value=watcher.main_pid + 1):
            watcher.on_signal(signal.SIGINT, None)
        self.assertFalse(watcher.interrupted.is_set())
