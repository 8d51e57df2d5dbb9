"""A cloud run with no twin on the instances' hosts, on the real test cloud.

An env made from the cloud's spec without its extras (a user's own env,
with no compute_hosts named): rcbench decide refuses it before anything
boots; a plain ``rally task start`` runs, and its comparison gives the
libvirt-LXC cell (on the compute hosts aio-lxc and aio-lxc-2) no verdict
against native measured on the Rally host, with a warning box that
Chromium finds; the Zun cell, whose containers run on the Rally host
itself in this one-node cloud, keeps its verdict. Skips without the
cloud.
"""

import json
import os
import re
import shutil
import subprocess
import tempfile
import time
import unittest

from rally_container_bench.report import comparison
from tests.functional import helpers
from tests.functional_openstack import cloud

ENV = "aio-bare"
# native, Zun and libvirt-LXC at 1, one cpu test, 3 iterations: the
# fewest a verdict takes (report.equivalence.MIN_N)
PLAIN_ARGS = {"platforms": ["native", "container"],
              "container": ["zun", "nova-lxc"], "concurrency": [1],
              "min_concurrency": {}, "times": 3, "tests": ["quick-cpu"],
              "boot_and_delete": False, "spread": False}
CPU = "sysbench.cpu.events_per_s"


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

    def test_a_plain_run_gives_no_verdict_off_natives_host(self):
        uuid, _ = self.home.start(
            cloud.TASK, "--task-args-file", cloud.ARGS, "--task-args",
            json.dumps(PLAIN_ARGS), "--env", ENV, timeout=1200)
        self.addCleanup(self.assert_nothing_left, uuid)
        results = os.path.join(self.tmp, "rally.json")
        with open(results, "w") as f:
            json.dump(self.home.results(uuid), f)
        out = os.path.join(self.tmp, "compare")
        proc = self.rcbench("compare", results, "--out", out)
        self.assertEqual(0, proc.returncode, proc.stderr)
        report = comparison.build([self.home.results(uuid)])
        native = next(p for p in report["platforms"]
                      if p["label"] == "native")
        rally_host = dict(native["environment"])["host"]
        labels = {p["driver"]: p["label"] for p in report["platforms"]}
        hosts = {c["platform"]: list(c["hosts"])
                 for c in report["placement"]}
        # This one-node cloud's Zun runs its containers on the Rally host
        # itself, where native ran: unpaired, yet on native's own host,
        # so a verdict (placement.off_native_host).
        self.assertEqual([rally_host], hosts[labels["zun"]])
        for row in comparison.rows_for(report, CPU, labels["zun"]):
            self.assertNotIn("against the Rally host's native", row["note"])
            self.assertNotEqual("not comparable", row["verdict"])
        # Nova's libvirt-LXC hosts are other names: no verdict.
        lxc = labels["nova"]
        lxc_hosts = hosts[lxc]
        self.assertTrue(lxc_hosts)
        self.assertNotIn(rally_host, lxc_hosts)
        rows = comparison.rows_for(report, CPU, lxc)
        self.assertTrue(rows, [r["platform"] for r in report["rows"]])
        for row in rows:
            self.assertEqual("not comparable", row["verdict"])
            self.assertIn("against the Rally host's native", row["note"])
        (warning,) = [w for w in report["warnings"]
                      if w.startswith("not comparable")]
        self.assertIn("%s at 1 (on " % lxc, warning)
        for host in lxc_hosts:
            self.assertIn(host, warning)
        with open(os.path.join(out, "comparison.json")) as f:
            self.assertEqual(report["warnings"], json.load(f)["warnings"])
        with open(os.path.join(out, "comparison.md")) as f:
            self.assertIn("not comparable: %s at 1" % lxc, f.read())
        if helpers.CHROMIUM:
            dom = helpers.offline_dom(
                "file://" + os.path.join(out, "comparison.html"),
                os.path.join(self.tmp, "profile"))
            boxes = re.findall(r'<div class="warning">(.*?)</div>', dom,
                               re.S)
            self.assertTrue([b for b in boxes if "not comparable" in b
                             and lxc_hosts[0] in b], boxes)

    def assert_nothing_left(self, uuid):
        left = cloud.leftovers([uuid])
        self.assertEqual({key: [] for key in left}, left)
