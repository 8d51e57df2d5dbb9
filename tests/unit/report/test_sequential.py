"""The sequential procedure's error rates, by simulation.

A cell is looked at after every round and stops at its first verdict.
Simulated with normal within-pair log ratios at the sizes rcbench decide
uses (3 pairs per round, 6 rounds) and larger ones: a false "worse" or
"better" (no true difference) and a false "equivalent" (a true
difference at or beyond the margin) each stay at or below alpha; the
naive procedure (every look at alpha) does not.
"""

import math
import unittest

import numpy as np

from rally_container_bench.report import equivalence
from rally_container_bench.report import sequential

MARGIN = 0.02
BOUND = math.log1p(MARGIN)
REPEATS = 4000
# The simulation's own sampling error: 3 binomial SDs at alpha.
SLACK = 3 * math.sqrt(equivalence.ALPHA * (1 - equivalence.ALPHA) / REPEATS)
DESIGNS = ((3, 6), (4, 10), (2, 20))  # (pairs per look, looks)


class ErrorRatesTestCase(unittest.TestCase):

    def rates(self, effect, sd, pairs, looks, **kwargs):
        return sequential.simulate(effect, sd, pairs, looks, MARGIN,
                                   repeats=REPEATS, **kwargs)

    def test_no_false_worse_or_better_beyond_alpha(self):
        for pairs, looks in DESIGNS:
            for sd in (0.005, 0.02, 0.05):
                with self.subTest(pairs=pairs, looks=looks, sd=sd):
                    rates = self.rates(0.0, sd, pairs, looks)
                    self.assertLessEqual(rates["worse_or_better"],
                                         equivalence.ALPHA)

    def test_no_false_equivalent_at_or_beyond_the_margin(self):
        for pairs, looks in DESIGNS:
            for effect in (BOUND, -BOUND, 1.5 * BOUND):
                for sd in (0.005, 0.02):
                    with self.subTest(pairs=pairs, looks=looks,
                                      effect=effect, sd=sd):
                        rates = self.rates(effect, sd, pairs, looks)
                        self.assertLessEqual(rates["equivalent"],
                                             equivalence.ALPHA + SLACK)

    def test_no_verdict_in_the_wrong_direction(self):
        for effect in (0.5 * BOUND, 2 * BOUND, -2 * BOUND):
            rates = self.rates(effect, 0.02, 3, 6)
            self.assertLessEqual(rates["opposite"], equivalence.ALPHA)

    def test_looking_every_round_at_alpha_would_break_the_rate(self):
        # Why alpha is spent: at sd 5 % with 6 looks (the quickstart's
        # design), the naive procedure calls a platform equal to native
        # worse or better ~15 % of the time.
        naive = self.rates(0.0, 0.05, 3, 6, spend=False)
        spent = self.rates(0.0, 0.05, 3, 6)
        self.assertGreater(naive["worse_or_better"], equivalence.ALPHA)
        self.assertLessEqual(spent["worse_or_better"], equivalence.ALPHA)

    def test_clear_cases_are_decided(self):
        # the procedure still answers: a -70 % VM and an equal container
        self.assertGreater(self.rates(math.log(0.3), 0.03, 3, 6)[
            "worse_or_better"], 0.99)
        self.assertGreater(self.rates(0.0, 0.005, 3, 6)["equivalent"], 0.95)

    def test_decisions_match_the_report_verdicts(self):
        # the vectorised rule of the simulation is the report's rule
        import numpy as np
        for d, se in ((0.001, 0.004), (0.05, 0.01), (0.015, 0.01)):
            effect = equivalence._verdict(d, se, 5.0, True, MARGIN, 0.01,
                                          lambda bound: None)
            equivalent, beyond = sequential.decisions(
                np.array([d]), np.array([se]), 5.0, BOUND, 0.01)
            expected = ("equivalent" if equivalent[0] else
                        "better" if beyond[0] else "inconclusive")
            self.assertEqual(expected, effect.verdict, (d, se))


