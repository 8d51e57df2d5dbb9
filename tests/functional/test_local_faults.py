"""Faults on a real engine (Docker): Ctrl-C, a killed Rally, a cleanup.

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

import docker

from rally_container_bench.core import base
from rally_container_bench.core import processes
from rally_container_bench.engines import registry
from rally_container_bench.task.contexts import local_cleanup
from rally_container_bench.task.scenarios import local

from tests.functional import helpers

_ITERATION_END = re.compile(r"Task ([0-9a-f-]{36}) \| ITER: \d+ END")
_STARTED = re.compile(r"Task +([0-9a-f-]{36}): started")


def _task(times, concurrency, tests):
    return json.dumps({
        "version": 2, "title": "faults",
        "subtasks": [{"title": "docker", "workloads": [{
            "scenario": {"LocalInstances.boot_sysbench_delete": {
                "driver": "docker", "tests": tests}},
            "runner": {"constant": {"times": times,
                                    "concurrency": concurrency}}}]}]})


class DockerFaultsTestCase(helpers.DockerRallyTestCase):
    """Rally tasks on Docker interrupted every way a user interrupts them.

    Why ~4-5 min in CI (283 s, 2026-11-28): six real Rally tasks, each
    started, interrupted (Ctrl-C, SIGTERM, rally task abort, kill -9 and
    rcbench cleanup) and checked for leftovers, beside two other workers.
    """

    def setUp(self):
        super().setUp()
        self.output = []

    def start_rally(self, task_text):
        path = os.path.join(self.home.path, "task-%d.json" % time.time_ns())
        with open(path, "w") as f:
            f.write(task_text)
        rally = self.home.popen("task", "start", path, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, text=True)
        self.addCleanup(rally.stdout.close)
        self.addCleanup(processes.end_group, rally)
        return rally

    def wait_for_iteration_end(self, rally, timeout=120):
        """The task uuid, once Rally logged the end of an iteration."""
        return self.wait_for_line(rally, _ITERATION_END, timeout)

    def wait_for_line(self, rally, pattern, timeout):
        """The task uuid from the first line of Rally's matching pattern."""
        deadline = time.monotonic() + timeout
        for line in rally.stdout:
            self.output.append(line)
            match = pattern.search(line)
            if match:
                # Keep reading, so Rally never blocks on a full pipe.
                threading.Thread(target=self.output.extend,
                                 args=(rally.stdout,), daemon=True).start()
                return match.group(1)
            self.assertLess(time.monotonic(), deadline)
        self.fail("rally ended before it printed %s" % pattern.pattern)

    def wait_for_exit(self, rally, timeout):
        # not reaped: its group stays its own until end_group
        if not processes.wait_exited(rally, timeout):
            self.fail("rally still runs %s s after the signal; its last "
                      "output:\n%s" % (timeout, "".join(self.output[-80:])))

    def interrupt_and_check(self, send):
        rally = self.start_rally(_task(50, 2, ["quick-cpu"]))
        uuid = self.wait_for_iteration_end(rally)
        send(rally)
        self.wait_for_exit(rally, 180)
        self.assertEqual([], self.containers(uuid))
        status = self.home.rally("task", "status", uuid).stdout
        self.assertIn("aborted", status)
        (workload,) = helpers.workloads(self.home.results(uuid))
        finished = [i for i in workload["data"] if not i["error"]]
        self.assertGreaterEqual(len(finished), 1)
        self.assertLess(len(workload["data"]), 50)
        for iteration in finished:
            self.assertIn("sysbench cpu", helpers.additive(iteration))

    def test_ctrl_c_keeps_finished_iterations_and_leaves_nothing(self):
        # A terminal's Ctrl-C: SIGINT to every process of the group.
        self.interrupt_and_check(
            lambda rally: processes.signal_child(
                rally, signal.SIGINT, group=True))

    def test_sigterm_keeps_finished_iterations_and_leaves_nothing(self):
        # kill PID, timeout(1), a CI job's time limit: Rally's process only.
        self.interrupt_and_check(lambda rally: rally.terminate())

    def running(self, names):
        """True once the configured dockerd runs every named container."""
        client = docker.APIClient(base_url=self.conf.docker_url)
        try:
            return bool(names) and all(
                client.inspect_container(name)["State"]["Running"]
                for name in names)
        finally:
            client.close()

    def test_ctrl_c_ends_a_network_wait_at_once(self):
        # Its guest never answers SSH (the bridge drops port 22) and
        # ssh_timeout is long: before, the first Ctrl-C left the iteration
        # waiting up to ssh_timeout.
        network = helpers.firewalled_docker_network(self, self.conf)
        waiting = helpers.RallyHome(options={"docker_network": network,
                                             "ssh_timeout": 600})
        self.addCleanup(waiting.close)
        home, self.home = self.home, waiting
        self.addCleanup(setattr, self, "home", home)
        rally = self.start_rally(_task(2, 1, ["quick-cpu"]))
        uuid = self.wait_for_line(rally, _STARTED, timeout=120)
        # Listed is not yet built: under load (CI 2026-11-28, the test
        # took 56 s) 3 s after the listing the iteration was still in its
        # build, and the Ctrl-C came before any network phase.
        base.wait_until(lambda: self.running(self.containers(uuid)), 120,
                        0.2,
                        "the container of task %s running" % uuid)
        time.sleep(3)  # well into the network phase
        interrupted = time.time()
        processes.signal_child(rally, signal.SIGINT, group=True)
        self.wait_for_exit(rally, 120)
        self.assertIn("aborted", waiting.rally("task", "status",
                                               uuid).stdout)
        self.assertEqual([], self.containers(uuid))
        (workload,) = helpers.workloads(waiting.results(uuid))
        iteration = workload["data"][0]
        network_phase = next(a for a in iteration["atomic_actions"]
                             if a["name"] == "network")
        # Rally may start the next before it reads the abort (every 2 s):
        # that one creates nothing.
        for later in workload["data"][1:]:
            self.assertEqual([], helpers.atomic_names(later))
        self.assertLess(network_phase["finished_at"] - interrupted, 5)
        self.assertIn("the task is being aborted",
                      " ".join(iteration["error"]))
        self.assertIn("delete", helpers.atomic_names(iteration))

    def test_rally_task_abort_leaves_nothing(self):
        rally = self.start_rally(_task(50, 2, ["quick-cpu"]))
        uuid = self.wait_for_iteration_end(rally)
        self.home.rally("task", "abort", uuid)
        self.wait_for_exit(rally, 180)
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
        uuid = self.wait_for_line(rally, _STARTED, timeout=120)
        self.addCleanup(self._remove_containers_of, uuid)
        base.wait_until(lambda: len(self.containers(uuid)) >= 2, 120, 0.5,
                        "2 containers of task %s" % uuid)
        processes.end_group(rally)
        leaked = self.containers(uuid)
        self.assertEqual(2, len(leaked))
        # --task: other tests' instances (another stestr worker) stay.
        rcbench = os.path.join(helpers.BIN, "rcbench")
        dry = subprocess.run([rcbench, "cleanup", "--task", uuid, "--dry-run",
                              "--rally-config", self.home.conf],
                             capture_output=True, text=True, timeout=120)
        self.assertEqual(0, dry.returncode, dry.stderr)
        self.assertEqual(sorted("would delete docker %s" % n for n in leaked),
                         sorted(line for line in dry.stdout.splitlines()
                                if "docker" in line))
        self.assertEqual(leaked, self.containers(uuid))
        done = subprocess.run([rcbench, "cleanup", "--task", uuid,
                               "--rally-config", self.home.conf],
                              capture_output=True, text=True, timeout=300)
        self.assertEqual(0, done.returncode, done.stderr)
        self.assertEqual([], self.containers(uuid))

    def test_cleanup_context_deletes_its_workloads_instances_only(self):
        # Rally names instances after the workload (owner id), not the
        # task: the context must match on the owner id. Two workloads of
        # one task; the cleanup of the first must leave the second's.
        task = {"uuid": "11111111-2222-3333-4444-555555555555"}
        mine, other = (dict(task=task, owner_id=owner,
                            scenario_name="LocalInstances.boot_and_delete")
                       for owner in ("aaaaaaaa-0000-0000-0000-000000000001",
                                     "bbbbbbbb-0000-0000-0000-000000000002"))
        driver = registry.prepared_instance("docker", self.conf)
        names = {}
        for key, ctx in (("mine", mine), ("other", other)):
            names[key] = local.BootAndDelete(ctx).generate_random_name()
            driver.create(names[key])
            self.addCleanup(helpers.discard_if_left, driver.name,
                            names[key])
        ours = sorted(names.values())
        self.assertEqual(ours, [n for n in self.containers() if n in ours])
        local_cleanup.LocalCleanup(mine).cleanup()
        self.assertEqual([names["other"]],
                         [n for n in self.containers() if n in ours])

    def _remove_containers_of(self, uuid):
        for name in self.containers(uuid):
            helpers.discard_if_left("docker", name, self.conf)


