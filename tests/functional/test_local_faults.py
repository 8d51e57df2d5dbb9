"""Faults on a real engine (Docker): Ctrl-C, a killed Rally, secrets.

After each: no instance of the task is left (asked from the engine), and
what finished is in Rally's DB.
"""

import json
import os
import re
import signal
import subprocess
import threading
import time

from rally_container_bench.drivers import registry

from tests.functional import helpers

_ITERATION_END = re.compile(r"Task ([0-9a-f-]{36}) \| ITER: \d+ END")


def _task(times, concurrency, tests):
    return json.dumps({
        "version": 2, "title": "faults",
        "subtasks": [{"title": "docker", "workloads": [{
            "scenario": {"LocalInstances.boot_sysbench_delete": {
                "driver": "docker", "tests": tests}},
            "runner": {"constant": {"times": times,
                                    "concurrency": concurrency}}}]}]})


class DockerFaultsTestCase(helpers.DockerRallyTestCase):

    def start_rally(self, task_text):
        path = os.path.join(self.home.path, "task-%d.json" % time.time_ns())
        with open(path, "w") as f:
            f.write(task_text)
        rally = self.home.popen("task", "start", path, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, text=True)
        self.addCleanup(rally.stdout.close)
        self.addCleanup(helpers.kill_group, rally.pid)
        return rally

    def wait_for_iteration_end(self, rally, timeout=120):
        """The task uuid, once Rally logged the end of an iteration."""
        deadline = time.monotonic() + timeout
        for line in rally.stdout:
            match = _ITERATION_END.search(line)
            if match:
                # Keep reading, so Rally never blocks on a full pipe.
                threading.Thread(target=rally.stdout.read,
                                 daemon=True).start()
                return match.group(1)
            self.assertLess(time.monotonic(), deadline)
        self.fail("rally ended before any iteration did")

    def test_ctrl_c_keeps_finished_iterations_and_leaves_nothing(self):
        rally = self.start_rally(_task(50, 2, ["quick-cpu"]))
        uuid = self.wait_for_iteration_end(rally)
        os.killpg(rally.pid, signal.SIGINT)
        rally.wait(timeout=180)
        self.assertEqual([], self.containers(uuid))
        (workload,) = helpers.workloads(self.home.results(uuid))
        finished = [i for i in workload["data"] if not i["error"]]
        self.assertGreaterEqual(len(finished), 1)
        self.assertLess(len(workload["data"]), 50)
        for iteration in finished:
            self.assertIn("sysbench cpu", helpers.additive(iteration))

    def test_rally_task_abort_leaves_nothing(self):
        rally = self.start_rally(_task(50, 2, ["quick-cpu"]))
        uuid = self.wait_for_iteration_end(rally)
        self.home.rally("task", "abort", uuid)
        rally.wait(timeout=180)
        status = self.home.rally("task", "status", uuid).stdout
        self.assertIn("aborted", status)
        self.assertEqual([], self.containers(uuid))
        (workload,) = helpers.workloads(self.home.results(uuid))
        self.assertGreaterEqual(
            len([i for i in workload["data"] if not i["error"]]), 1)

    def test_rcbench_cleanup_after_rally_was_killed(self):
        # A long test keeps the instances up; SIGKILL leaves them behind,
        # as a crashed Rally host would.
        rally = self.start_rally(_task(2, 2, [
            {"test": "cpu", "cpu_max_prime": 19997, "time": 300}]))
        threading.Thread(target=rally.stdout.read, daemon=True).start()
        deadline = time.monotonic() + 120
        while len(self.containers()) < 2:
            self.assertLess(time.monotonic(), deadline, "no containers")
            time.sleep(0.5)
        os.killpg(rally.pid, signal.SIGKILL)
        rally.wait(timeout=60)
        leaked = self.containers()
        self.assertEqual(2, len(leaked))
        rcbench = os.path.join(helpers.BIN, "rcbench")
        dry = subprocess.run([rcbench, "cleanup", "--dry-run"],
                             capture_output=True, text=True, timeout=120)
        self.assertEqual(0, dry.returncode, dry.stderr)
        self.assertEqual(sorted("would delete docker %s" % n for n in leaked),
                         sorted(line for line in dry.stdout.splitlines()
                                if "docker" in line))
        self.assertEqual(leaked, self.containers())
        done = subprocess.run([rcbench, "cleanup"], capture_output=True,
                              text=True, timeout=300)
        self.assertEqual(0, done.returncode, done.stderr)
        self.assertEqual([], self.containers())

    def test_no_private_key_in_any_output(self):
        image = registry.guest_image(self.conf)
        with open(os.path.join(image.dir, "id_ed25519")) as f:
            key_lines = [line.strip() for line in f
                         if line.strip() and "PRIVATE KEY" not in line]
        uuid, stdout = self.home.start(os.path.join(
            "samples", "tasks", "scenarios", "local-instances",
            "boot-sysbench-delete.yaml"))
        html = os.path.join(self.home.path, "report.html")
        self.home.rally("task", "report", uuid, "--out", html)
        with open(html) as f:
            outputs = {"task start": stdout, "html": f.read(),
                       "json": json.dumps(self.home.results(uuid))}
        for name, text in outputs.items():
            with self.subTest(output=name):
                self.assertNotIn("PRIVATE KEY", text)
                for line in key_lines:
                    self.assertNotIn(line, text)
