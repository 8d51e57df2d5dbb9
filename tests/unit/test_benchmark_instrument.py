"""benchmarks/instrument_check.py: the figures it reads from its cells.

The documents are stand-ins written here in the shape the scenarios
write (report/test_instrument.py's); the benchmark's real run is in the
guide's report page ("The instrument check").
"""

import unittest

from benchmarks import instrument_check
from rally_container_bench.report import instrument
from tests.unit.report import test_instrument

CPU = test_instrument.METRIC


def _at_level(workload, level):
    """The workload with its host at level: both sides of each pair."""
    for iteration in workload["data"]:
        for table in iteration["output"]["complete"]:
            if table["title"] == "metric records":
                for row in table["data"]["rows"]:
                    row[1] *= level
    return workload


def _document(levels):
    """A/A cells on a host whose level moves between cells, one known."""
    workloads = [_at_level(test_instrument.workload(
        instrument.AA, test_instrument.noisy(1.0, 0.003, seed), seed),
        level) for seed, level in enumerate(levels, start=20)]
    workloads.append(test_instrument.workload(
        instrument.SLOWED, test_instrument.noisy(0.903, 0.003, 9), 9,
        [("known_withheld", 0.097)]))
    return {"tasks": [{"uuid": "t", "subtasks": [{"workloads": workloads}]}]}


class InstrumentCheckFiguresTestCase(unittest.TestCase):

    def figures(self, levels):
        return instrument_check.figures(
            _document(levels), {"default": 0.02}, 0.097, 3, 8)[CPU]

    def test_the_host_s_drift_fails_native_s_level_not_the_a_a(self):
        # the host 12 % slower in every other cell: twins and A/A alike
        found = self.figures([1.0, 0.88, 1.0, 0.88, 1.0])
        self.assertEqual((4, 0), (found["gate_pairs"], found["gate_failed"]))
        # native's level fails wherever the host fell (two of four)
        self.assertEqual(2, found["gate_level_failed"])
        self.assertGreater(found["level_moved_sd"], 0.1)
        self.assertEqual(0.05, found["gate_floor"])
        self.assertEqual((5, 0), (found["aa_runs"],
                                  found["false_decisions"]))
        self.assertEqual((1, 1), (found["known_runs"], found["detected"]))

    def test_a_steady_host_fails_neither(self):
        found = self.figures([1.0] * 5)
        self.assertEqual((0, 0), (found["gate_failed"],
                                  found["gate_level_failed"]))
        self.assertLess(found["level_moved_sd"], 0.02)

    def test_native_s_level_gated_with_the_drift_of_the_runs_before(self):
        # the host 12 % slower in every other cell, eight cells: the two
        # candidates with six earlier runs have that drift in them
        found = self.figures([1.0, 0.88] * 4)
        self.assertEqual(4, found["gate_level_failed"])
        self.assertEqual((2, 0), (found["drift_pairs"],
                                  found["drift_level_failed"]))
        self.assertGreater(found["drift_floor"], 0.12)

    def test_a_host_that_falls_once_after_quiet_runs_still_fails(self):
        # what no history foretells: the first fall of a steady host
        found = self.figures([1.0] * 7 + [0.88])
        self.assertEqual((2, 1), (found["drift_pairs"],
                                  found["drift_level_failed"]))
