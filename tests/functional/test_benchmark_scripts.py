"""The benchmark scripts run on every driver they offer (real engines)."""

import json
import subprocess
import sys
import unittest

from tests.functional import helpers


class DriverOverheadTestCase(unittest.TestCase):

    def test_lxc_reports_what_it_can_measure(self):
        # LXC has no engine CLI cycle to compare and no engine timestamps:
        # the script says so instead of crashing.
        helpers.usable_conf(self, "lxc")
        proc = subprocess.run(
            [sys.executable, "-m", "benchmarks.driver_overhead", "--rounds",
             "1", "--drivers", "lxc", "--cpu-seconds", "2"],
            cwd=helpers.TOP, capture_output=True, text=True, timeout=300)
        self.assertEqual(0, proc.returncode, proc.stderr[-3000:])
        report = json.loads(proc.stdout)["lxc"]
        self.assertGreater(report["lifecycle_driver_median_s"], 0)
        self.assertIn("n/a", report["lifecycle_cli_median_s"])
        self.assertIn("n/a", report["build_minus_engine_interval_ms"])
        self.assertGreater(report["harness_cpu_share_of_one_core"], 0)
