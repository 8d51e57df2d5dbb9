"""report/drift.py: the host's drift between runs, read from earlier runs."""

import math
import unittest

import numpy as np
from scipy import stats

from rally_container_bench.report import drift

KEY = ("sysbench.cpu.events_per_s", "native", 1)


def runs_at(levels, kind=drift.LEVEL, key=KEY):
    """run_means of runs whose cell read these levels."""
    return [{(kind, key): math.log(level)} for level in levels]


class FloorsTestCase(unittest.TestCase):

    def test_too_few_runs_give_no_floor(self):
        self.assertEqual({}, drift.floors(runs_at([1.0, 1.05, 0.95, 1.02,
                                                   0.98])))

    def test_the_floor_is_t_times_the_sd_of_consecutive_differences(self):
        levels = [1.0, 1.06, 0.97, 1.04, 0.95, 1.01, 0.99]
        found = drift.floors(runs_at(levels))[(drift.LEVEL, KEY)]
        differences = np.diff(np.log(levels))
        sd = np.std(differences, ddof=1)
        self.assertAlmostEqual(sd, found.sd)
        self.assertEqual(7, found.runs)
        self.assertAlmostEqual(
            math.expm1(stats.t.ppf(0.95, 5) * sd), found.floor)
        self.assertGreater(found.floor, 0.08)

    def test_a_steady_host_keeps_a_low_floor(self):
        found = drift.floors(runs_at([1.0, 1.002, 0.999, 1.001, 1.0,
                                      0.998]))[(drift.LEVEL, KEY)]
        self.assertLess(found.floor, 0.01)

    def test_a_regression_that_stayed_is_one_difference_not_a_spread(self):
        # nine quiet runs, then three 15 % slower: the floor the fourth
        # slow run is judged by still lies below the step
        levels = [1.0, 1.01, 0.99, 1.0, 1.01, 0.99, 1.0, 1.01, 0.99,
                  0.85, 0.86, 0.85]
        found = drift.floors(runs_at(levels))[(drift.LEVEL, KEY)]
        self.assertLess(found.floor, 0.15)
        # the runs' own spread would have hidden it
        spread = np.std(np.log(levels), ddof=1) * math.sqrt(2)
        self.assertGreater(math.expm1(stats.t.ppf(0.95, 11) * spread),
                           0.15)

    def test_kinds_and_cells_are_read_apart(self):
        runs = [{**level, **paired} for level, paired in zip(
            runs_at([1.0, 1.1, 0.9, 1.1, 0.9, 1.0]),
            runs_at([1.0, 1.001, 1.0, 0.999, 1.0, 1.0], drift.PAIRED))]
        found = drift.floors(runs)
        self.assertGreater(found[(drift.LEVEL, KEY)].floor, 0.1)
        self.assertLess(found[(drift.PAIRED, KEY)].floor, 0.01)

    def test_run_means_leave_out_what_has_no_log(self):
        means = drift.run_means({KEY: [2.0, 8.0]}, {KEY: [1.0, 0.0]})
        self.assertEqual({(drift.LEVEL, KEY): math.log(4.0)}, means)
