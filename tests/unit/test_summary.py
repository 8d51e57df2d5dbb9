"""The results summary on real Rally results: the quickstart's task
(tools/quickstart.sh on the CI machine kind: 6 platforms x concurrency 1
and 2, 2 iterations each), kept as a fixture."""

import contextlib
import copy
import io
import json
import os
import unittest

from rally_container_bench.cli import main as cli
from rally_container_bench.report import summary

FIXTURE = os.path.join(os.path.dirname(__file__), "..", "fixtures", "rally",
                       "local-quick.json")
PLATFORMS = ["docker", "kvm", "lxc", "native", "podman-crun", "podman-runc"]


def load():
    with open(FIXTURE) as f:
        return json.load(f)


class SummaryTestCase(unittest.TestCase):

    def test_one_row_per_platform_and_step(self):
        rows = summary.rows(load())
        self.assertEqual([(p, c) for p in PLATFORMS for c in (1, 2)],
                         [(r["platform"], r["concurrency"]) for r in rows])
        for row in rows:
            self.assertEqual((2, 0), (row["iterations"], row["failed"]))
            self.assertGreater(row["cpu_events_per_s"], 0)
            if row["platform"] == "native":
                self.assertIsNone(row["build_s"])
            else:
                self.assertGreater(row["build_s"], 0)
                self.assertGreater(row["network_s"], 0)
                self.assertGreater(row["delete_s"], 0)

    def test_vm_phases_are_slower_than_container_phases(self):
        rows = {(r["platform"], r["concurrency"]): r
                for r in summary.rows(load())}
        self.assertGreater(rows[("kvm", 1)]["network_s"],
                           rows[("docker", 1)]["network_s"])

    def test_failed_iterations_are_counted(self):
        report = load()
        broken = copy.deepcopy(report)
        workload = broken["tasks"][0]["subtasks"][0]["workloads"][0]
        workload["data"][0]["error"] = ["SysbenchTestsFailed", "boom", ""]
        rows = summary.rows(broken)
        self.assertEqual(1, sum(r["failed"] for r in rows))

    def test_cli_checks_expected_platforms(self):
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            ok = cli.main(["summary", FIXTURE, "--expect-platforms"]
                          + PLATFORMS + ["--expect-concurrency", "1", "2"])
            missing = cli.main(["summary", FIXTURE, "--expect-platforms",
                                "zun", "--expect-concurrency", "1"])
        self.assertEqual((0, 1), (ok, missing))
        self.assertIn("no results for zun at concurrency 1", err.getvalue())
        self.assertIn("podman-crun", out.getvalue())

    def test_a_platform_label_is_expected_as_its_driver_is(self):
        # A driver with one label in the run (Docker's runc here; Nova's
        # LXC servers without QEMU ones on a cloud) has one row, named
        # by the driver: the label names it too.
        rows = {(r["platform"], r["concurrency"]): r
                for r in summary.rows(load())}
        self.assertEqual(["docker-runc"], rows[("docker", 1)]["labels"])
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            found = cli.main(["summary", FIXTURE, "--expect-platforms",
                              "docker-runc", "docker", "--expect-concurrency",
                              "1", "2"])
            unknown = cli.main(["summary", FIXTURE, "--expect-platforms",
                                "docker-crun"])
        self.assertEqual((0, 1), (found, unknown))
        self.assertIn("no results for docker-crun at concurrency 1",
                      err.getvalue())
