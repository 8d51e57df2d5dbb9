"""An engine that loses an instance in the middle of its work: Docker's
shim killed, Podman's conmon killed, Docker's shim stopped (the engine
then never answers for that container).

Each fails the one iteration, saying why, within its bound; the task ends
and nothing is left, or what is left is named with how to remove it.
Run alone (tox -e functional runs tests/engine_faults after the others,
serially): a stopped shim holds dockerd's calls for that container.
"""

import json
import os
import re
import signal
import subprocess
import threading
import time
import unittest

from rally_container_bench.core import base
from rally_container_bench.core import processes
from rally_container_bench.decide import rally_tasks
from rally_container_bench.engines import registry
from rally_container_bench import opts

from tests.functional import helpers

_STARTED = re.compile(r"Task +([0-9a-f-]{36}): started")
#: one sysbench run of each iteration: long enough to act during it (the
#: act comes within a second of sysbench's start), short enough that the
#: iterations that run it whole (the second of each task, the first where
#: the container runs on) cost little: 20 s took the three tests 143 s
SYSBENCH_S = 10


def _task(path, driver, times):
    with open(path, "w") as f:
        json.dump({"version": 2, "title": "engine lost", "subtasks": [{
            "title": driver, "workloads": [{
                "scenario": {"LocalInstances.boot_sysbench_delete": {
                    "driver": driver,
                    "tests": [{"test": "cpu", "time": SYSBENCH_S}]}},
                "runner": {"constant": {"times": times, "concurrency": 1}},
                "sla": {"failure_rate": {"max": 100}}}]}]}, f)
    return path


def _sysbench_in(container_id):
    """Host pids of the sysbench processes running in the container."""
    found = []
    for pid in processes_named("sysbench"):
        try:
            with open("/proc/%d/cgroup" % pid) as f:
                if container_id in f.read():
                    found.append(pid)
        except OSError:
            continue
    return found


def processes_named(name):
    return [int(pid) for pid in filter(str.isdigit, os.listdir("/proc"))
            if processes.command_name(int(pid)) == name]


def _shim_of(container_id):
    """Docker's shim of the container, recorded with its start time."""
    for pid in processes_named("containerd-shim"):
        try:
            with open("/proc/%d/cmdline" % pid, "rb") as f:
                argv = f.read().split(b"\0")
        except OSError:
            continue
        if container_id.encode() in argv:
            return processes.Recorded.of(pid)
    return None


class _EngineLostCase(unittest.TestCase):
    """A task of 2 iterations; the first loses its container mid-test."""

    driver = None
    options = {}

    def setUp(self):
        self.conf = opts.register()
        usable, why = registry.instance_class(self.driver).check(self.conf)
        if not usable:
            self.fail("%s: %s" % (self.driver, why))
        self.cli = registry.prepared_lifecycle(self.driver, self.conf)
        self.home = helpers.RallyHome(options=self.options)
        self.addCleanup(self.home.close)
        self.output = []

    def run_and_act(self, act):
        """Run the task; act(container id) while the first one's test runs.

        Returns (task uuid, the first iteration, the second, seconds from
        the act to the end of the first iteration).
        """
        task = _task(os.path.join(self.home.path, "task.json"), self.driver,
                     2)
        rally = self.home.popen("task", "start", task,
                                stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, text=True)
        self.addCleanup(rally.stdout.close)
        self.addCleanup(processes.end_group, rally)
        reader = threading.Thread(target=self.output.extend,
                                  args=(rally.stdout,), daemon=True)
        reader.start()
        uuid = base.wait_until(self._uuid, 120, 0.2, "the task's uuid")
        self.addCleanup(self.remove_left, uuid)
        container = base.wait_until(lambda: self._testing(uuid), 180, 0.2,
                                    "sysbench running in the first "
                                    "container")
        acted = time.time()
        act(container)
        if not processes.wait_exited(rally, 600):
            self.fail("rally still runs 600 s after the fault:\n"
                      + "".join(self.output[-80:]))
        reader.join(5)
        (workload,) = helpers.workloads(self.home.results(uuid))
        first, second = workload["data"]
        took = first["timestamp"] + first["duration"] - acted
        return uuid, first, second, took

    def _uuid(self):
        found = _STARTED.search("".join(self.output))
        return found.group(1) if found else None

    def _testing(self, uuid):
        """The id of a container of the task with sysbench running in it."""
        for name in self.left(uuid):
            proc = self.engine_cli("inspect", "--format", "{{.Id}}", name)
            if proc.returncode == 0:
                container = proc.stdout.strip()
                if _sysbench_in(container):
                    return container
        return None

    def left(self, uuid):
        owners = [w["uuid"] for w in helpers.workloads(
            self.home.results(uuid))]
        matches = rally_tasks.name_matcher(owners)
        return [n for n in helpers.ours(self.driver, self.conf)
                if matches(n)]

    def remove_left(self, uuid):
        for name in self.left(uuid):
            helpers.discard_if_left(self.driver, name, self.conf)

    def engine_cli(self, *args):
        return self.cli._cli(*args)

    def assert_failed_saying(self, iteration, *phrases):
        error = " ".join(iteration["error"])
        for phrase in phrases:
            self.assertIn(phrase, error)


