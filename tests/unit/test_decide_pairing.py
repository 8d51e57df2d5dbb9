"""decide/pairing.py: the calibration's plan and the mode it chooses.

The reports here are stand-ins (their rows written by hand); the real
calibration runs in tests/functional/test_decide.py
(InstrumentCheckTestCase), the pairs at once in test_decide_at_once.py.
"""

import json
import os
import tempfile
import unittest
from unittest import mock

from rally_container_bench.decide import pairing
from rally_container_bench.engines.native import instance as native
from rally_container_bench.validity import cpu_pairs

CPU = "sysbench.cpu.events_per_s"
MEMORY = "sysbench.memory.read.mib_per_s"
TESTS = ["quick-cpu", "quick-memory-read", "quick-fileio-rndrd"]


def _report(cells):
    """cells: {(cell, metric): (pair SD, own mean)} at concurrency 1."""
    return {"cells": {native.AA: native.AA,
                      native.AA_AT_ONCE: native.AA_AT_ONCE},
            "platforms": [],
            "metrics": [{"name": CPU, "headline": True},
                        {"name": MEMORY, "headline": True}],
            "rows": [{"platform": cell, "concurrency": 1, "metric": metric,
                      "pair_sd": sd, "mean": mean}
                     for (cell, metric), (sd, mean) in cells.items()]}


def _two_cpus():
    return [0, 1], {0: {0}, 1: {1}}


class CalibrationPlanTestCase(unittest.TestCase):

    def test_the_two_modes_alternate_in_blocks_with_the_pairs_each(self):
        plan = pairing.calibration_plan([1], TESTS, 5)
        cells = [row[0] for row in plan]
        self.assertEqual([native.AA, native.AA_AT_ONCE] * 3, cells)
        for mode, cell in ((cpu_pairs.SEQUENTIAL, native.AA),
                           (cpu_pairs.AT_ONCE, native.AA_AT_ONCE)):
            rows = [row for row in plan if row[0] == cell]
            self.assertEqual(5, sum(row[3] for row in rows))
            self.assertEqual({mode}, {row[5] for row in rows})
        # fileio is no calibration's: it never pairs at once
        self.assertEqual(["quick-cpu", "quick-memory-read"], plan[0][2])

    def test_no_cpu_or_memory_test_no_calibration(self):
        self.assertEqual([], pairing.calibration_plan(
            [1], ["quick-fileio-rndrd"], 6))


class StepsTestCase(unittest.TestCase):

    def test_a_step_whose_pairs_lack_cpus_pairs_in_sequence(self):
        steps, notes = pairing.steps_at_once(
            {"platforms": ["native", "docker"]}, [1, 2], _two_cpus)
        self.assertEqual([1], steps)
        self.assertIn("pairing at 2 at once: in sequence", notes[0])

    def test_a_cloud_pairs_in_sequence_and_says_so(self):
        steps, notes = pairing.steps_at_once(
            {"platforms": ["native", "kvm"], "compute_hosts": {}}, [1],
            _two_cpus)
        self.assertEqual([], steps)
        self.assertIn("in sequence on a cloud", notes[0])

    def test_a_cloud_asked_at_once_leaves_it_to_each_compute_host(self):
        # this host's CPUs are no compute host's: every step asks, and
        # each instance's host decides (task/scenarios/cloud.py)
        steps, notes = pairing.steps_at_once(
            {"platforms": ["native", "kvm"], "compute_hosts": {}}, [1, 2, 8],
            _two_cpus, setting="at-once")
        self.assertEqual([1, 2, 8], steps)
        self.assertIn("each instance's compute host pairs at once where",
                      notes[0])


class MarginFloorTestCase(unittest.TestCase):

    def test_a_step_that_could_pair_at_once_may_go_to_the_paired_floor(self):
        steps, _ = pairing.steps_at_once(
            {"platforms": ["native", "docker"]}, [1, 2], _two_cpus)
        self.assertEqual(pairing.PAIRED_FLOOR,
                         pairing.margin_floor("cpu at 1", 0.02, steps))
        # at 2 on two CPUs every CPU runs a test: the kind's floor
        self.assertEqual(0.02, pairing.margin_floor("cpu at 2", 0.02, steps))
        self.assertEqual(0.02, pairing.margin_floor("cpu", 0.02, steps))

    def test_cells_at_once_take_the_paired_floor_on_any_host(self):
        self.assertEqual(pairing.PAIRED_FLOOR,
                         pairing.margin_floor("memory at once", 0.02, []))

    def test_a_cloud_s_steps_keep_the_kind_s_floor(self):
        steps, _ = pairing.steps_at_once(
            {"platforms": ["native", "kvm"], "compute_hosts": {}}, [1],
            _two_cpus)
        self.assertEqual(0.02, pairing.margin_floor("cpu at 1", 0.02, steps))

    def test_a_kind_floor_below_the_paired_one_stands(self):
        self.assertEqual(0.005,
                         pairing.margin_floor("cpu at 1", 0.005, [1]))


