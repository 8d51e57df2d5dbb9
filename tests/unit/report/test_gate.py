"""The regression gate on a real recorded run (the quickstart's, 4
iterations per step) against copies of itself with known changes."""

import copy
import unittest

from rally_container_bench.report import gate
from tests.unit.report.test_comparison import load
from tests.unit.report.test_comparison import RUN_OF_2
from tests.unit.report.test_comparison import RUN_OF_4
from tests.unit.report.test_comparison import workloads

CPU = "sysbench.cpu.events_per_s"


def scaled(document, driver, factor, table="sysbench cpu",
           row="events_per_s (events/s)"):
    """A copy whose driver's row is multiplied by factor everywhere."""
    changed = copy.deepcopy(document)
    for workload in workloads(changed):
        args = next(iter(workload["scenario"].values()))
        if args.get("driver", "native") != driver:
            continue
        for iteration in workload["data"]:
            for output in iteration["output"]["additive"]:
                if output["title"] == table:
                    output["data"] = [[name, value * factor if name == row
                                       else value]
                                      for name, value in output["data"]]
    return changed


class GateTestCase(unittest.TestCase):

    def setUp(self):
        self.base = load(RUN_OF_4)
        self.limits = gate.Thresholds.from_dict(
            {"default": 0.10, "metrics": {CPU: 0.05}})

    def regressions(self, candidate, limits=None):
        findings, _, _ = gate.compare([self.base], [candidate],
                                      limits or self.limits)
        return [(f.metric, f.platform, f.concurrency) for f in findings
                if f.regressed], findings

    def test_the_same_run_passes(self):
        found, findings = self.regressions(copy.deepcopy(self.base))
        self.assertEqual([], found)
        self.assertTrue(findings)
        self.assertTrue(all(f.verdict in ("no change", "not tested")
                            for f in findings))

    def test_halved_cpu_throughput_fails_with_its_numbers(self):
        found, findings = self.regressions(scaled(self.base, "docker", 0.5))
        self.assertIn((CPU, "docker-runc", 1), found)
        self.assertIn((CPU, "docker-runc", 2), found)
        self.assertEqual({CPU}, {metric for metric, _, _ in found})
        cpu = next(f for f in findings if f.regressed)
        self.assertAlmostEqual(0.5, cpu.change, places=6)
        self.assertLessEqual(cpu.ci_low, cpu.change)
        self.assertGreaterEqual(cpu.ci_high, cpu.change)
        self.assertLess(cpu.p_value, 0.05)
        text = gate.format_findings(*gate.compare(
            [self.base], [scaled(self.base, "docker", 0.5)], self.limits))
        self.assertIn("REGRESSION", text)
        self.assertIn("+50.0%", text)

    def test_significant_but_within_the_threshold_passes(self):
        found, findings = self.regressions(
            scaled(self.base, "docker", 0.97),
            gate.Thresholds.from_dict({"default": 0.10}))
        self.assertEqual([], found)

    def test_faster_is_never_a_regression(self):
        found, findings = self.regressions(scaled(self.base, "docker", 2.0))
        self.assertEqual([], found)
        self.assertIn("better", {f.verdict for f in findings
                                 if f.metric == CPU})

    def test_too_few_iterations_are_not_tested_and_say_so(self):
        small = load(RUN_OF_2)
        findings, _, _ = gate.compare([small], [scaled(small, "docker",
                                                       0.5)], self.limits)
        cpu = [f for f in findings if f.metric == CPU]
        self.assertTrue(cpu)
        self.assertFalse(any(f.regressed for f in cpu))
        self.assertTrue(all("fewer than 3 iterations" in f.note
                            for f in cpu))

    def test_ignored_metrics_and_first_matching_pattern(self):
        limits = gate.Thresholds.from_dict(
            {"default": 0.1, "metrics": {"sysbench.cpu.*": 0.9,
                                         CPU: 0.01},
             "ignore": ["sysbench.memory.*"]})
        self.assertEqual(0.9, limits.of(CPU))
        self.assertEqual(0.1, limits.of("build"))
        findings, _, _ = gate.compare([self.base], [self.base], limits)
        self.assertFalse([f for f in findings
                          if f.metric.startswith("sysbench.memory.")])

    def test_bad_thresholds_are_named(self):
        for data, message in (({"defualt": 0.1}, "unknown keys defualt"),
                              ({"default": "10%"}, "must be a fraction"),
                              ({"metrics": ["build"]}, "map patterns"),
                              ({"ignore": "build"}, "list of patterns")):
            with self.subTest(data=data):
                with self.assertRaisesRegex(gate.GateError, message):
                    gate.Thresholds.from_dict(data)

    def test_the_shipped_thresholds_load(self):
        import os
        top = os.path.join(os.path.dirname(__file__), "..", "..", "..")
        for name in ("thresholds.yaml", "thresholds-local.yaml"):
            limits = gate.Thresholds.load(os.path.join(
                top, "etc", "periodic", name))
            self.assertLess(limits.of(CPU), limits.default)