class DipsLeftOutTestCase(unittest.TestCase):
    """A verdict leaves one dip of the host out: what it costs, what it buys.

    Dips: each pair, with chance 5 %, off by +-8 pair SDs (the quickstart
    of 2026-12-07 02:25 had one wave at -22 % among pairs within +-2.5 %).
    """

    DESIGNS = ((6, 3), (6, 1), (3, 6))  # the quickstart's, and others

    def rates(self, effect, pairs, looks, **kwargs):
        return sequential.simulate(effect, 0.015, pairs, looks, 0.025,
                                   repeats=REPEATS, **kwargs)

    def test_error_rates_hold_with_dips_and_without(self):
        bound = math.log1p(0.025)
        for pairs, looks in self.DESIGNS:
            for dips in (None, (0.05, 8.0), (0.1, 5.0)):
                with self.subTest(pairs=pairs, looks=looks, dips=dips):
                    same = self.rates(0.0, pairs, looks, dips=dips)
                    self.assertLessEqual(same["worse_or_better"],
                                         equivalence.ALPHA)
                    at_margin = self.rates(bound, pairs, looks, dips=dips)
                    # TOST at alpha / 2 a side: at the margin, ~alpha / 2
                    self.assertLessEqual(at_margin["equivalent"],
                                         equivalence.ALPHA / 2 + SLACK)

    def test_on_normal_noise_the_rule_changes_little(self):
        for pairs, looks in self.DESIGNS:
            for effect in (0.0, math.log1p(0.025)):
                with self.subTest(pairs=pairs, looks=looks, effect=effect):
                    counted = self.rates(effect, pairs, looks, dip_p=None)
                    left = self.rates(effect, pairs, looks)
                    self.assertAlmostEqual(counted["equivalent"],
                                           left["equivalent"], delta=0.005)

    def test_with_dips_more_equal_cells_are_decided(self):
        for pairs, looks in self.DESIGNS:
            with self.subTest(pairs=pairs, looks=looks):
                counted = self.rates(0.0, pairs, looks, dips=(0.05, 8.0),
                                     dip_p=None)
                left = self.rates(0.0, pairs, looks, dips=(0.05, 8.0))
                self.assertGreater(left["equivalent"],
                                   counted["equivalent"] + 0.02)

    def test_the_simulation_leaves_out_what_the_report_leaves_out(self):
        rng = np.random.default_rng(11)
        rows = rng.normal(0, 0.01, (40, 8))
        rows[::4, 3] -= 0.2  # a dip in every fourth row
        d, se, df = sequential._estimates(rows.copy(),
                                          equivalence.VERDICT_DIP_P)
        for row, mean, error, freedom in zip(rows, d, se, df):
            found = equivalence.paired_effect(np.exp(row), np.ones(8), True)
            self.assertAlmostEqual(math.log(found.ratio), mean, places=9)
            self.assertEqual(found.dip is not None, freedom == 6)
        self.assertEqual(10, int((df == 6).sum()))

    def test_the_verdict_s_rule_is_stricter_than_the_margins(self):
        self.assertLess(equivalence.VERDICT_DIP_P, sequential.DIP_P)
        # a dip the margins leave out, at p 0.007, counts in a verdict
        ratios = np.log1p(np.array(
            [-2.71, 0.82, -1.33, -0.87, -5.51, 0.38, -2.77, -0.19, 22.49,
             -0.2, -0.22, 10.92]) / 100)
        self.assertEqual(8, sequential.dip_of(ratios))
        self.assertIsNone(equivalence.dip_of(ratios,
                                             equivalence.VERDICT_DIP_P))


