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


def _step(rows):
    """A report of one step: (platform, metric, change, low, high, verdict)."""
    metrics = ["sysbench.cpu.events_per_s", "sysbench.memory.read.mib_per_s"]
    return {"concurrency": [1],
            "platforms": [{"label": p} for p in
                          ("native", "kvm", "docker", "podman-runc",
                           "podman-crun", "lxc")],
            "metrics": [{"name": m, "kind": "workload", "headline": True,
                         "higher_is_better": True} for m in metrics],
            "rows": [{"metric": metrics[m], "platform": p, "concurrency": 1,
                      "change": c, "change_ci_low": lo,
                      "change_ci_high": hi, "verdict": v,
                      "margin": 0.02 if m == 0 else 0.035}
                     for p, m, c, lo, hi, v in rows]}


class EveryCellVisibleTestCase(unittest.TestCase):
    """A VM at -80 % beside containers within +-2 %: every row readable."""

    ROWS = [("kvm", 0, -0.80, -0.81, -0.79, "worse"),
            ("docker", 0, -0.002, -0.010, 0.006, "equivalent"),
            ("lxc", 0, 0.004, -0.004, 0.012, "equivalent"),
            ("podman-crun", 0, -0.012, -0.021, -0.003, "equivalent"),
            ("kvm", 1, -0.78, -0.80, -0.76, "worse"),
            ("docker", 1, -0.01, -0.02, 0.0, "equivalent"),
            ("podman-runc", 1, 0.015, -0.005, 0.035, "inconclusive")]

    def setUp(self):
        from matplotlib.backends import backend_agg
        self.fig, self.axes, self.data, self.texts = forest.draw(
            _step(self.ROWS), 1)
        backend_agg.FigureCanvasAgg(self.fig).draw()
        self.renderer = self.fig.canvas.get_renderer()

    def boxes(self, artists):
        return [a.get_window_extent(self.renderer) for a in artists]

    def test_no_text_over_any_point_or_bar(self):
        self.assertIsNone(self.axes.get_legend())
        texts = self.boxes(self.texts) + self.boxes(
            self.axes.get_yticklabels()) + [
            self.axes.title.get_window_extent(self.renderer)]
        for data in self.boxes(self.data):
            for text in texts:
                self.assertFalse(data.overlaps(text), (data, text))

    def test_one_percent_is_readable_for_the_near_rows(self):
        (x0, _), (x1, _) = self.axes.transData.transform([(0, 0), (1, 0)])
        self.assertGreaterEqual(x1 - x0, 15)

    def test_a_far_row_keeps_its_value_in_words(self):
        said = [t.get_text() for t in self.texts]
        self.assertIn("-80.0 % [-81.0, -79.0] worse", said)
        self.assertIn("-0.2 % [-1.0, +0.6] equivalent ±2 %", said)
        self.assertIn("-1.0 % [-2.0, +0.0] equivalent ±3.5 %", said)

    def test_rows_grouped_by_test_in_the_reports_platform_order(self):
        labels = [r.label for r in forest.rows_of(_step(self.ROWS), 1)]
        self.assertEqual(["kvm: cpu", "docker: cpu", "podman-crun: cpu",
                          "lxc: cpu", "kvm: memory.read",
                          "docker: memory.read", "podman-runc: memory.read"],
                         labels)

    def test_each_row_has_its_own_margin_band(self):
        bands = [c for c in self.axes.collections]
        widths = sorted({round(b.get_paths()[0].get_extents().width, 3)
                         for b in bands})
        self.assertEqual([4.0, 7.0], widths)
