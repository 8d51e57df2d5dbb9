"""The forest plot: each platform's change from native, right is better."""

import unittest

from rally_container_bench.report import forest


def _report(rows, higher=True):
    return {"concurrency": [1],
            "metrics": [{"name": "sysbench.cpu.events_per_s",
                         "kind": "workload", "headline": True,
                         "higher_is_better": higher}],
            "rows": [dict(metric="sysbench.cpu.events_per_s",
                          concurrency=1, **row) for row in rows]}


class ForestTestCase(unittest.TestCase):

    def test_rows_carry_the_change_its_ci_margin_and_verdict(self):
        report = _report([
            {"platform": "native", "change": None},
            {"platform": "docker", "change": -0.01, "change_ci_low": -0.02,
             "change_ci_high": 0.0, "margin": 0.02,
             "verdict": "equivalent"},
            {"platform": "kvm", "change": None}])  # no verdict: left out
        self.assertEqual([("docker: cpu", -1.0, -2.0, 0.0, 2.0,
                           "equivalent")], forest.rows_of(report, 1))

    def test_lower_is_better_is_turned_so_right_is_better(self):
        report = _report([{"platform": "docker", "change": 0.10,
                           "change_ci_low": 0.05, "change_ci_high": 0.15,
                           "margin": 0.02, "verdict": "worse"}],
                         higher=False)
        (row,) = forest.rows_of(report, 1)
        self.assertEqual((-10.0, -15.0, -5.0), row[1:4])

    def test_an_svg_per_step_with_a_verdict_else_none(self):
        report = _report([{"platform": "docker", "change": -0.05,
                           "change_ci_low": -0.07, "change_ci_high": -0.03,
                           "margin": 0.02, "verdict": "worse"}])
        ((step, svg),) = forest.figures(report)
        self.assertEqual(1, step)
        self.assertTrue(svg.startswith("<svg"))
        self.assertIn("docker: cpu", svg)
        self.assertIn(forest.VERDICT_COLOURS["worse"], svg)
        self.assertEqual([], forest.figures(_report([])))