class DockerShimKilledTestCase(_EngineLostCase):
    driver = "docker"

    def test_the_iteration_fails_saying_so_and_nothing_is_left(self):
        def kill_shim(container):
            shim = _shim_of(container)
            self.assertIsNotNone(shim, "no shim of %s" % container)
            self.assertTrue(shim.signal(signal.SIGKILL))
        uuid, first, second, took = self.run_and_act(kill_shim)
        self.assert_failed_saying(first, "containerd-shim (pid", "is gone")
        # at once, not after the sysbench run's time
        self.assertLess(took, SYSBENCH_S)
        self.assertEqual([], second["error"])
        self.assertEqual([], self.left(uuid))


class PodmanConmonKilledTestCase(_EngineLostCase):
    driver = "podman-runc"

    def test_the_iteration_fails_saying_so_and_nothing_is_left(self):
        def kill_conmon(container):
            pid = int(self.engine_cli("inspect", "--format",
                                      "{{.State.ConmonPid}}",
                                      container).stdout)
            conmon = processes.Recorded.of(pid)
            self.assertEqual("conmon", processes.command_name(pid))
            self.assertTrue(conmon.signal(signal.SIGKILL))
        uuid, first, second, took = self.run_and_act(kill_conmon)
        # the container ran on: its test ended, then the loss was seen
        self.assert_failed_saying(first, "conmon (pid", "is gone")
        self.assertLess(took, SYSBENCH_S + 30)
        self.assertEqual([], second["error"])
        self.assertEqual([], self.left(uuid))


class DockerShimStoppedTestCase(_EngineLostCase):
    """dockerd never answers for the container: each call is bounded."""

    driver = "docker"
    options = {"engine_call_timeout": 10, "cleanup_timeout": 30}

    def test_the_iteration_and_the_cleanup_end_naming_what_is_left(self):
        stopped = []

        def stop_shim(container):
            shim = _shim_of(container)
            self.assertTrue(shim.signal(signal.SIGSTOP))
            stopped.append(shim)
            self.addCleanup(shim.signal, signal.SIGCONT)
        uuid, first, second, took = self.run_and_act(stop_shim)
        # the test ran on; the delete was not answered within 10 s
        self.assert_failed_saying(first, "did not answer",
                                  "engine_call_timeout")
        self.assertLess(took, SYSBENCH_S + 60)
        self.assertEqual([], second["error"])
        (name,) = self.left(uuid)
        text = "".join(self.output)
        self.assertIn("docker %s is left" % name, text)
        self.assertIn("rcbench cleanup --task %s or: docker rm -f -v %s"
                      % (uuid, name), text)
        # once the engine answers again, rcbench cleanup removes it
        stopped[0].signal(signal.SIGCONT)
        done = subprocess.run(
            [os.path.join(helpers.BIN, "rcbench"), "cleanup", "--task", uuid,
             "--rally-config", self.home.conf],
            capture_output=True, text=True, timeout=300)
        self.assertEqual(0, done.returncode, done.stderr)
        self.assertEqual([], self.left(uuid))
