"""A cloud run with no twin on the instances' hosts, on the real test cloud.

An env made from the cloud's spec without its extras (a user's own env,
with no compute_hosts named): rcbench decide refuses it before anything
boots; a plain ``rally task start`` runs, and its comparison gives the
Zun cell no verdict against native measured on the Rally host, with a
warning box that Chromium finds. Skips without the cloud.
"""

import json
import os
import shutil
import subprocess
import tempfile
import time
import unittest

from rally_container_bench.report import comparison
from tests.functional import helpers
from tests.functional_openstack import cloud

ENV = "aio-bare"
# native and Zun at 1, one cpu test, 3 iterations: the fewest a verdict
# takes (report.equivalence.MIN_N)
PLAIN_ARGS = {"platforms": ["native", "container"], "container": ["zun"],
              "concurrency": [1], "min_concurrency": {}, "times": 3,
              "tests": ["quick-cpu"], "boot_and_delete": False}


class UnpairedCloudTestCase(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        with open(cloud.env_spec()) as f:
            spec = json.load(f)
        spec.pop("!extras", None)
        cls.tmp = tempfile.mkdtemp(prefix="rcbench-unpaired-")
        bare = os.path.join(cls.tmp, "rally-env.json")
        with open(bare, "w") as f:
            json.dump(spec, f)
        cls.home = helpers.RallyHome(envs=(("local", None), (ENV, bare)))

    @classmethod
    def tearDownClass(cls):
        cls.home.close()
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def rcbench(self, *args, timeout=300):
        return subprocess.run(
            [os.path.join(helpers.BIN, "rcbench")] + list(args),
            capture_output=True, text=True, cwd=helpers.TOP, timeout=timeout,
            env=dict(os.environ, HOME=self.home.path,
                     XDG_CACHE_HOME=helpers.CACHE_HOME))

    def test_decide_refuses_before_anything_boots(self):
        started = time.monotonic()
        proc = self.rcbench(
            "decide", "--task", cloud.TASK, "--task-args-file", cloud.ARGS,
            "--env", ENV, "--rally-config", self.home.conf,
            "--out", os.path.join(self.tmp, "decide"), timeout=120)
        took = time.monotonic() - started
        self.assertEqual(2, proc.returncode, proc.stdout + proc.stderr)
        self.assertLess(took, 120)
        said = proc.stderr
        self.assertIn("a cloud run needs compute_hosts", said)
        # the hosts the env's admin sees, through Nova and Zun
        self.assertIn("nova: aio-lxc, aio-lxc-2, aio-qemu, aio-qemu-2", said)
        self.assertIn("zun: ", said)
        self.assertIn("--compute-hosts FILE", said)
        # nothing started: no task in its Rally
        listed = self.home.rally("task", "list").stdout
        self.assertNotIn("running", listed)
        self.assertFalse(os.path.exists(os.path.join(self.tmp, "decide",
                                                     "rally.json")))

    def test_a_plain_zun_run_on_the_rally_host_keeps_its_verdict(self):
        uuid, _ = self.home.start(
            cloud.TASK, "--task-args-file", cloud.ARGS, "--task-args",
            json.dumps(PLAIN_ARGS), "--env", ENV, timeout=1200)
        results = os.path.join(self.tmp, "rally.json")
        with open(results, "w") as f:
            json.dump(self.home.results(uuid), f)
        out = os.path.join(self.tmp, "compare")
        proc = self.rcbench("compare", results, "--out", out)
        self.assertEqual(0, proc.returncode, proc.stderr)
        report = comparison.build([self.home.results(uuid)])
        # zun's label names its runtime (zun-runc)
        label = next(p["label"] for p in report["platforms"]
                     if p["driver"] == "zun")
        zun = [r for r in comparison.rows_for(report, platform=label)
               if r["metric"] == "sysbench.cpu.events_per_s"]
        self.assertTrue(zun, [r["platform"] for r in report["rows"]])
        # This one-node cloud's Zun runs its containers on the Rally host
        # itself, where native ran: unpaired, yet on native's own host,
        # so a verdict (placement.off_native_host; its cross-host cells
        # are tests/unit's). Nova's hosts here are other names.
        (cell,) = [c for c in report["placement"] if c["platform"] == label]
        native = next(p for p in report["platforms"]
                      if p["label"] == "native")
        self.assertEqual([dict(native["environment"])["host"]],
                         list(cell["hosts"]), report["placement"])
        for row in zun:
            self.assertNotIn("against the Rally host's native", row["note"])
        self.assertEqual([], [w for w in report["warnings"]
                              if w.startswith("not comparable")])
        with open(os.path.join(out, "comparison.json")) as f:
            self.assertEqual(report["warnings"], json.load(f)["warnings"])
        left = cloud.leftovers([uuid])
        self.assertEqual({key: [] for key in left}, left)
