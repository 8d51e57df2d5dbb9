"""What made a result: recorded with every iteration and report, named by
rcbench diff and the gate when two runs differ."""

import os
import subprocess
import tempfile
import unittest

from rally_container_bench.core import provenance
from rally_container_bench.report import comparison
from rally_container_bench.report import diff
from rally_container_bench.report import render
from rally_container_bench.task.scenarios import sysbench_utils
from tests.unit.report import test_off_host


def _run(version, numpy="2.4.6"):
    """A run whose iterations were made by rally-container-bench version."""
    document = test_off_host._document(1.0, cell_host="rally")
    for task in document["tasks"]:
        for subtask in task["subtasks"]:
            for workload in subtask["workloads"]:
                for iteration in workload["data"]:
                    table = iteration["output"]["complete"][0]
                    table["data"]["rows"] += [
                        ["rcbench_version", version],
                        ["rcbench_commit", "abc%s" % version],
                        ["numpy_version", numpy]]
    return document


class ProvenanceTestCase(unittest.TestCase):

    def test_this_process_names_every_part(self):
        found = provenance.facts()
        self.assertEqual(set(provenance.KEYS), set(found))
        for key in ("rcbench_version", "rally_version",
                    "rally_openstack_version", "python_version",
                    "numpy_version", "scipy_version"):
            self.assertTrue(found[key], key)
        line = provenance.line()
        self.assertTrue(line.startswith("rally-container-bench "), line)
        self.assertIn("numpy %s" % found["numpy_version"], line)

    def test_every_environment_table_carries_it(self):
        table = sysbench_utils.environment_table({"driver": "docker"})
        rows = dict(table["data"]["rows"])
        self.assertEqual("docker", rows["driver"])
        self.assertEqual(provenance.facts()["scipy_version"],
                         rows["scipy_version"])

    def test_the_commit_says_modified_when_the_tree_was(self):
        with tempfile.TemporaryDirectory() as top:
            def git(*args):
                subprocess.run(["git", "-C", top, "-c", "user.name=t", "-c",
                                "user.email=t@t", *args], check=True,
                               capture_output=True)
            git("init", "-q")
            path = os.path.join(top, "f")
            with open(path, "w") as f:
                f.write("1")
            git("add", "f")
            git("commit", "-q", "-m", "one")
            clean = provenance.commit(top)
            self.assertRegex(clean, r"^[0-9a-f]{12}$")
            with open(path, "w") as f:
                f.write("2")
            self.assertEqual(clean + "+modified", provenance.commit(top))
            self.assertIsNone(provenance.commit(os.path.join(top, "x")))

    def test_the_report_names_what_made_it(self):
        report = comparison.build([_run("0.1.0")])
        self.assertEqual("0.1.0",
                         report["made_by"]["results"]["rcbench_version"])
        self.assertEqual(provenance.facts(), report["made_by"]["report"])
        markdown = render.to_markdown(report)
        self.assertIn("Results made by rally-container-bench 0.1.0 "
                      "(abc0.1.0)", markdown)
        self.assertIn("Report computed by rally-container-bench",
                      render.to_html(report))


class MadeByChangesTestCase(unittest.TestCase):

    def test_diff_names_a_change_of_harness_version(self):
        note = diff.made_by_note([_run("0.1.0")], [_run("0.2.0", "2.5.0")])
        self.assertIn("rally-container-bench 0.1.0 -> 0.2.0", note)
        self.assertIn("rally-container-bench's commit abc0.1.0 -> abc0.2.0",
                      note)
        self.assertIn("numpy 2.4.6 -> 2.5.0", note)
        self.assertIsNone(diff.made_by_note([_run("0.1.0")],
                                            [_run("0.1.0")]))

    def test_results_of_a_harness_that_recorded_none_are_no_change(self):
        bare = test_off_host._document(1.0, cell_host="rally")
        self.assertEqual([], diff.made_by_changes([bare], [_run("0.2.0")]))