class ChooseTestCase(unittest.TestCase):

    def choose(self, cells):
        modes, facts, lines = pairing.choose(_report(cells), [1],
                                             ["quick-cpu"])
        return modes[1]["cpu"], facts["cpu"], lines

    def test_the_steadier_a_a_wins(self):
        mode, facts, lines = self.choose({
            (native.AA, CPU): (0.025, 1200.0),
            (native.AA_AT_ONCE, CPU): (0.004, 1195.0)})
        self.assertEqual(cpu_pairs.AT_ONCE, mode)
        self.assertAlmostEqual(-0.0042, facts["level_at_once"], places=4)
        self.assertIn("pairing of cpu: at once", lines[0])

    def test_no_steadier_at_once_stays_in_sequence(self):
        mode, _, lines = self.choose({
            (native.AA, CPU): (0.006, 1200.0),
            (native.AA_AT_ONCE, CPU): (0.012, 1200.0)})
        self.assertEqual(cpu_pairs.SEQUENTIAL, mode)
        self.assertIn("no steadier", lines[0])

    def test_steadier_by_chance_alone_stays_in_sequence(self):
        # 3.23 % at once against 3.38 % in sequence, 6 pairs each: at once
        # chosen on it, memory's cells at 1 paired at 22 % (2026-12-07)
        mode, facts, lines = self.choose({
            (native.AA, CPU): (0.0338, 1200.0),
            (native.AA_AT_ONCE, CPU): (0.0323, 1190.0)})
        self.assertEqual(cpu_pairs.SEQUENTIAL, mode)
        self.assertIn("not steadier beyond chance", lines[0])

    def test_the_f_test_needs_fewer_pairs_for_a_larger_gap(self):
        # F(5, 5) at 0.95 is 5.05: an SD ratio under 0.445 at 6 pairs
        self.assertTrue(pairing.steadier(0.0044, 0.01, 6))
        self.assertFalse(pairing.steadier(0.0046, 0.01, 6))
        self.assertTrue(pairing.steadier(0.0060, 0.01, 30))
        self.assertFalse(pairing.steadier(0.01, 0.004, 30))
        self.assertTrue(pairing.steadier(0.0, 0.004, 6))
        self.assertFalse(pairing.steadier(0.001, 0.01, 1))

    def test_a_level_that_drops_at_once_is_a_cost_not_paired_at_once(self):
        mode, facts, lines = self.choose({
            (native.AA, CPU): (0.025, 1200.0),
            (native.AA_AT_ONCE, CPU): (0.004, 1140.0)})
        self.assertEqual(cpu_pairs.SEQUENTIAL, mode)
        self.assertIn("slow each other", facts["why"])

    def test_an_unmeasured_a_a_stays_in_sequence(self):
        mode, _, _ = self.choose({(native.AA, CPU): (0.02, 1200.0)})
        self.assertEqual(cpu_pairs.SEQUENTIAL, mode)


class CalibrationFloorsTestCase(unittest.TestCase):
    """Round 1's A/A floors, and the calibration's where it has none.

    The calibration's report is a stand-in (its rows by hand, so
    comparison.build is replaced); the real one runs in README command 1
    (tests/functional/test_decide.py).
    """

    def setUp(self):
        self.out = tempfile.mkdtemp()
        self.addCleanup(lambda: [os.unlink(os.path.join(self.out, n))
                                 for n in os.listdir(self.out)]
                        and os.rmdir(self.out))

    def floors(self, round_1):
        rows = _report({(native.AA, CPU): (0.0224, 1200.0),
                        (native.AA_AT_ONCE, CPU): (0.0153, 1190.0)})
        for row in rows["rows"]:
            # as the report says it (report.results)
            row["pairing"] = cpu_pairs.SAID[
                cpu_pairs.AT_ONCE if row["platform"] == native.AA_AT_ONCE
                else cpu_pairs.SEQUENTIAL]
        with mock.patch.object(pairing.comparison, "build",
                               return_value=rows):
            return pairing.with_calibration(round_1, self.out, [1],
                                            ["quick-cpu"])

    def test_without_a_calibration_round_1_s_floors_stand(self):
        self.assertEqual({"cpu at once": [0.015]},
                         self.floors({"cpu at once": [0.015]}))

    def test_a_key_round_1_has_no_a_a_for_takes_the_calibration_s(self):
        with open(os.path.join(self.out, pairing.CALIBRATION_FILE),
                  "w") as f:
            json.dump({"tasks": []}, f)
        found = self.floors({"cpu at once": [0.015]})
        # cpu at 1 in sequence: round 1 paired cpu at once, its A/A too
        self.assertEqual([0.0224], found["cpu at 1"])
        self.assertEqual([0.0224], found["cpu"])
        # round 1's own A/A at once stands beside the calibration's
        self.assertEqual([0.015], found["cpu at once"])


class PairingLineTestCase(unittest.TestCase):

    def test_the_line_names_each_step_s_modes_and_the_a_a_behind_them(self):
        from rally_container_bench.cli import decide
        self.assertEqual(
            "pairs: at 1: cpu at once, memory in sequence; the rest in "
            "sequence (cpu A/A 0.40 % at once, 2.50 % in sequence)",
            decide.pairing_line({
                "modes": {"1": {"cpu": "at-once", "memory": "sequential"}},
                "calibration": {"cpu": {"aa_sd_at_once": 0.004,
                                        "aa_sd_in_sequence": 0.025},
                                "memory": {"aa_sd_at_once": None}}}))
        self.assertEqual("pairs: all in sequence", decide.pairing_line({}))

    def test_at_once_asked_where_no_cell_could_is_said(self):
        from rally_container_bench.cli import decide
        asked = {"modes": {"1": {"cpu": "at-once"}}}
        rows = [{"pairing": "in sequence"}, {"pairing": None}]
        self.assertEqual(
            "pairs: at 1: cpu at once; the rest in sequence; asked, but "
            "every cell ran in sequence (the placement table says why)",
            decide.pairing_line(asked, rows))
        rows.append({"pairing": "at once"})
        self.assertNotIn("asked, but", decide.pairing_line(asked, rows))
