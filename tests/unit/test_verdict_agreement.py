import contextlib
import json
import os
import tempfile
import unittest

from benchmarks import verdict_agreement

CPU = "sysbench.cpu.events_per_s"


def _row(platform, verdict, change, low, high, metric=CPU, step=2):
    return {"platform": platform, "concurrency": step, "metric": metric,
            "verdict": verdict, "change": change, "change_ci_low": low,
            "change_ci_high": high, "margin": 0.04}


def _document(*rows):
    return {"metrics": [{"name": CPU, "headline": True},
                        {"name": "sysbench.cpu.latency_min_ms",
                         "headline": False}],
            "rows": list(rows)}


class VerdictAgreementTestCase(unittest.TestCase):

    def _marks(self, a, b):
        return [mark for *_, mark in verdict_agreement.compare(
            _document(a), _document(b))]

    def test_other_verdicts_with_ci_apart_contradict(self):
        self.assertEqual(["CONTRADICTS"], self._marks(
            _row("zun", "equivalent", -0.01, -0.03, 0.01),
            _row("zun", "worse", -0.08, -0.10, -0.05)))

    def test_other_verdicts_with_ci_in_common_only_change_label(self):
        # the quiet and the hog run of 2026-11-29 (Zun cpu at 2)
        self.assertEqual(["label changed"], self._marks(
            _row("zun", "equivalent", -0.013, -0.032, 0.007),
            _row("zun", "worse", -0.034, -0.060, -0.007)))

    def test_same_verdict_apart_is_a_moved_size_and_agreement_is_blank(self):
        self.assertEqual(["size moved"], self._marks(
            _row("qemu", "worse", -0.868, -0.880, -0.830),
            _row("qemu", "worse", -0.896, -0.905, -0.885)))
        self.assertEqual([""], self._marks(
            _row("lxc", "equivalent", 0.007, -0.024, 0.038),
            _row("lxc", "equivalent", -0.005, -0.022, 0.012)))

    def test_only_headline_cells_decided_in_both_and_not_native(self):
        quiet = _document(
            _row("lxc", "equivalent", 0, -0.01, 0.01),
            _row("lxc", "worse", -0.5, -0.6, -0.4,
                 metric="sysbench.cpu.latency_min_ms"),
            _row("native", "worse", -0.5, -0.6, -0.4),
            _row("zun", "equivalent", 0, -0.01, 0.01))
        hog = _document(
            _row("lxc", "equivalent", 0, -0.01, 0.01),
            _row("lxc", "equivalent", 0, -0.01, 0.01,
                 metric="sysbench.cpu.latency_min_ms"),
            _row("native", "equivalent", 0, -0.01, 0.01),
            _row("zun", "inconclusive", -0.5, -0.6, -0.4))
        compared = verdict_agreement.compare(quiet, hog)
        self.assertEqual([("lxc", 2, CPU)], [c for c, *_ in compared])

    def test_exit_status_says_whether_any_cell_contradicts(self):
        with tempfile.TemporaryDirectory() as top:
            def results(name, *rows):
                path = os.path.join(top, name)
                os.mkdir(path)
                with open(os.path.join(path, "comparison.json"), "w") as f:
                    json.dump(_document(*rows), f)
                return path
            quiet = results("quiet", _row("zun", "equivalent", 0, -.01, .01))
            same = results("same", _row("zun", "equivalent", 0, -.02, .02))
            other = results("other", _row("zun", "worse", -.1, -.2, -.05))
            with open(os.devnull, "w") as devnull:
                with contextlib.redirect_stdout(devnull):
                    self.assertEqual(0, verdict_agreement.main([quiet, same]))
                    self.assertEqual(1, verdict_agreement.main([quiet, other]))
