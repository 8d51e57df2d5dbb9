"""report.comparison on Rally results recorded from the local scenarios."""

import copy
import json
import os
import statistics
import unittest

from rally_container_bench.report import comparison
from rally_container_bench.report import results

FIXTURES = os.path.join(os.path.dirname(__file__), "..", "..", "fixtures",
                        "rally")
# Real quickstart runs (tools/quickstart.sh) on this project's CI machine
# kind: 2 and 4 iterations per step, every local platform, concurrency 1, 2.
RUN_OF_2 = "local-quick.json"
RUN_OF_4 = "local-quick-4.json"


def load(name):
    with open(os.path.join(FIXTURES, name)) as f:
        return json.load(f)


def workloads(document):
    for task in document["tasks"]:
        for subtask in task["subtasks"]:
            yield from subtask["workloads"]


def raw_values(document, driver, concurrency, table, row):
    """A metric read straight from the JSON, independent of the report."""
    found = []
    for workload in workloads(document):
        args = next(iter(workload["scenario"].values()))
        runner = next(iter(workload["runner"].values()))
        if args.get("driver", "native") != driver or \
                runner["concurrency"] != concurrency:
            continue
        for iteration in workload["data"]:
            for output in iteration["output"]["additive"]:
                if output["title"] == table:
                    found.append(dict(output["data"])[row])
    return found


