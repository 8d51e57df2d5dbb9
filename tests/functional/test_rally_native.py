"""NativeHost.sysbench through Rally's own CLI and DB, as a user runs it."""

import json
import os
import signal
import subprocess
import tempfile
import time
import unittest

from rally_container_bench.core import base
from rally_container_bench.core import processes

from tests.functional import helpers

SAMPLE = os.path.join("samples", "tasks", "scenarios", "native-host",
                      "sysbench.yaml")
TASK = os.path.join("tasks", "native_baseline.yaml")


class RallyNativeTestCase(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.home = helpers.RallyHome()

    @classmethod
    def tearDownClass(cls):
        cls.home.close()

    def test_plugin_list_shows_the_scenario(self):
        out = self.home.rally("plugin", "list", "NativeHost").stdout
        self.assertIn("NativeHost.sysbench", out)
        self.assertIn("default", out)

    def test_cleanup_of_an_unknown_task_is_refused(self):
        proc = subprocess.run(
            [os.path.join(helpers.BIN, "rcbench"), "cleanup", "--task",
             "00000000-1111-2222-3333-444444444444", "--rally-config",
             self.home.conf], capture_output=True, text=True, timeout=120)
        self.assertEqual(2, proc.returncode)
        self.assertIn("Rally's DB has no task "
                      "00000000-1111-2222-3333-444444444444", proc.stderr)
        self.assertEqual("", proc.stdout)

    def test_validate_rejects_bad_input_before_running(self):
        proc = self.home.rally(
            "task", "validate", TASK, "--task-args",
            json.dumps({"tests": ["quick-cpu", "fast-cpu"]}), check=False)
        self.assertNotEqual(0, proc.returncode)
        self.assertIn("unknown sysbench preset 'fast-cpu'",
                      proc.stdout + proc.stderr)
        self.assertEqual(0, self.home.rally("task", "validate",
                                            SAMPLE).returncode)

    def test_validate_rejects_fileio_larger_than_the_workdir(self):
        workdir = tempfile.mkdtemp(prefix="rcbench-small-")
        self.addCleanup(os.rmdir, workdir)
        mount = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m",
                                "tmpfs", workdir], capture_output=True)
        if mount.returncode != 0:
            self.skipTest("cannot mount a small tmpfs: %s" % mount.stderr)
        self.addCleanup(subprocess.run, ["umount", workdir])
        task = os.path.join(self.home.path, "small-disk.yaml")
        with open(task, "w") as f:
            f.write(_FULL_DISK_TASK % json.dumps(workdir))
        proc = self.home.rally(
            "task", "validate", task, "--task-args", json.dumps(
                {"concurrency": [2], "times": 1,
                 "tests": ["quick-fileio-seqwr"]}), check=False)
        self.assertNotEqual(0, proc.returncode)
        self.assertIn("concurrency 2 x 64 MiB of test files = 128 MiB, "
                      "but %s has 1 MiB free" % workdir,
                      proc.stdout + proc.stderr)

    def test_sample_runs_with_no_failure_and_reports_metrics(self):
        uuid, _ = self.home.start(SAMPLE)
        report = self.home.results(uuid)
        (workload,) = helpers.workloads(report)
        self.assertEqual(4, workload["total_iteration_count"])
        self.assertEqual(0, workload["failed_iteration_count"])
        for iteration in workload["data"]:
            self.assertIsNone(iteration["error"] or None)
            self.assertEqual(["sysbench.cpu", "sysbench.memory.read",
                              "sysbench.fileio.rndrd"],
                             helpers.atomic_names(iteration))
            tables = helpers.additive(iteration)
            self.assertGreater(
                tables["sysbench cpu"]["events_per_s (events/s)"], 0)
            self.assertGreater(tables["sysbench memory.read"]
                               ["mib_per_s (MiB/s)"], 0)
            self.assertGreater(tables["sysbench fileio.rndrd"]
                               ["reads_per_s (reads/s)"], 0)
            environment = helpers.environment(iteration)
            self.assertEqual("native", environment["driver"])
        html = os.path.join(self.home.path, uuid + ".html")
        self.home.rally("task", "report", uuid, "--out", html)
        with open(html) as f:
            page = f.read()
        for text in ("NativeHost.sysbench", "sysbench.cpu", "events_per_s"):
            self.assertIn(text, page)

    def test_task_file_runs_legacy_sysbench_at_two_concurrencies(self):
        legacy = helpers.sysbench04()
        if not legacy:
            self.skipTest("sysbench 0.4.12 could not be built here")
        args = {"concurrency": [1, 2], "times": 2,
                "tests": ["quick-cpu", "quick-fileio-seqrd"],
                "sysbench_path": legacy}
        uuid, _ = self.home.start(TASK, "--task-args", json.dumps(args))
        found = []
        for workload in helpers.workloads(self.home.results(uuid)):
            self.assertEqual(0, workload["failed_iteration_count"])
            found.append(workload["runner"]["constant"]["concurrency"])
            for iteration in workload["data"]:
                environment = helpers.environment(iteration)
                self.assertEqual("0.4.12", environment["sysbench_version"])
                # 0.4 states no events/s: fixed work, compared by time.
                cpu = helpers.additive(iteration)["sysbench cpu"]
                self.assertNotIn("events_per_s (events/s)", cpu)
                self.assertGreater(cpu["total_time_s (s)"], 0)
        self.assertEqual([1, 2], found)

    def test_failed_test_keeps_the_other_results(self):
        workdir = tempfile.mkdtemp(prefix="rcbench-full-")
        self.addCleanup(os.rmdir, workdir)
        # Out of inodes: a full disk that validation cannot foresee (it
        # checks the bytes fileio needs, and 256 MiB are free). The root
        # and the two iterations' directories take three of the four.
        mount = subprocess.run(["mount", "-t", "tmpfs", "-o",
                                "size=256m,nr_inodes=4", "tmpfs", workdir],
                               capture_output=True)
        if mount.returncode != 0:
            self.skipTest("cannot mount a small tmpfs: %s" % mount.stderr)
        self.addCleanup(subprocess.run, ["umount", workdir])
        args = {"concurrency": [2], "times": 2, "tests": [
            "quick-cpu", "quick-fileio-seqwr", "quick-memory-write"]}
        task = os.path.join(self.home.path, "full-disk.yaml")
        with open(task, "w") as f:
            f.write(_FULL_DISK_TASK % json.dumps(workdir))
        uuid, _ = self.home.start(task, "--task-args", json.dumps(args))
        (workload,) = helpers.workloads(self.home.results(uuid))
        self.assertEqual(2, workload["failed_iteration_count"])
        for iteration in workload["data"]:
            self.assertIn("1 of 3 tests failed",
                          " ".join(iteration["error"]))
            self.assertEqual({"sysbench cpu", "sysbench memory.write"},
                             set(helpers.additive(iteration)))
        self.assertEqual([], os.listdir(workdir))

    def test_ctrl_c_stops_rally_and_every_sysbench(self):
        marker = "cpu-max-prime=19991"
        task = os.path.join(self.home.path, "long.yaml")
        with open(task, "w") as f:
            f.write(_LONG_TASK)
        rally = self.home.popen("task", "start", task,
                                stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL)
        self.addCleanup(processes.end_group, rally)
        base.wait_until(lambda: len(helpers.processes(marker)) >= 2, 60, 0.2,
                        "2 sysbench processes")
        processes.signal_child(rally, signal.SIGINT, group=True)
        rally.wait(timeout=60)
        time.sleep(0.5)
        self.assertEqual([], helpers.processes(marker))


