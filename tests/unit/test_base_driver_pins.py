"""A driver's pinned CPU is each iteration's own (core/base.Driver).

Rally runs several iterations of a worker process in threads that share
one driver (engines/registry.prepared_once): each pins its own instance.
"""

import threading
import unittest

from rally_container_bench.core import base


# a driver with nothing to drive: only its pinning is asked
Engine = type("Engine", (base.Driver,), {
    name: (lambda *args, **kwargs: None)
    for name in base.Driver.__abstractmethods__})


class PinnedCpuTestCase(unittest.TestCase):

    def test_each_thread_sees_the_cpu_it_set(self):
        engine = Engine(None, None)
        engine.pinned_cpu = 5
        # both threads set theirs before either reads: the race of a
        # wave whose iterations boot together
        both_set = threading.Barrier(2)
        seen = {}

        def iteration(cpu):
            engine.pinned_cpu = cpu
            both_set.wait(5)
            seen[cpu] = (engine.pinned_cpu, engine.cpuset)
        threads = [threading.Thread(target=iteration, args=(cpu,))
                   for cpu in (0, 1)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(10)
        self.assertEqual({0: (0, "0"), 1: (1, "1")}, seen)
        self.assertEqual(5, engine.pinned_cpu)

    def test_unpinned_by_default_and_a_tuning_wins(self):
        engine = Engine(None, None)
        self.assertIsNone(engine.pinned_cpu)
        self.assertIsNone(engine.cpuset)
        engine.pinned_cpu = 1

        class Tuning:
            cpuset = "0-1"
        engine.tuning = Tuning()
        self.assertEqual("0-1", engine.cpuset)
