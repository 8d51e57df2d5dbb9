"""The instrument check of a report: A/A floor, false decisions, known effect.

The documents are built here in the shape the scenarios write (a stand-in
for NativeHost.against_twin's iterations, labelled so); the real cells
run in tests/functional/test_instrument_check.py.
"""

import json
import unittest

import numpy as np

from rally_container_bench.engines.native import instance as native
from rally_container_bench.report import comparison
from rally_container_bench.report import instrument
from rally_container_bench.report import margins
from rally_container_bench.report import render
from tests.unit.report import test_paired

METRIC = test_paired.METRIC


def workload(driver, ratios, seed, environment=()):
    """A stand-in workload of driver: 8 paired iterations at those ratios."""
    rng = np.random.default_rng(seed)
    iterations = []
    for i, ratio in enumerate(ratios):
        twin = 1000 * rng.normal(1, 0.01)
        iteration = test_paired._iteration(
            test_paired._records(twin * ratio, twin),
            [test_paired._check(1, "instance", 0.01, False, "used")],
            1000 + 20 * i)
        iteration["output"]["complete"][0]["data"]["rows"] = [
            ["driver", driver]] + [list(kv) for kv in environment]
        iterations.append(iteration)
    scenario = ("NativeHost.against_twin" if driver.startswith("native")
                else "LocalInstances.boot_sysbench_delete")
    return {"scenario": {scenario: {}},
            "runner": {"constant": {"times": len(ratios),
                                    "concurrency": 1}},
            "contexts": {"rcbench_round": {"round": 1, "rounds": 1}},
            "data": iterations}


def noisy(centre, sd, seed, n=8):
    return list(centre * np.exp(np.random.default_rng(seed).normal(
        0, sd, n)))


def document(aa=1.0, aa_sd=0.003, slowed=0.9, docker_sd=0.003):
    workloads = [
        workload(instrument.AA, noisy(aa, aa_sd, 1), 11),
        workload(instrument.SLOWED, noisy(slowed, 0.003, 2), 12,
                 [("known_withheld", 0.1)]),
        workload("docker", noisy(0.99, docker_sd, 3), 13)]
    return {"tasks": [{"uuid": "t", "subtasks": [{"workloads": workloads}]}]}