class MarginFromNoiseTestCase(unittest.TestCase):

    def test_a_quiet_host_keeps_the_floor(self):
        self.assertEqual(0.02, sequential.margin_from_noise(0.004, 18, 6))

    def test_a_noisy_kind_gets_a_margin_its_pairs_can_settle(self):
        margin = sequential.margin_from_noise(0.10, 18, 6)
        self.assertGreater(margin, 0.10)
        self.assertAlmostEqual(0, (margin * 1000) % 5, places=6)
        # and a cell with no difference is then decided most of the time
        rates = sequential.simulate(0.0, 0.10, 3, 6, margin, repeats=2000)
        self.assertGreater(rates["equivalent"], 0.8)

    def test_no_spread_known_no_change(self):
        self.assertEqual(0.03, sequential.margin_from_noise(None, 18, 6,
                                                            floor=0.03))


class RobustPairSdTestCase(unittest.TestCase):
    """The spread an auto margin is chosen from: one dip cannot carry it."""

    # fresh run 12 (2026-12-06): docker cpu at 1, one pair of the host's
    # dip (1584 against 1621 events/s) among pairs within 0.3 %
    VALUES = [1621, 1600, 1610, 1605, 1612, 1584]
    TWINS = [1620, 1602, 1607, 1608, 1610, 1621]

    def test_one_dip_of_the_host_does_not_carry_the_spread(self):
        plain = sequential.pair_sd(self.VALUES, self.TWINS)
        robust = sequential.robust_pair_sd(self.VALUES, self.TWINS)
        self.assertGreater(plain, 0.009)
        self.assertLess(robust, 0.003)
        # what the dip made of the step's margin, and what it is without
        self.assertEqual(0.015, sequential.margin_from_noise(
            plain, 18, 3, floor=0.01))
        self.assertEqual(0.01, sequential.margin_from_noise(
            robust, 18, 3, floor=0.01))

    def test_a_wave_at_two_thirds_speed_is_a_dip(self):
        # fresh run 15: docker cpu at 2, both instances at -30 % in wave 5
        ratios = np.exp([-0.0, -0.006, -0.004, 0.016, -0.352, -0.009])
        self.assertEqual(4, sequential.dip_of(np.log(ratios)))
        self.assertLess(sequential.robust_pair_sd(ratios, np.ones(6)),
                        0.012)

    def test_a_spread_heavy_but_even_leaves_no_pair_out(self):
        # fresh run 13: podman-crun cpu at 1, +3.3 % among -1.1..+0.3 %
        ratios = np.exp([-0.011, -0.005, 0.033, 0.0, 0.003, -0.005])
        self.assertIsNone(sequential.dip_of(np.log(ratios)))
        self.assertEqual(sequential.pair_sd(ratios, np.ones(6)),
                         sequential.robust_pair_sd(ratios, np.ones(6)))

    def test_normal_noise_leaves_a_pair_out_in_about_1_cell_in_100(self):
        rng = np.random.default_rng(7)
        for n in (5, 6, 12):
            plain, robust, dips = [], [], 0
            for _ in range(3000):
                ratios = np.exp(rng.normal(0, 0.01, n))
                plain.append(sequential.pair_sd(ratios, np.ones(n)))
                robust.append(sequential.robust_pair_sd(ratios, np.ones(n)))
                dips += sequential.dip_of(np.log(ratios)) is not None
            self.assertLess(dips / 3000, 0.02)
            self.assertAlmostEqual(1, np.mean(robust) / np.mean(plain),
                                   delta=0.01)

    def test_too_few_pairs_to_leave_one_out_read_the_plain_sd(self):
        values, twins = self.VALUES[2:], self.TWINS[2:]
        self.assertEqual(sequential.pair_sd(values, twins),
                         sequential.robust_pair_sd(values, twins))
        self.assertIsNone(sequential.robust_pair_sd([10], [10]))

    def test_moments_count_once_as_pair_sd_counts_them(self):
        # two waves of three at once: each wave's mean ratio is one moment
        values = [100, 101, 99, 100, 102, 98] * 2
        twins = [100] * 12
        moments = [0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3]
        self.assertEqual(sequential.pair_sd(values, twins, moments),
                         sequential.robust_pair_sd(values, twins, moments))
