"""The periodic job against the real all-in-one cloud, as tox -e periodic
runs it: the Rally env made from an env spec file (RCBENCH_ENV_SPEC), a
small slice of tasks/kvm_vs_docker.yaml (native and libvirt-LXC servers
at concurrency 1), everything exported, made the baseline. Skips without the
cloud."""

import json
import os
import shutil
import subprocess
import tempfile
import unittest

from tests.functional import helpers
from tests.functional_openstack import test_kvm_vs_docker as aio

TASK_ARGS = json.dumps({"platforms": ["native", "container"],
                        "container": "nova-lxc", "concurrency": [1],
                        "boot_and_delete": False, "tests": ["quick-cpu"]})


class PeriodicOnTheCloudTestCase(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        spec = os.path.join(aio.AIO, "rally-env.json")
        if not os.access(spec, os.R_OK):
            raise unittest.SkipTest("no all-in-one cloud here: run "
                                    "tools/openstack-aio/setup.sh")
        cls.home = helpers.RallyHome()
        cls.tmp = tempfile.mkdtemp(prefix="rcbench-periodic-cloud-")
        cls.results = os.path.join(cls.tmp, "results")
        cls.baseline = os.path.join(cls.results, "baseline.json")
        cls.proc = subprocess.run(
            [os.path.join(helpers.BIN, "rcbench"), "periodic",
             "--task", aio.TASK, "--task-args-file", aio.ARGS,
             "--task-args", TASK_ARGS, "--results", cls.results,
             "--baseline", cls.baseline, "--promote-if-missing",
             "--rally-config", cls.home.conf],
            capture_output=True, text=True, cwd=helpers.TOP,
            env=dict(os.environ, HOME=cls.home.path,
                     XDG_CACHE_HOME=helpers.CACHE_HOME,
                     RCBENCH_ENV_SPEC=spec))
        cls.run_dir = os.path.realpath(os.path.join(cls.results, "latest"))

    @classmethod
    def tearDownClass(cls):
        cls.home.close()
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def test_the_run_passes_and_exports_everything(self):
        self.assertEqual(0, self.proc.returncode,
                         self.proc.stdout[-3000:] + self.proc.stderr[-3000:])
        self.assertIn("created Rally env rcbench-periodic", self.proc.stdout)
        for name in ("rally.json", "report.html", "junit.xml",
                     "comparison.html", "comparison.md", "run.json"):
            self.assertTrue(os.path.getsize(os.path.join(self.run_dir,
                                                         name)), name)
        self.assertTrue(os.path.isfile(self.baseline))

    def test_junit_names_each_workload_without_failures(self):
        with open(os.path.join(self.run_dir, "junit.xml")) as f:
            junit = f.read()
        self.assertIn('failures="0"', junit)
        self.assertIn('classname="NovaInstances"', junit)
        self.assertIn('classname="NativeHost"', junit)

    def test_comparison_has_lxc_against_native(self):
        with open(os.path.join(self.run_dir, "comparison.json")) as f:
            report = json.load(f)
        labels = {p["label"] for p in report["platforms"]}
        self.assertEqual({"native", "nova-lxc"}, labels)

    def test_no_secret_in_what_it_printed_or_wrote(self):
        password = aio.read_secrets()["ADMIN_PASS"]
        self.assertNotIn(password, self.proc.stdout + self.proc.stderr)
        for name in os.listdir(self.run_dir):
            with open(os.path.join(self.run_dir, name),
                      errors="replace") as f:
                self.assertNotIn(password, f.read(), name)