class QuickstartCtrlCTestCase(helpers.DockerRallyTestCase):
    """README command 1 interrupted: it says so and writes what finished."""

    def test_ctrl_c_writes_partial_reports_and_says_aborted(self):
        scratch = self.home.path
        args = os.path.join(scratch, "args.yaml")
        with open(args, "w") as f:
            # rcbench decide's first round: 30 iterations
            f.write("platforms: [docker]\nconcurrency: [1]\n"
                    "tests: [quick-cpu]\n"
                    "decide: {pairs_per_round: 30, "
                    "instrument_check: false, pairing: sequential}\n")
        results = os.path.join(scratch, "results")
        # The quickstart's own venv (tools/install-deps.sh made it before
        # the tests ran), never the tox env the test runs in.
        venv = os.path.join(helpers.TOP, ".venv")
        env = dict(os.environ, HOME=scratch,
                   XDG_CACHE_HOME=helpers.CACHE_HOME, RCBENCH_VENV=venv,
                   RCBENCH_TASK_ARGS=args, RCBENCH_RESULTS=results)
        quickstart = subprocess.Popen(
            ["bash", os.path.join(helpers.TOP, "tools", "quickstart.sh")],
            cwd=helpers.TOP, env=env, stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT, text=True, start_new_session=True)
        self.addCleanup(processes.end_group, quickstart)

        def iterations_ended():
            logs = [os.path.join(results, d, "rally-task.log")
                    for d in (os.listdir(results)
                              if os.path.isdir(results) else [])]
            for path in filter(os.path.exists, logs):
                with open(path) as f:
                    if len(_ITERATION_END.findall(f.read())) >= 2:
                        return path
            return None
        log = base.wait_until(iterations_ended, 600, 0.5,
                              "two iterations of the quickstart's task")
        # a terminal's Ctrl-C
        processes.signal_child(quickstart, signal.SIGINT, group=True)
        out, _ = quickstart.communicate(timeout=300)
        self.assertEqual(130, quickstart.returncode, out[-3000:])
        self.assertIn("ABORTED", out)
        self.assertNotIn("did not start", out)
        run_dir = os.path.dirname(log)
        with open(os.path.join(run_dir, "rally.json")) as f:
            (workload,) = helpers.workloads(json.load(f))
        finished = [i for i in workload["data"] if not i["error"]]
        self.assertGreaterEqual(len(finished), 2)
        self.assertLess(len(workload["data"]), 30)
        for name in ("rally.html", "comparison.html", "comparison.md"):
            self.assertTrue(os.path.getsize(os.path.join(run_dir, name)),
                            name)
        uuid = _ITERATION_END.search(open(log).read()).group(1)
        self.assertEqual([], self.containers(uuid, self.quickstart_home(
            scratch)))
        # the round Ctrl-C ended spends no look: --resume goes on with it
        with open(os.path.join(run_dir, "campaign.json")) as f:
            state = json.load(f)
        self.assertEqual(("interrupted", []), (state["status"],
                                               state["rounds"]))
        self.assertEqual({"round": 1, "tasks": [uuid], "done": []},
                         state["partial"])

    @staticmethod
    def quickstart_home(scratch):
        """The quickstart's Rally (its DB under the scratch HOME)."""
        return helpers.RallyHome.existing(
            scratch, os.path.join(scratch, ".rally", "rally.conf"))


