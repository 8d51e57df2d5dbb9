"""KEK's campaign reduced: each of its seven tests once, at 1, on Docker.

rcbench decide with tasks/args/kek2015-reduced.yaml (KEK's cpu, memory
read and write, fileio seqrd, rndrd, seqwr and rndwr at quick sizes, 4
KiB blocks with O_DIRECT, and its boot-and-delete), each test inside the
container paired with its native twin; then rcbench kek answers KEK's
conclusions from its comparison.json: those about Docker at one request
with a measured answer, those about KVM or higher concurrency with the
reason they cannot be checked here.
"""

import json
import os
import subprocess

from rally_container_bench.report import kek
from tests.functional import helpers

TASK = os.path.join(helpers.TOP, "tasks", "local_kvm_vs_containers.yaml")
ARGS = os.path.join(helpers.TOP, "tasks", "args", "kek2015-reduced.yaml")
TESTS = ("cpu", "memory.read", "memory.write", "fileio.seqrd",
         "fileio.rndrd", "fileio.seqwr", "fileio.rndwr")


class KekReducedTestCase(helpers.DockerRallyTestCase):

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.out = os.path.join(cls.home.path, "kek")
        env = dict(os.environ, HOME=cls.home.path,
                   XDG_CACHE_HOME=helpers.CACHE_HOME)
        rcbench = os.path.join(helpers.BIN, "rcbench")
        cls.decided = subprocess.run(
            [rcbench, "decide", "--task", TASK, "--task-args-file", ARGS,
             "--env", "local", "--out", cls.out, "--rally-config",
             cls.home.conf], cwd=helpers.TOP, env=env, capture_output=True,
            text=True, timeout=900)
        cls.kek = subprocess.run(
            [rcbench, "kek", os.path.join(cls.out, "comparison.json")],
            cwd=helpers.TOP, env=env, capture_output=True, text=True,
            timeout=120)

    def test_every_kek_test_ran_paired_without_failure(self):
        decided = self.decided
        self.assertEqual(0, decided.returncode,
                         decided.stdout[-3000:] + decided.stderr[-2000:])
        with open(os.path.join(self.out, "comparison.json")) as f:
            report = json.load(f)
        headline = {m["name"] for m in report["metrics"] if m["headline"]}
        rows = [r for r in report["rows"]
                if r["platform"].startswith("docker")
                and r["metric"] in headline]
        for test in TESTS:
            found = [r for r in rows
                     if r["metric"].startswith("sysbench.%s." % test)]
            self.assertEqual(1, len(found), (test, sorted(headline)))
            (row,) = found
            self.assertEqual(0, row["failed"], test)
            self.assertGreaterEqual(row["pairs"], 2, test)
            self.assertIsNotNone(row["change"], test)
        phases = {r["metric"] for r in report["rows"]
                  if r["platform"].startswith("docker") and r["mean"]}
        self.assertLessEqual({"build", "network", "build+network", "delete"},
                             phases)
        with open(os.path.join(self.out, "decide.json")) as f:
            (uuid,) = json.load(f)["tasks"]
        self.assertEqual([], self.containers(uuid))

    def test_kek_is_answered_where_this_run_can_and_says_why_not(self):
        self.assertEqual(0, self.kek.returncode, self.kek.stderr)
        lines = {line.split(" | ")[0].lstrip("| "): line
                 for line in self.kek.stdout.splitlines()
                 if line.startswith("| ") and "**" in line}
        self.assertEqual(len(kek.CLAIMS), len(lines))
        measured = ("Docker is 2-5% worse than native",
                    "Docker achieves native performance (fileio read)",
                    "In the case of single request, Docker sequential "
                    "write")
        for words, line in lines.items():
            if words.startswith(measured):
                self.assertNotIn(kek.UNCHECKED, line, words)
                self.assertRegex(line, r"docker-\w+ [\w.]+ at 1 [+-]\d",
                                 words)
            elif "KVM" in words:
                self.assertIn("no vm", line, words)
