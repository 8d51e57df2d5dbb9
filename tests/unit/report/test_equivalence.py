"""Equivalence verdicts and iterations needed, against independent oracles.

statsmodels implements TOST, Welch's interval and t-test power on its
own; the TOST power is checked by simulating the test (statsmodels'
ttost_ind) on normal data, not by the formula under test.
"""

import math
import unittest

import numpy as np
from statsmodels.stats import power as sm_power
from statsmodels.stats import weightstats

from rally_container_bench.report import equivalence


def lognormal(rng, n, ratio, sd):
    return np.exp(rng.normal(math.log(1000.0 * ratio), sd, n))


class TostAgainstStatsmodelsTestCase(unittest.TestCase):

    def test_p_value_and_interval_match_statsmodels(self):
        rng = np.random.default_rng(7)
        for ratio, sd, n1, n2 in ((1.0, 0.01, 4, 4), (1.015, 0.02, 6, 5),
                                  (0.97, 0.005, 8, 8), (1.03, 0.04, 3, 7)):
            x, y = lognormal(rng, n1, ratio, sd), lognormal(rng, n2, 1, sd)
            bound = math.log1p(0.02)
            d, se, df = equivalence._welch(x, y)
            oracle_p, _, _ = weightstats.ttost_ind(
                np.log(x), np.log(y), -bound, bound, usevar="unequal")
            self.assertAlmostEqual(oracle_p, equivalence.tost_p(
                d, se, df, bound), places=10)
            low, high = weightstats.CompareMeans(
                weightstats.DescrStatsW(np.log(x)),
                weightstats.DescrStatsW(np.log(y))).tconfint_diff(
                alpha=0.05, usevar="unequal")
            found = equivalence.effect(x, y, True)
            self.assertAlmostEqual(math.exp(low), found.ci_low, places=10)
            self.assertAlmostEqual(math.exp(high), found.ci_high, places=10)


class VerdictTestCase(unittest.TestCase):

    def test_a_tiny_significant_effect_is_equivalent_not_better(self):
        # The quickstart's docker-runc cpu: +0.6 % [+0.3, +0.8], p < 0.05.
        x = [1006.1, 1005.8, 1006.3, 1005.9]
        y = [1000.2, 999.8, 1000.1, 999.9]
        found = equivalence.effect(x, y, higher_is_better=True)
        self.assertLess(found.p_value, 0.05)
        self.assertEqual("equivalent", found.verdict)

    def test_a_large_established_effect_has_a_size(self):
        x = [900, 905, 898, 903]
        y = [1000, 1003, 998, 1001]
        found = equivalence.effect(x, y, higher_is_better=True)
        self.assertEqual("worse", found.verdict)
        self.assertAlmostEqual(0.9, found.ratio, places=2)
        self.assertLess(found.ci_high, 1 / 1.02)
        self.assertEqual("better", equivalence.effect(
            x, y, higher_is_better=False).verdict)

    def test_a_noisy_cell_is_inconclusive_and_says_how_many(self):
        rng = np.random.default_rng(3)
        x, y = lognormal(rng, 4, 1.0, 0.05), lognormal(rng, 4, 1.0, 0.05)
        found = equivalence.effect(x, y, True)
        self.assertEqual("inconclusive", found.verdict)
        self.assertGreater(found.needed, 4)

    def test_too_few_or_non_positive_values_get_no_verdict(self):
        self.assertIsNone(equivalence.effect([1, 2], [1, 2, 3], True).verdict)
        self.assertIn("<= 0", equivalence.effect([0, 1, 2], [1, 2, 3],
                                                 True).note)


class IterationsNeededTestCase(unittest.TestCase):

    def test_difference_power_matches_statsmodels(self):
        for d, sd, n in ((0.05, 0.04, 4), (0.03, 0.02, 6), (0.1, 0.2, 20)):
            oracle = sm_power.TTestIndPower().power(
                effect_size=d / sd, nobs1=n, alpha=0.05, ratio=1,
                alternative="two-sided")
            self.assertAlmostEqual(oracle, equivalence.difference_power(
                n, sd, d), places=6)

    def test_far_beyond_the_margin_agrees_with_statsmodels(self):
        # 10 % worse against a 2 % margin: significance is what is missing.
        d, sd = math.log(0.90), 0.08
        oracle = sm_power.TTestIndPower().solve_power(
            effect_size=abs(d) / sd, alpha=0.05, power=0.8, ratio=1)
        self.assertEqual(math.ceil(oracle), equivalence.iterations_needed(
            sd, d, math.log1p(0.02)))

    def test_just_beyond_the_margin_the_estimate_must_stay_there(self):
        # 2.5 % worse against 2 %: significant long before the estimate
        # is reliably beyond the margin.
        d, sd, bound = math.log(0.975), 0.02, math.log1p(0.02)
        oracle = sm_power.TTestIndPower().solve_power(
            effect_size=abs(d) / sd, alpha=0.05, power=0.8, ratio=1)
        self.assertGreater(equivalence.iterations_needed(sd, d, bound),
                           math.ceil(oracle) + 3)

    def test_tost_at_no_difference_is_near_the_textbook_formula(self):
        # Normal approximation (e.g. Julious 2004): n = 2 (z_{1-a} +
        # z_{1-b/2})^2 sd^2 / bound^2 per group, a = 0.025 per side here;
        # the t version needs a little more.
        sd, bound = 0.02, math.log1p(0.02)
        z = 2 * (1.9599640 + 1.2815516) ** 2 * sd ** 2 / bound ** 2
        found = equivalence.iterations_needed(sd, 0.0, bound)
        self.assertGreaterEqual(found, math.ceil(z))
        self.assertLessEqual(found, math.ceil(z) + 2)

    def test_tost_iterations_reach_the_power_in_simulation(self):
        rng = np.random.default_rng(11)
        sd, d, bound = 0.015, 0.005, math.log1p(0.02)
        n = equivalence.iterations_needed(sd, d, bound)

        def simulated_power(size, trials=800):
            passed = 0
            for _ in range(trials):
                x = rng.normal(d, sd, size)
                y = rng.normal(0.0, sd, size)
                p, _, _ = weightstats.ttost_ind(x, y, -bound, bound,
                                                usevar="pooled")
                passed += p < 0.025
            return passed / trials
        self.assertGreater(simulated_power(n), 0.8 - 0.045)
        self.assertLess(simulated_power(max(2, n // 2)), 0.8)

    def test_on_the_margin_no_number_settles_it(self):
        bound = math.log1p(0.02)
        self.assertIsNone(equivalence.iterations_needed(0.01, bound, bound))
