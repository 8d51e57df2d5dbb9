"""The native executor and the sysbench runner on real processes: Debian's
sysbench 1.0.20 and sysbench 0.4.12 built from third_party/."""

import os
import shutil
import tempfile
import time
import unittest

from rally_container_bench.core import base
from rally_container_bench.engines.native import instance as native
from rally_container_bench.workloads.sysbench import presets
from rally_container_bench.workloads.sysbench import run as sysbench_run

from tests.functional import helpers


class NativeExecutorTestCase(unittest.TestCase):

    def setUp(self):
        self.executor = native.NativeExecutor()

    def test_argv_is_not_interpreted_by_a_shell(self):
        with tempfile.TemporaryDirectory() as scratch:
            marker = os.path.join(scratch, "pwned")
            result = self.executor.run(
                ["echo", "; touch %s" % marker, "$(id)"], timeout=10)
            self.assertEqual(0, result.exit_code)
            self.assertEqual("; touch %s $(id)\n" % marker, result.stdout)
            self.assertFalse(os.path.exists(marker))

    def test_exit_code_and_cwd(self):
        with tempfile.TemporaryDirectory() as scratch:
            result = self.executor.run(["sh", "-c", "pwd; exit 3"],
                                       timeout=10, cwd=scratch)
        self.assertEqual((3, scratch + "\n"), (result.exit_code,
                                               result.stdout))
        with self.assertRaises(base.CommandFailed) as ctx:
            result.check("the probe")
        self.assertIs(result, ctx.exception.result)

    def test_timeout_kills_the_command(self):
        started = time.monotonic()
        with self.assertRaisesRegex(base.CommandTimeout, "within 1 s"):
            self.executor.run(["sysbench", "cpu", "--time=60",
                               "--cpu-max-prime=19993", "run"], timeout=1)
        self.assertLess(time.monotonic() - started, 10)
        self.assertEqual([], helpers.processes("cpu-max-prime=19993"))

    def test_missing_executable(self):
        with self.assertRaisesRegex(base.DriverError, "cannot start"):
            self.executor.run(["/nonexistent/sysbench", "--version"], 5)

    def test_describe_names_the_host(self):
        info = self.executor.describe()
        self.assertEqual("native", info["driver"])
        self.assertTrue(info["host_kernel"])
        self.assertGreaterEqual(info["host_cpus"], 1)


class SysbenchOnTheHostMixin(object):
    """Every quick preset through run_test on one real sysbench."""

    executable = None

    def setUp(self):
        if not self.executable or not shutil.which(self.executable):
            self.skipTest("sysbench %s not available" % self.expected)
        self.executor = native.NativeExecutor()

    def test_version_detection(self):
        self.assertEqual(self.expected, sysbench_run.detect_version(
            self.executor, self.executable, 10))

    def test_every_quick_preset_runs_and_parses(self):
        for name in presets.QUICK:
            with self.subTest(preset=name), \
                    tempfile.TemporaryDirectory() as scratch:
                spec = presets.get(name)
                run = sysbench_run.run_test(
                    self.executor, spec, self.expected, self.executable,
                    scratch, timeout=120)
                self.assertEqual((spec.test, self.expected),
                                 (run.result.test, run.result.version))
                self.assertGreater(run.result.metrics["total_time_s"].value,
                                   0)
                # cleanup removed the fileio test files
                self.assertEqual([], os.listdir(scratch))

    def test_threads_reach_sysbench(self):
        spec = presets.get("quick-cpu").with_threads(2)
        run = sysbench_run.run_test(self.executor, spec, self.expected,
                                    self.executable, None, timeout=60)
        self.assertEqual(2, run.result.threads)

    def test_full_disk_fails_cleanly(self):
        scratch = tempfile.mkdtemp(prefix="rcbench-full-")
        self.addCleanup(os.rmdir, scratch)
        mounted = self.executor.run(
            ["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", scratch], 10)
        if mounted.exit_code != 0:
            self.skipTest("cannot mount a small tmpfs: %s" % mounted.stderr)
        self.addCleanup(self.executor.run, ["umount", scratch], 10)
        with self.assertRaises(sysbench_run.SysbenchError) as ctx:
            sysbench_run.run_test(self.executor,
                                  presets.get("quick-fileio-seqwr"),
                                  self.expected, self.executable, scratch,
                                  timeout=60)
        self.assertIn("prepare exited", str(ctx.exception))
        self.assertTrue(ctx.exception.raw)


class ModernSysbenchTestCase(SysbenchOnTheHostMixin, unittest.TestCase):
    executable = "sysbench"
    expected = "1.0.20"


class LegacySysbenchTestCase(SysbenchOnTheHostMixin, unittest.TestCase):
    expected = "0.4.12"

    @property
    def executable(self):
        return helpers.sysbench04()
