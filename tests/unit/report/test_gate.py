"""The regression gate on a real recorded run (the quickstart's, 4
iterations per step) against copies of itself with known changes."""

import copy
import unittest

from rally_container_bench.report import gate
from rally_container_bench.report import instrument
from tests.unit.report.test_comparison import load
from tests.unit.report.test_comparison import RUN_OF_2
from tests.unit.report.test_comparison import RUN_OF_4
from tests.unit.report.test_comparison import workloads
from tests.unit.report import test_instrument

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

    def test_a_threshold_holds_the_change_as_the_gate_prints_it(self):
        # "worse by" is 1 - ratio for a throughput: 27 % lower is within
        # a 30 % threshold (by logs it was beyond, a 30 % one held 23 %)
        limits = gate.Thresholds.from_dict({"metrics": {CPU: 0.30}})
        for factor, regressed in ((0.73, False), (0.67, True)):
            with self.subTest(factor=factor):
                found, findings = self.regressions(
                    scaled(self.base, "docker", factor), limits)
                cpu = next(f for f in findings if (
                    f.metric, f.platform, f.concurrency) == (
                        CPU, "docker-runc", 1))
                self.assertAlmostEqual(1 - factor, cpu.change, places=6)
                self.assertLess(cpu.p_value, 0.05)
                self.assertEqual(regressed, cpu.regressed)

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

    def history(self, levels):
        """Earlier runs of the job: the base run with native at levels."""
        return [[scaled(self.base, "native", level)] for level in levels]

    def test_the_host_s_drift_between_earlier_runs_raises_a_threshold(self):
        # native 7 % slower: beyond its 5 %, significant, a regression
        # by one baseline; but the host's level moved that much between
        # the job's earlier runs, and the finding says whose limit it is
        slower = scaled(self.base, "native", 0.93)
        found, _ = self.regressions(slower)
        self.assertIn((CPU, "native", 1), found)
        findings, _, _ = gate.compare(
            [self.base], [slower], self.limits,
            self.history([1.0, 1.08, 0.95, 1.06, 0.93, 1.04, 0.97]))
        native = next(f for f in findings
                      if (f.metric, f.platform, f.concurrency)
                      == (CPU, "native", 1))
        self.assertFalse(native.regressed)
        self.assertEqual("no change", native.verdict)
        self.assertGreater(native.threshold, 0.07)
        self.assertEqual(7, native.drift["runs"])
        self.assertIn("limit: the host's drift, from 7 runs",
                      gate.format_findings(findings, {}, {},
                                           everything=True))
        # a cell whose earlier runs held still keeps its threshold
        docker = next(f for f in findings
                      if (f.metric, f.platform, f.concurrency)
                      == (CPU, "docker-runc", 1))
        self.assertIsNone(docker.drift)
        self.assertEqual(0.05, docker.threshold)

    def test_a_slowdown_beyond_the_drift_still_fails(self):
        findings, _, _ = gate.compare(
            [self.base], [scaled(self.base, "native", 0.6)], self.limits,
            self.history([1.0, 1.08, 0.95, 1.06, 0.93, 1.04, 0.97]))
        native = next(f for f in findings
                      if (f.metric, f.platform, f.concurrency)
                      == (CPU, "native", 1))
        self.assertTrue(native.regressed)
        self.assertIsNotNone(native.drift)

    def test_fewer_earlier_runs_than_the_drift_needs_change_nothing(self):
        slower = scaled(self.base, "native", 0.93)
        found, _ = self.regressions(slower)
        findings, _, _ = gate.compare([self.base], [slower], self.limits,
                                      self.history([1.0, 1.08, 0.95]))
        self.assertEqual(found, [(f.metric, f.platform, f.concurrency)
                                 for f in findings if f.regressed])

    def test_the_instrument_check_is_shown_never_gated(self):
        def run(aa, slowed):
            return {"tasks": [{"uuid": "t", "subtasks": [{"workloads": [
                test_instrument.workload(instrument.AA, test_instrument.noisy(
                    aa, 0.003, 1), 1),
                test_instrument.workload(
                    instrument.SLOWED, test_instrument.noisy(
                        slowed, 0.003, 2), 2,
                    [("known_withheld", 0.097)])]}]}]}
        findings, _, _ = gate.compare([run(1.0, 0.9)], [run(0.8, 0.7)],
                                      self.limits)
        mine = [f for f in findings if f.metric == CPU
                and f.platform in instrument.PLATFORMS]
        self.assertEqual(set(instrument.PLATFORMS),
                         {f.platform for f in mine})
        for f in mine:
            self.assertEqual("worse", f.verdict)
            self.assertFalse(f.regressed)
            self.assertEqual(gate.NOT_GATED, f.note)
        self.assertIn("worse (%s)" % gate.NOT_GATED, gate.format_findings(
            findings, {}, {}, everything=True))

    def test_the_shipped_thresholds_hold_every_phase_in_its_band(self):
        import os
        limits = gate.Thresholds.load(os.path.join(
            os.path.dirname(__file__), "..", "..", "..", "etc", "periodic",
            "thresholds.yaml"))
        for phase in ("build", "network", "network/ping", "build+network",
                      "delete", "boot-and-delete", "guest_boot"):
            self.assertEqual(0.25, limits.of(phase), phase)

    def test_the_shipped_thresholds_load(self):
        import os
        top = os.path.join(os.path.dirname(__file__), "..", "..", "..")
        for name in ("thresholds.yaml", "thresholds-local.yaml"):
            limits = gate.Thresholds.load(os.path.join(
                top, "etc", "periodic", name))
            self.assertLess(limits.of(CPU), limits.default)