class InstrumentCheckTestCase(unittest.TestCase):

    def build(self, **kwargs):
        return comparison.build([document(**kwargs)],
                                margins={"cpu": 0.03})

    def test_a_quiet_instrument_is_equivalent_and_finds_the_effect(self):
        report = self.build()
        (kind,) = report["instrument"]["kinds"]
        self.assertEqual("cpu", kind["kind"])
        self.assertEqual(0.1, report["instrument"]["withheld"])
        self.assertEqual([("equivalent", 1)], [
            (r["verdict"], r["concurrency"]) for r in kind["aa"]])
        self.assertEqual([], kind["false_decisions"])
        (known,) = kind["known"]
        self.assertAlmostEqual(-0.1, known["injected"])
        self.assertTrue(known["covered"])
        self.assertTrue(known["detected"])
        self.assertLess(abs(known["bias"]), 0.01)
        self.assertAlmostEqual(0.003, kind["aa_pair_sd"], delta=0.002)
        self.assertEqual([], kind["noisier"])
        self.assertFalse([w for w in report["warnings"]
                          if "instrument" in w])

    def test_a_false_aa_decision_is_a_warning(self):
        report = self.build(aa=0.9)
        (kind,) = report["instrument"]["kinds"]
        self.assertEqual([1], kind["false_decisions"])
        warned = [w for w in report["warnings"] if "A/A" in w]
        self.assertEqual(1, len(warned))
        self.assertRegex(warned[0], r"worse at concurrency 1, -(9\.9|10\.)")
        self.assertIn("false decision", warned[0])
        self.assertIn("false decision", render.to_html(report))
        self.assertIn("> Warning: instrument check", render.to_markdown(
            report))

    def test_a_cloud_has_an_aa_per_kind_of_compute_host(self):
        workloads = [
            workload(native.aa_on("qemu"), noisy(1.0, 0.003, 1),
                     11),
            workload(native.aa_on("zun"), noisy(0.9, 0.003, 2),
                     12),
            workload("docker", noisy(0.99, 0.003, 3), 13)]
        report = comparison.build(
            [{"tasks": [{"uuid": "t", "subtasks": [
                {"workloads": workloads}]}]}], margins={"cpu": 0.03})
        (kind,) = report["instrument"]["kinds"]
        self.assertEqual(
            [("native-aa-on-qemu", "equivalent"),
             ("native-aa-on-zun", "worse")],
            [(r["platform"], r["verdict"]) for r in kind["aa"]])
        self.assertEqual([], kind["known"])
        (line,) = instrument.lines(report["instrument"])
        self.assertIn("equivalent at 1 on qemu hosts, worse at 1 on zun "
                      "hosts", line["aa"])
        (warned,) = [w for w in report["warnings"] if "A/A" in w]
        self.assertIn("twin on zun hosts) read", warned)
        # neither A/A is a platform of the verdicts' picture's noise
        self.assertAlmostEqual(0.003, kind["platforms_pair_sd"], delta=0.002)

    def test_a_known_effect_measured_off_its_size_is_a_warning(self):
        report = self.build(slowed=0.95)
        (known,) = report["instrument"]["kinds"][0]["known"]
        self.assertFalse(known["covered"])
        self.assertFalse(known["detected"])
        self.assertTrue(any("misses the true size" in w
                            for w in report["warnings"]))

    def test_a_platform_well_above_the_floor_is_named(self):
        report = self.build(docker_sd=0.03)
        (kind,) = report["instrument"]["kinds"]
        self.assertEqual(["docker at 1"], kind["noisier"])
        (line,) = instrument.lines(report["instrument"])
        self.assertIn("noisier than native on this host: docker at 1",
                      line["known"])

    def test_the_check_is_in_every_format(self):
        report = self.build()
        markdown = render.to_markdown(report)
        self.assertIn("## Instrument check", markdown)
        self.assertLess(markdown.index("## Instrument check"),
                        markdown.index("## Concurrency 1"))
        self.assertIn("-10.0 % injected", markdown)
        html = render.to_html(report)
        self.assertIn('id="instrument-check"', html)
        self.assertLess(html.index('id="instrument-check"'),
                        html.index('id="headline"'))
        self.assertEqual(report["instrument"],
                         json.loads(render.to_json(report))["instrument"])

    def test_a_run_without_the_cells_has_no_check(self):
        plain = {"tasks": [{"uuid": "t", "subtasks": [{"workloads": [
            workload("docker", noisy(0.99, 0.003, 3), 13)]}]}]}
        report = comparison.build([plain])
        self.assertIsNone(report["instrument"])
        self.assertNotIn("Instrument check", render.to_markdown(report))
        self.assertNotIn('id="instrument-check"', render.to_html(report))

    def test_the_expected_change_follows_the_metric_direction(self):
        self.assertAlmostEqual(-0.1, instrument.expected_change(0.1, True))
        self.assertAlmostEqual(1 / 0.9 - 1,
                               instrument.expected_change(0.1, False))

    def test_the_summary_line_says_each_kind(self):
        report = self.build()
        self.assertEqual("cpu A/A equivalent, known effect -10.0 % detected",
                         instrument.summary_line(report["instrument"]))
        self.assertEqual("no pairs", instrument.summary_line(None))

    def test_io_has_a_floor_and_no_known_effect(self):
        rows = [{"metric": "sysbench.fileio.rndrd.read_mib_per_s",
                 "platform": platform, "concurrency": 1, "pair_sd": sd,
                 "verdict": verdict, "change": change,
                 "change_ci_low": change - 0.05,
                 "change_ci_high": change + 0.05, "pairs": 6,
                 "higher_is_better": True}
                for platform, sd, verdict, change in (
                    (instrument.AA, 0.04, "equivalent", 0.0),
                    (instrument.SLOWED, 0.04, "inconclusive", -0.02))]
        found = instrument.check(
            rows, [{"name": rows[0]["metric"], "headline": True}],
            comparison.kind_of, {instrument.SLOWED: {"known_withheld": 0.1}})
        (kind,) = found["kinds"]
        self.assertEqual("disk", kind["kind"])
        self.assertEqual([], kind["known"])
        self.assertEqual([], instrument.warnings(found))
        (line,) = instrument.lines(found)
        self.assertEqual("4.00 %", line["floor"])
        self.assertIn("the disk floor is the A/A's pair SD, measured",
                      line["known"])
        floors = instrument.device_floors(found)
        self.assertEqual({"disk": 0.04}, floors)
        said = margins.equivalence_methods(
            {"default": 0.02, "disk": 0.1, "cpu": 0.03}, floors=floors)
        self.assertEqual("+-2 % (cpu +-3 %, disk +-10 %, disk floor 4 %, "
                         "measured (A/A pair SD))", said["margin"])
        # said once for the kind, after its steps' margins
        said = margins.equivalence_methods(
            {"disk": 0.1, "disk at 1": 0.8, "disk at 2": 0.14,
             "memory": 0.05}, floors=floors)
        self.assertEqual("+-2 % (disk +-10 %, disk at 1 +-80 %, disk at 2 "
                         "+-14 %, disk floor 4 %, measured (A/A pair SD), "
                         "memory +-5 %)", said["margin"])

    def test_a_steps_heading_names_that_steps_margins_only(self):
        # KEK's campaign: 16 margins of four steps in every heading
        said = margins.equivalence_methods(
            {"default": 0.02, "cpu": 0.02, "cpu at 1": 0.015,
             "cpu at 2": 0.02, "cpu at once": 0.01, "disk": 0.12,
             "disk at 1": 0.815, "memory": 0.055, "memory at 8": 0.05},
            floors={"disk": 0.072}, steps=[1, 2, 8])
        self.assertEqual(
            {"1": "+-2 % (cpu +-1.5 %, cpu at once +-1 %, disk +-81.5 %, "
                  "disk floor 7.2 %, measured (A/A pair SD), memory "
                  "+-5.5 %)",
             "2": "+-2 % (cpu +-2 %, cpu at once +-1 %, disk +-12 %, disk "
                  "floor 7.2 %, measured (A/A pair SD), memory +-5.5 %)",
             "8": "+-2 % (cpu +-2 %, cpu at once +-1 %, disk +-12 %, disk "
                  "floor 7.2 %, measured (A/A pair SD), memory +-5 %)"},
            said["margin_at"])
        self.assertIn("cpu at 2 +-2 %", said["margin"])
        # a report kept from before: its headings say every margin
        report = {"methods": {"margin": "+-2 % (cpu at 1 +-1 %)"}}
        self.assertEqual("+-2 % (cpu at 1 +-1 %)",
                         render.step_margins(report, 1))
        report["methods"]["margin_at"] = said["margin_at"]
        self.assertTrue(render.step_margins(report, 8).endswith(
            "memory +-5 %)"))