class RecordedRunTestCase(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        # one build for the class (~3 s each, once per test before)
        cls._document = load(RUN_OF_4)
        cls._report = comparison.build([cls._document])

    def setUp(self):
        # copies: a test that changes them changes no other test's
        self.document = copy.deepcopy(self._document)
        self.report = copy.deepcopy(self._report)

    def test_every_platform_in_task_order_named_by_what_ran(self):
        labels = [p["label"] for p in self.report["platforms"]]
        self.assertEqual(["native", "qemu-tcg", "docker-runc", "podman-runc",
                          "podman-crun", "lxc"], labels)
        # The "kvm" driver ran under TCG here: the report never says kvm.
        vm = self.report["platforms"][1]
        self.assertEqual(("kvm", "tcg"), (vm["driver"], vm["acceleration"]))

    def test_cpu_ratio_is_the_ratio_of_the_raw_means(self):
        for driver, label in (("docker", "docker-runc"), ("kvm", "qemu-tcg")):
            for step in (1, 2):
                with self.subTest(driver=driver, concurrency=step):
                    own = raw_values(self.document, driver, step,
                                     "sysbench cpu",
                                     "events_per_s (events/s)")
                    native = raw_values(self.document, "native", step,
                                        "sysbench cpu",
                                        "events_per_s (events/s)")
                    row, = comparison.rows_for(
                        self.report, "sysbench.cpu.events_per_s", label, step)
                    self.assertEqual(4, row["n"])
                    self.assertAlmostEqual(statistics.mean(own), row["mean"])
                    self.assertAlmostEqual(
                        statistics.mean(own) / statistics.mean(native),
                        row["ratio_to_native"])
                    self.assertLessEqual(row["ci_low"], row["mean"])
                    self.assertIsNotNone(row["p_value"])

    def test_tcg_guest_is_significantly_slower_than_native(self):
        for step in (1, 2):
            row, = comparison.rows_for(
                self.report, "sysbench.cpu.events_per_s", "qemu-tcg", step)
            self.assertEqual("worse", row["verdict"])
            self.assertLess(row["ratio_ci_high"], 0.6)
            self.assertAlmostEqual(-1.0, row["cliffs_delta"])

    def test_phases_for_instances_only(self):
        builds = comparison.rows_for(self.report, "build")
        self.assertEqual(10, len(builds))  # 5 instance platforms x 2 steps
        self.assertNotIn("native", {r["platform"] for r in builds})
        for row in comparison.rows_for(self.report, "build+network"):
            build, = comparison.rows_for(self.report, "build",
                                         row["platform"], row["concurrency"])
            network, = comparison.rows_for(self.report, "network",
                                           row["platform"],
                                           row["concurrency"])
            self.assertAlmostEqual(build["mean"] + network["mean"],
                                   row["mean"])

    def test_environment_names_host_engine_and_image(self):
        facts = dict(self.report["platforms"][1]["environment"])
        for key in ("host CPU", "host cores", "host kernel",
                    "engine version", "image", "sysbench", "acceleration",
                    "why this acceleration"):
            self.assertTrue(facts.get(key), key)
        self.assertIn("QEMU", facts["engine version"])

    def test_headline_metrics_are_phases_and_throughputs(self):
        headline = [m["name"] for m in self.report["metrics"]
                    if m["headline"]]
        self.assertEqual(["build", "network", "build+network", "delete"],
                         headline[:4])
        self.assertIn("sysbench.cpu.events_per_s", headline)
        # rndrd writes nothing: all zero, kept in the table, not headlined.
        self.assertNotIn("sysbench.fileio.rndrd.writes_per_s", headline)
        self.assertTrue(comparison.rows_for(
            self.report, "sysbench.fileio.rndrd.writes_per_s"))


class HonestWithLittleDataTestCase(unittest.TestCase):

    def test_two_iterations_show_no_interval_and_say_why(self):
        report = comparison.build([load(RUN_OF_2)])
        row, = comparison.rows_for(report, "sysbench.cpu.events_per_s",
                                   "docker-runc", 1)
        self.assertEqual(2, row["n"])
        self.assertIsNone(row["ci_low"])
        self.assertIsNone(row["p_value"])
        self.assertIsNotNone(row["ratio_to_native"])
        self.assertIn("no CI", row["note"])

    def test_failed_iterations_are_counted_and_left_out(self):
        document = load(RUN_OF_4)
        failing = copy.deepcopy(document)
        target = None
        for workload in workloads(failing):
            if workload["scenario"].get(
                    "LocalInstances.boot_sysbench_delete", {}).get(
                    "driver") == "lxc" and \
                    workload["runner"]["constant"]["concurrency"] == 1:
                target = workload["data"][0]
        target["error"] = ["SysbenchTestsFailed", "1 of 3 failed", ""]
        report = comparison.build([failing])
        row, = comparison.rows_for(report, "sysbench.cpu.events_per_s",
                                   "lxc", 1)
        self.assertEqual((3, 1, 4), (row["n"], row["failed"],
                                     row["iterations"]))
        values = raw_values(document, "lxc", 1, "sysbench cpu",
                            "events_per_s (events/s)")
        self.assertAlmostEqual(statistics.mean(values[1:]), row["mean"])
        self.assertIn("1 failed iteration(s) left out", row["note"])
        self.assertTrue(any("lxc at concurrency 1: 1 of 4" in w
                            for w in report["warnings"]))

    def test_without_native_there_is_no_ratio_and_a_warning(self):
        document = load(RUN_OF_4)
        for task in document["tasks"]:
            task["subtasks"] = [s for s in task["subtasks"]
                                if not s["title"].startswith("native")]
        report = comparison.build([document])
        self.assertTrue(all(r["ratio_to_native"] is None
                            for r in report["rows"]))
        self.assertIn("no native baseline in these results: no ratios",
                      report["warnings"])

    def test_tasks_are_pooled(self):
        report = comparison.build([load(RUN_OF_2), load(RUN_OF_4)])
        row, = comparison.rows_for(report, "sysbench.cpu.events_per_s",
                                   "podman-crun", 2)
        self.assertEqual(6, row["n"])
        self.assertEqual(2, len(report["tasks"]))

    def test_older_results_name_host_facts_the_old_way(self):
        report = comparison.build([load(RUN_OF_2)])
        facts = dict(report["platforms"][0]["environment"])
        self.assertTrue(facts["host CPU"])
        self.assertTrue(facts["host kernel"])


class NotResultsTestCase(unittest.TestCase):

    def test_other_json_is_refused_with_the_fix(self):
        for document in ({}, [], {"tasks": "x"}):
            with self.subTest(document=document):
                with self.assertRaisesRegex(results.ResultsError,
                                            "rally task report"):
                    comparison.build([document])
