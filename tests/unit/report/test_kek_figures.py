"""KEK's figures: the phases with SD bars, each test's difference by step."""

import json
import os
import tempfile
import unittest

from rally_container_bench.report import comparison
from rally_container_bench.report import kek_figures
from rally_container_bench.report import render

FIXTURES = os.path.join(os.path.dirname(__file__), os.pardir, os.pardir,
                        "fixtures", "rally")


def _built(name="local-quick.json"):
    with open(os.path.join(FIXTURES, name)) as f:
        return comparison.build([json.load(f)])


class PhasesTestCase(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.report = _built()

    def test_each_phase_has_kek_s_sd_bars_per_platform(self):
        self.assertEqual([1, 2], self.report["concurrency"])
        for name in kek_figures.PHASES:
            series = kek_figures.phase_series(self.report, name)
            self.assertTrue(series, name)
            for label, steps, means, sds in series:
                rows = comparison.rows_for(self.report, name, label)
                self.assertEqual([r["sd"] for r in rows], sds)
                self.assertEqual([r["mean"] for r in rows], means)
        svg = kek_figures.phases_figure(self.report)
        for name in kek_figures.PHASES:
            self.assertIn("%s (s), mean +- SD" % name, svg)

    def test_boot_and_delete_is_build_network_and_delete(self):
        means = {name: comparison.rows_for(
            self.report, name, "docker-runc", 1)[0]["mean"]
            for name in ("build", "network", "delete", "boot-and-delete")}
        self.assertAlmostEqual(means["build"] + means["network"]
                               + means["delete"], means["boot-and-delete"])

    def test_one_step_has_no_ladder_to_draw(self):
        report = dict(self.report, concurrency=[1])
        self.assertEqual({}, kek_figures.figures(report))


class DifferenceTestCase(unittest.TestCase):

    def report(self, higher, verdict="equivalent"):
        metric = "sysbench.cpu.events_per_s"
        return {"concurrency": [1, 2],
                "platforms": [{"label": "native"}, {"label": "docker"}],
                "metrics": [{"name": metric, "kind": "workload",
                             "headline": True, "higher_is_better": higher}],
                "rows": [{"metric": metric, "platform": "docker",
                          "concurrency": step, "change": change,
                          "change_ci_low": change - 0.01,
                          "change_ci_high": change + 0.02,
                          "margin": 0.02, "verdict": verdict}
                         for step, change in ((1, -0.05), (2, 0.01))]}

    def test_a_step_s_change_and_ci_in_percent(self):
        report = self.report(True)
        rows = kek_figures.difference_rows(report, report["metrics"][0],
                                           "docker")
        self.assertEqual([1, 2], [r[0] for r in rows])
        self.assertAlmostEqual(-5.0, rows[0][1])
        self.assertAlmostEqual(-6.0, rows[0][2])
        self.assertAlmostEqual(-3.0, rows[0][3])
        self.assertIn("% from native (CI)",
                      kek_figures.difference_figure(report))

    def test_lower_is_better_is_turned_so_up_is_better(self):
        report = self.report(False)
        rows = kek_figures.difference_rows(report, report["metrics"][0],
                                           "docker")
        # a 5 % shorter time is 5 % better
        self.assertAlmostEqual(5.0, rows[0][1])
        self.assertEqual((3.0, 6.0), tuple(round(v, 6) for v in rows[0][2:4]))

    def test_no_verdict_against_another_host_is_drawn(self):
        report = self.report(True, verdict="not comparable")
        self.assertEqual([], kek_figures.difference_rows(
            report, report["metrics"][0], "docker"))
        self.assertIsNone(kek_figures.difference_figure(report))


class FilesTestCase(unittest.TestCase):

    def test_the_figures_are_files_beside_the_report_and_in_it(self):
        # two steps, its platforms against native
        report = _built("local-quick-4.json")
        with tempfile.TemporaryDirectory() as out:
            found = render.files(report, out)
        names = {os.path.basename(path) for path in found}
        self.assertLessEqual({"kek-phases.svg", "kek-difference.svg"},
                             names)
        markdown = found[os.path.join(out, "comparison.md")]
        self.assertIn("(kek-phases.svg)", markdown)
        self.assertIn("(kek-difference.svg)", markdown)
        html = found[os.path.join(out, "comparison.html")]
        self.assertIn('id="kek-phases"', html)
        self.assertIn('id="kek-difference"', html)
        self.assertIn("mean +- SD of the instances", html)