class DecideBudgetTestCase(helpers.DockerRallyTestCase):
    """A budget spent during round 1 ends the round after its workload.

    Round 1 has no estimate to plan by: beside other work it ran whole,
    far past its budget. Here the budget (1 s) is spent before the first
    workload starts: Rally refuses the abort while it validates, takes
    it once the task runs, finishes that workload (none of its
    iterations fails) and starts no other; rcbench decide writes what
    finished and starts no round after it.
    """

    def test_round_ends_after_the_workload_running_at_the_budget(self):
        args = os.path.join(self.home.path, "args.yaml")
        with open(args, "w") as f:
            f.write("platforms: [native, docker]\nconcurrency: [1, 2]\n"
                    "tests: [quick-cpu]\n"
                    "decide: {budget_s: 1, max_rounds: 3, "
                    "pairs_per_round: 3, instrument_check: false, "
                    "pairing: sequential}\n")
        out = os.path.join(self.home.path, "decide")
        run = subprocess.Popen(
            [os.path.join(helpers.BIN, "rcbench"), "decide", "--task",
             os.path.join(helpers.TOP, "tasks",
                          "local_kvm_vs_containers.yaml"),
             "--task-args-file", args, "--env", "local", "--out", out,
             "--rally-config", self.home.conf],
            cwd=helpers.TOP, stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT, text=True, start_new_session=True,
            env=dict(os.environ, HOME=self.home.path,
                     XDG_CACHE_HOME=helpers.CACHE_HOME))
        self.addCleanup(processes.end_group, run)
        output, _ = run.communicate(timeout=600)
        self.assertEqual(0, run.returncode, output[-4000:])
        self.assertIn("budget of 0:01 spent: the round ends after the "
                      "workload it runs", output)
        with open(os.path.join(out, "decide.json")) as f:
            summary = json.load(f)
        (only,) = summary["rounds"]
        self.assertTrue(only["cut_by_budget"], only)
        with open(os.path.join(out, "rally.json")) as f:
            ran = list(helpers.workloads(json.load(f)))
        # the plan: Docker at 1 and at 2 (3 pairs each: 2 waves at 2)
        self.assertEqual(1, len(ran), [w["scenario"] for w in ran])
        self.assertGreaterEqual(len(ran[0]["data"]), 3)
        self.assertEqual([], [i["error"] for i in ran[0]["data"]
                              if i["error"]])
        self.assertTrue(os.path.getsize(os.path.join(out,
                                                     "comparison.html")))
        # this task's only: other workers' tests run Docker beside it
        self.assertEqual([], self.containers(only["task"]))
