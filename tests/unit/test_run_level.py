"""validity/run_level.py: a run far below its side's recent runs."""

import multiprocessing
import shutil
import tempfile
import unittest

from rally_container_bench.validity import run_level
from rally_container_bench.workloads import tests as tests_lib


def _append(path, key, values):
    levels = run_level.Levels(path)
    for value in values:
        levels.add(key, value)


class ShortfallTestCase(unittest.TestCase):

    def test_a_twin_at_57_percent_of_its_level_is_slow(self):
        recent = [1452, 1460, 1447, 1455, 1449]
        self.assertAlmostEqual(827 / 1452 - 1,
                               run_level.shortfall(827, recent))

    def test_drift_within_the_bound_and_a_faster_twin_are_not(self):
        recent = [1500] * 6
        self.assertIsNone(run_level.shortfall(1360, recent))  # -9.3 %
        self.assertIsNone(run_level.shortfall(2000, recent))
        self.assertIsNotNone(run_level.shortfall(1340, recent))

    def test_nothing_is_judged_before_its_history(self):
        self.assertIsNone(run_level.shortfall(100, [1500] * 4))
        self.assertIsNone(run_level.shortfall(0, [1500] * 9))

    def test_the_level_follows_the_recent_twins(self):
        # the host settled 20 % lower: after WINDOW twins that is its level
        recent = [1500] * 20 + [1200] * run_level.WINDOW
        self.assertIsNone(run_level.shortfall(1150, recent))
        # the median of a window is not moved by a few dips in it
        recent = [1500] * 16 + [800] * 4
        self.assertIsNotNone(run_level.shortfall(1300, recent))


class LevelsTestCase(unittest.TestCase):

    def setUp(self):
        self.path = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.path)

    def test_keys_tell_tests_steps_and_modes_apart(self):
        cpu = tests_lib.resolve("quick-cpu")
        memory = tests_lib.resolve({"preset": "quick-memory-read",
                                    "memory_total_size": "4G"})
        native = run_level.NATIVE
        keys = {run_level.key_of(cpu, 1, "sequential", native),
                run_level.key_of(cpu, 2, "sequential", native),
                run_level.key_of(cpu, 1, "at-once", native),
                run_level.key_of(memory, 1, "sequential", native),
                run_level.key_of(cpu, 1, "sequential", "docker")}
        self.assertEqual(5, len(keys))
        self.assertEqual(run_level.key_of(cpu, 1, "sequential", native),
                         run_level.key_of(tests_lib.resolve("quick-cpu"),
                                          1, "sequential", native))

    def test_judge_reads_the_history_then_keeps_the_value(self):
        levels = run_level.Levels(self.path)
        for value in (1500, 1510, 1490, 1505, 1495):
            self.assertIsNone(levels.judge("k", value))
        self.assertLess(levels.judge("k", 800), -0.4)
        self.assertEqual(800, levels.recent("k")[-1])
        self.assertEqual([], levels.recent("other"))

    def test_runner_processes_share_one_history(self):
        procs = [multiprocessing.Process(target=_append, args=(
            self.path, "k", [1000 + i] * 50)) for i in range(4)]
        for proc in procs:
            proc.start()
        for proc in procs:
            proc.join()
        recent = run_level.Levels(self.path).recent("k")
        self.assertEqual(run_level.WINDOW, len(recent))
        self.assertTrue(set(recent) <= {1000, 1001, 1002, 1003}, recent)
