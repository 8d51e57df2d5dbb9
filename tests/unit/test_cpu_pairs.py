"""validity.cpu_pairs: the two CPUs of a pair at once, and its modes."""

import os
import unittest

from rally_container_bench.validity import cpu_pairs
from rally_container_bench.workloads import tests as tests_lib

# Two cores of two threads each: CPUs 0 and 2 share a core, 1 and 3.
SMT = {0: {0, 2}, 1: {1, 3}, 2: {0, 2}, 3: {1, 3}}


class TopologyTestCase(unittest.TestCase):

    def test_a_kernel_cpu_list_is_read(self):
        self.assertEqual({0, 1, 2, 3, 8, 10, 11},
                         cpu_pairs.parse_cpu_list("0-3,8,10-11\n"))

    def test_smt_siblings_are_never_the_two_sides_of_a_pair(self):
        self.assertEqual([0, 1], cpu_pairs.one_per_core([0, 1, 2, 3], SMT))
        pair, why = cpu_pairs.pair_of(0, 1, [0, 1, 2, 3], SMT)
        self.assertEqual(((0, 1), None), (pair, why))

    def test_each_pair_of_a_wave_gets_two_cpus_of_its_own(self):
        cpus = list(range(4))
        alone = {c: {c} for c in cpus}
        self.assertEqual((0, 1), cpu_pairs.pair_of(0, 2, cpus, alone)[0])
        self.assertEqual((2, 3), cpu_pairs.pair_of(1, 2, cpus, alone)[0])

    def test_too_few_cores_pair_in_sequence_and_say_why(self):
        pair, why = cpu_pairs.pair_of(0, 2, [0, 1], {0: {0}, 1: {1}})
        self.assertIsNone(pair)
        self.assertIn("need 4 CPUs on separate cores", why)
        # four threads on two cores hold one pair only
        self.assertIsNone(cpu_pairs.pair_of(0, 2, [0, 1, 2, 3], SMT)[0])

    def test_the_sides_alternate_wave_by_wave_from_the_seed(self):
        got = [cpu_pairs.sides((0, 1), 7, wave) for wave in range(4)]
        self.assertEqual(got[0], got[2])
        self.assertEqual(got[0][::-1], got[1])
        self.assertEqual(got, [cpu_pairs.sides((0, 1), 7, wave)
                               for wave in range(4)])


class ModeTestCase(unittest.TestCase):

    def test_only_cpu_and_memory_tests_pair_at_once(self):
        kind = cpu_pairs.kind_of
        self.assertEqual("cpu", kind(tests_lib.resolve("quick-cpu")))
        self.assertEqual(cpu_pairs.AT_ONCE, cpu_pairs.mode_of(
            cpu_pairs.AT_ONCE, "memory"))
        self.assertEqual(cpu_pairs.SEQUENTIAL, cpu_pairs.mode_of(
            cpu_pairs.AT_ONCE, kind(tests_lib.resolve(
                "quick-fileio-rndrd"))))
        self.assertEqual(cpu_pairs.SEQUENTIAL, cpu_pairs.mode_of(
            {"cpu": cpu_pairs.AT_ONCE}, "memory"))
        self.assertEqual(cpu_pairs.SEQUENTIAL, cpu_pairs.mode_of(None, "cpu"))

    def test_a_wrong_pairing_is_refused_with_what_is_allowed(self):
        self.assertIsNone(cpu_pairs.check_pairing({"cpu": "at-once"}))
        self.assertIn("not a mode", cpu_pairs.check_pairing("together"))
        self.assertIn("cannot pair at once",
                      cpu_pairs.check_pairing({"fileio": "at-once"}))

    def test_every_kind_in_sequence_asks_for_no_pair_of_cpus(self):
        # decide's calibration where at once is no steadier: its pairs
        # stay on one CPU (on two, fileio's A/A at 1 read a pair SD of 30 %)
        for none in (None, cpu_pairs.SEQUENTIAL, {},
                     {"cpu": cpu_pairs.SEQUENTIAL,
                      "memory": cpu_pairs.SEQUENTIAL}):
            self.assertIsNone(cpu_pairs.asked(none), none)
        mixed = {"cpu": cpu_pairs.AT_ONCE, "memory": cpu_pairs.SEQUENTIAL}
        self.assertEqual(mixed, cpu_pairs.asked(mixed))
        self.assertEqual(cpu_pairs.AT_ONCE, cpu_pairs.asked(cpu_pairs.AT_ONCE))

    def test_the_skew_bound_is_a_hundredth_of_the_run(self):
        self.assertAlmostEqual(0.008, cpu_pairs.skew_bound(0.8))


class VmPairsInSequenceTestCase(unittest.TestCase):

    def test_a_vm_asked_at_once_pairs_in_sequence_and_says_why(self):
        from rally_container_bench.task.scenarios import sysbench_utils

        class Scenario(sysbench_utils.StartBarrierMixin):
            context = {"iteration": 1}
        scenario = Scenario()
        cpu, twin_cpu, placed = scenario._pair_placement(
            {"cpu": cpu_pairs.AT_ONCE}, vm=True)
        self.assertEqual(cpu, twin_cpu)
        self.assertIn(cpu, os.sched_getaffinity(0))
        self.assertEqual(cpu_pairs.VM_IN_SEQUENCE,
                         placed.in_sequence_why)
        self.assertIn("in sequence, at once asked: a VM",
                      cpu_pairs.pairing_said(placed))

    def test_a_step_with_every_kind_in_sequence_pairs_on_one_cpu(self):
        from rally_container_bench.task.scenarios import sysbench_utils

        class Scenario(sysbench_utils.StartBarrierMixin):
            context = {"iteration": 1}
        cpu, twin_cpu, placed = Scenario()._pair_placement(
            {"cpu": cpu_pairs.SEQUENTIAL, "memory": cpu_pairs.SEQUENTIAL})
        self.assertEqual(cpu, twin_cpu)
        self.assertEqual("in sequence", cpu_pairs.pairing_said(placed))