_LONG_TASK = """---
version: 2
title: interrupted
subtasks:
  - title: two long sysbench runs
    workloads:
      - scenario:
          NativeHost.sysbench:
            tests: [{"test": "cpu", "cpu_max_prime": 19991, "time": 120}]
        runner:
          constant:
            times: 2
            concurrency: 2
"""

_FULL_DISK_TASK = """---
version: 2
title: full disk
subtasks:
  - title: one test fails, the others report
    workloads:
      - scenario:
          NativeHost.sysbench:
            tests: {{ tests | tojson }}
            workdir: %s
        runner:
          constant:
            times: {{ times }}
            concurrency: {{ concurrency[0] }}
"""


class NativeOverSSHTestCase(helpers.DockerRallyTestCase):
    """NativeHost.sysbench with host/key_file, over SSH.

    The baseline on a compute node; the "node" here is a guest
    container's sshd on loopback.
    """

    def write_task(self, **args):
        task = {"version": 2, "title": "native over SSH", "subtasks": [{
            "title": "native over SSH", "workloads": [{
                "scenario": {"NativeHost.sysbench": args},
                "runner": {"constant": {"times": 2, "concurrency": 2}},
                "sla": {"failure_rate": {"max": 0}}}]}]}
        path = os.path.join(self.home.path, "native-ssh.json")
        with open(path, "w") as f:
            json.dump(task, f)
        return path

    def test_sysbench_on_another_host_over_ssh(self):
        from rally_container_bench.engines import registry
        driver = registry.prepared_instance("docker", self.conf)
        node = driver.create("rcbench-test-native-node")
        self.addCleanup(driver.wait_deleted, node, 120)
        self.addCleanup(driver.delete, node)
        driver.wait_running(node, 120)
        driver.wait_reachable(node, 120)
        path = self.write_task(
            tests=["quick-cpu", "quick-fileio-rndrd"], host=node.ssh_host,
            port=node.ssh_port, key_file=driver.image.private_key)
        uuid, _ = self.home.start(path)
        workload = next(helpers.workloads(self.home.results(uuid)))
        self.assertEqual(2, len(workload["data"]))
        for iteration in workload["data"]:
            self.assertFalse(iteration["error"])
            env = helpers.environment(iteration)
            self.assertEqual(("native", node.ssh_host),
                             (env["driver"], env["host"]))
            out = helpers.additive(iteration)
            self.assertGreater(out["sysbench cpu"]["events_per_s (events/s)"],
                               0)
        # The private fileio directories made over there are gone.
        listing = driver.executor(node).run(
            ["sh", "-c", "ls -d /tmp/rcbench-native-* 2>/dev/null; true"],
            timeout=60)
        self.assertEqual("", listing.stdout.strip())

    def test_a_missing_key_file_fails_validation(self):
        path = self.write_task(tests=["quick-cpu"], host="127.0.0.1",
                               key_file="/nonexistent/key")
        proc = self.home.rally("task", "validate", path, check=False)
        self.assertNotEqual(0, proc.returncode)
        self.assertIn("key_file '/nonexistent/key' is not a readable file",
                      proc.stdout + proc.stderr)
