"""Rally's abort watch replaced by one that ends with its workload.

Stand-ins: the ResultConsumer's runner and task (a real one needs a
task in Rally's DB); Rally's own class is checked to carry the watch,
and every Rally task of the functional tests runs with it.
"""

import threading
import time
import unittest

from rally import consts
from rally.task import engine

from rally_container_bench.task import abort_watch


class Consumer:
    def __init__(self, statuses):
        self.is_done = threading.Event()
        self.statuses = list(statuses)
        self.aborted, self.marked = [], []
        self.task = self
        self.runner = self

    def __getitem__(self, key):
        return "u1"

    def is_task_in_aborting_status(self, uuid, check_soft=True):
        status = self.statuses.pop(0) if self.statuses else "running"
        return status == "aborting" and not check_soft

    def abort(self):
        self.aborted.append(True)

    def update_status(self, status):
        self.marked.append(status)


class AbortWatchTestCase(unittest.TestCase):

    def test_rallys_consumer_carries_it(self):
        self.assertIs(abort_watch.watch_for_abort,
                      engine.ResultConsumer.wait_and_abort)

    def test_it_ends_as_soon_as_the_workload_is_done(self):
        consumer = Consumer([])
        watch = threading.Thread(target=abort_watch.watch_for_abort,
                                 args=(consumer,))
        watch.start()
        time.sleep(0.1)  # in its wait between two reads
        started = time.monotonic()
        consumer.is_done.set()
        watch.join(5)
        # Rally's own slept out its 2 s
        self.assertLess(time.monotonic() - started, 0.5)
        self.assertFalse(watch.is_alive())
        self.assertEqual([], consumer.aborted)

    def test_an_aborting_task_aborts_the_runner(self):
        consumer = Consumer(["running", "aborting"])
        abort_watch.POLL_S, poll = 0.01, abort_watch.POLL_S
        try:
            abort_watch.watch_for_abort(consumer)
        finally:
            abort_watch.POLL_S = poll
        self.assertEqual([True], consumer.aborted)
        self.assertEqual([consts.TaskStatus.ABORTED], consumer.marked)

    def test_a_rally_without_its_hooks_keeps_its_own(self):
        class Other:
            def wait_and_abort(self):
                pass
        self.assertFalse(abort_watch.install(Other))
        self.assertIsNot(abort_watch.watch_for_abort, Other.wait_and_abort)
        self.assertFalse(abort_watch.install(None))
