"""report.stats on data whose answers are known independently of scipy."""

import itertools
import math
import unittest

import numpy as np

from rally_container_bench.report import stats

# Student's t, 97.5 % quantile, 4 degrees of freedom (any t table).
T_975_4 = 2.7764451051977987


class SummarizeTestCase(unittest.TestCase):

    def test_mean_sd_median_and_t_interval(self):
        summary = stats.summarize([1, 2, 3, 4, 5])
        self.assertEqual(5, summary.n)
        self.assertAlmostEqual(3.0, summary.mean)
        self.assertAlmostEqual(math.sqrt(2.5), summary.sd)
        self.assertAlmostEqual(3.0, summary.median)
        half = T_975_4 * math.sqrt(2.5) / math.sqrt(5)
        self.assertAlmostEqual(3 - half, summary.ci_low, places=9)
        self.assertAlmostEqual(3 + half, summary.ci_high, places=9)
        self.assertIsNone(summary.note)

    def test_below_three_values_no_interval_and_the_reason(self):
        summary = stats.summarize([10.0, 12.0])
        self.assertAlmostEqual(11.0, summary.mean)
        self.assertAlmostEqual(math.sqrt(2), summary.sd)
        self.assertIsNone(summary.ci_low)
        self.assertIsNone(summary.ci_high)
        self.assertIn("no CI", summary.note)

    def test_one_value_has_no_sd(self):
        summary = stats.summarize([7.0])
        self.assertEqual((1, 7.0, None), summary[:3])
        self.assertIn("n = 1", summary.note)

    def test_no_values(self):
        self.assertEqual(0, stats.summarize([]).n)
        self.assertIsNone(stats.summarize([]).mean)

    def test_identical_values_have_a_zero_width_interval(self):
        summary = stats.summarize([4.0, 4.0, 4.0])
        self.assertEqual((4.0, 4.0), (summary.ci_low, summary.ci_high))


def cliffs_delta_by_counting(x, y):
    pairs = list(itertools.product(x, y))
    greater = sum(a > b for a, b in pairs)
    less = sum(a < b for a, b in pairs)
    return (greater - less) / len(pairs)


class CompareTestCase(unittest.TestCase):

    def test_fully_separated_samples(self):
        # Exact two-sided Mann-Whitney p for 4 vs 4 fully separated:
        # 2 of C(8, 4) = 70 orderings are as extreme.
        result = stats.compare([1, 2, 3, 4], [5, 6, 7, 8],
                               higher_is_better=True)
        self.assertAlmostEqual(2.5 / 6.5, result.ratio)
        self.assertAlmostEqual(2 / 70, result.p_value)
        self.assertAlmostEqual(-1.0, result.cliffs_delta)
        self.assertEqual("worse", result.verdict)
        self.assertLessEqual(result.ratio_ci_low, result.ratio)
        self.assertGreaterEqual(result.ratio_ci_high, result.ratio)

    def test_lower_is_better_turns_the_verdict(self):
        result = stats.compare([1, 2, 3, 4], [5, 6, 7, 8],
                               higher_is_better=False)
        self.assertEqual("better", result.verdict)

    def test_cliffs_delta_matches_counting_pairs(self):
        for x, y in (([2, 4, 6, 8], [1, 3, 5, 7]),
                     ([1, 3, 5], [2, 4, 4]),
                     ([3, 3, 3, 9], [3, 1, 2])):
            with self.subTest(x=x, y=y):
                self.assertAlmostEqual(
                    cliffs_delta_by_counting(x, y),
                    stats.compare(x, y, True).cliffs_delta)

    def test_overlapping_samples_are_not_significant(self):
        result = stats.compare([10, 12, 11, 13], [11, 12, 10, 13], True)
        self.assertEqual("ns", result.verdict)
        self.assertGreater(result.p_value, 0.5)
        self.assertLess(result.ratio_ci_low, 1.0)
        self.assertGreater(result.ratio_ci_high, 1.0)

    def test_ratio_interval_is_reproducible(self):
        first = stats.compare([3.1, 2.9, 3.3, 3.0], [2.0, 2.2, 1.9, 2.1], True)
        second = stats.compare([3.1, 2.9, 3.3, 3.0], [2.0, 2.2, 1.9, 2.1],
                               True)
        self.assertEqual(first, second)

    def test_ratio_interval_agrees_with_the_delta_method(self):
        rng = np.random.default_rng(7)
        x = rng.normal(90.0, 5.0, 400)
        y = rng.normal(100.0, 5.0, 400)
        result = stats.compare(x, y, True)
        # Delta method for mean(x)/mean(y), an independent approximation.
        r = x.mean() / y.mean()
        se = r * math.sqrt(x.var(ddof=1) / len(x) / x.mean() ** 2
                           + y.var(ddof=1) / len(y) / y.mean() ** 2)
        self.assertAlmostEqual(r - 1.96 * se, result.ratio_ci_low, delta=se)
        self.assertAlmostEqual(r + 1.96 * se, result.ratio_ci_high, delta=se)

    def test_small_samples_get_a_ratio_but_no_interval_or_test(self):
        result = stats.compare([1.0, 2.0], [2.0, 4.0, 3.0], True)
        self.assertAlmostEqual(0.5, result.ratio)
        self.assertIsNone(result.ratio_ci_low)
        self.assertIsNone(result.p_value)
        self.assertIsNone(result.verdict)
        self.assertIn("below n = 3", result.note)

    def test_zero_baseline_has_no_ratio(self):
        result = stats.compare([1.0, 2.0, 3.0], [0.0, 0.0, 0.0], True)
        self.assertIsNone(result.ratio)
        self.assertIn("native mean is 0", result.note)

    def test_missing_baseline(self):
        self.assertIn("no native baseline",
                      stats.compare([1.0, 2.0, 3.0], [], True).note)
