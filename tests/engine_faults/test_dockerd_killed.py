"""dockerd dies in the middle of a task (SIGKILL, as a crash or the OOM
killer would), while instances boot.

Run alone (tox -e functional runs it after tests/functional, serially):
it kills the shared dockerd, which every other Docker test uses, and
starts it again. Only a dockerd that ``rcbench engines start`` started
is killed; on a host whose init system runs dockerd the test is skipped.
"""

import json
import os
import re
import signal
import subprocess
import threading
import time

from rally_container_bench.core import processes
from rally_container_bench.engines import daemons

from tests.functional import helpers

_STARTED = re.compile(r"Task +([0-9a-f-]{36}): started")
# The third iteration starting: two have run, one boots now.
_THIRD_STARTS = re.compile(r"ITER: 3 START")


class DockerdKilledTestCase(helpers.DockerRallyTestCase):

    def setUp(self):
        (self.dockerd,) = daemons.daemons(self.conf)["docker"]
        if self.dockerd.started_pid() is None:
            self.skipTest("dockerd was not started by rcbench engines start "
                          "(this test kills it and starts it again)")
        # Whatever happens, dockerd runs again after the test.
        self.addCleanup(self.dockerd.start)

    def remove_containers_of(self, task_uuid):
        self.dockerd.start()
        for name in self.containers(task_uuid):
            helpers.discard_if_left("docker", name, self.conf)

    def start_rally(self):
        path = os.path.join(self.home.path, "task.json")
        with open(path, "w") as f:
            json.dump({"version": 2, "title": "dockerd killed", "subtasks": [{
                "title": "docker", "workloads": [{
                    "scenario": {"LocalInstances.boot_and_delete": {
                        "driver": "docker"}},
                    "runner": {"constant": {"times": 12, "concurrency": 1}},
                    "sla": {"failure_rate": {"max": 100}}}]}]}, f)
        rally = self.home.popen("task", "start", path, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, text=True)
        self.addCleanup(rally.stdout.close)
        self.addCleanup(processes.end_group, rally)
        return rally

    def test_iterations_fail_clearly_results_stay_cleanup_gets_the_rest(self):
        rally = self.start_rally()
        output, task_uuid = [], None
        for line in rally.stdout:
            output.append(line)
            task_uuid = task_uuid or (_STARTED.search(line) or [None, None])[1]
            if _THIRD_STARTS.search(line):
                self.dockerd.kill(signal.SIGKILL)
                break
        self.assertIsNotNone(task_uuid, "".join(output))
        self.addCleanup(self.remove_containers_of, task_uuid)
        threading.Thread(target=output.extend, args=(rally.stdout,),
                         daemon=True).start()
        try:
            rally.wait(timeout=300)
        except subprocess.TimeoutExpired:
            self.fail("rally still runs 300 s after dockerd died:\n"
                      + "".join(output[-80:]))
        time.sleep(0.5)  # the reader thread takes the last lines
        # At once, as an operator would: dockerd's own pid file still names
        # the killed process (it refused to start over it).
        self.dockerd.start()

        status = self.home.rally("task", "status", task_uuid).stdout
        self.assertIn("finished", status)
        (workload,) = helpers.workloads(self.home.results(task_uuid))
        self.assertEqual(12, len(workload["data"]))
        ok = [i for i in workload["data"] if not i["error"]]
        failed = [i for i in workload["data"] if i["error"]]
        # The two before the kill are kept; the rest failed, saying why.
        self.assertGreaterEqual(len(ok), 2)
        self.assertGreaterEqual(len(failed), 9)
        for iteration in failed:
            self.assertIn("dockerd does not answer at %s"
                          % self.conf.docker_url,
                          " ".join(iteration["error"]))

        leaked = self.containers(task_uuid)
        if leaked:
            self.assertIn("once it does, run: rcbench cleanup --task %s"
                          % task_uuid, "".join(output))
        done = subprocess.run(
            [os.path.join(helpers.BIN, "rcbench"), "cleanup", "--task",
             task_uuid, "--rally-config", self.home.conf],
            capture_output=True, text=True, timeout=300)
        self.assertEqual(0, done.returncode, done.stderr)
        self.assertEqual(sorted("deleted docker %s" % n for n in leaked),
                         sorted(done.stdout.splitlines()))
        self.assertEqual([], self.containers(task_uuid))
