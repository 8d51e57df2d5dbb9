"""A decided run killed midway resumes and finishes (rcbench decide --resume).

A small campaign on Docker and this host (Docker at 1 and at 2, two
rounds of one pair each: no cell can be decided, a verdict takes three
pairs),
killed with SIGKILL, rcbench and Rally alike, while round 2's second
cell runs: the round's Rally task never ends and its container is
left. ``rcbench decide --out`` then refuses to start over it;
``--resume`` deletes the container and the native twin's directory on
this host (rcbench cleanup --task), keeps the cell round 2 ran whole
(its task's iterations count) and runs round 2's other cell, and keeps
round 1's task as it was. A Rally left running (rcbench
alone killed) is stopped as Ctrl-C stops it: tests/unit/test_campaign.py,
with a real process.
"""

import json
import os
import signal
import subprocess

import yaml

from rally_container_bench.core import base
from rally_container_bench.core import processes
from rally_container_bench.report import results
from tests.functional import helpers

TASK = os.path.join(helpers.TOP, "tasks", "local_kvm_vs_containers.yaml")


class DecideResumeTestCase(helpers.DockerRallyTestCase):

    def rcbench(self, *args):
        return [os.path.join(helpers.BIN, "rcbench"), "decide"] + list(args)

    def env(self):
        return dict(os.environ, HOME=self.home.path,
                    XDG_CACHE_HOME=helpers.CACHE_HOME)

    def cleanup_dry_run(self, task):
        return subprocess.run(
            [os.path.join(helpers.BIN, "rcbench"), "cleanup", "--task", task,
             "--dry-run", "--rally-config", self.home.conf],
            cwd=helpers.TOP, env=self.env(), capture_output=True, text=True,
            timeout=120, check=True).stdout

    def state(self, out):
        try:
            with open(os.path.join(out, "campaign.json")) as f:
                return json.load(f)
        except (OSError, ValueError):
            return None

    def test_killed_midway_it_resumes_keeping_every_finished_round(self):
        args = os.path.join(self.home.path, "args.yaml")
        with open(args, "w") as f:
            yaml.safe_dump({
                "platforms": ["native", "docker"], "concurrency": [1, 2],
                # ~3.5 s in the container: long enough to be killed in
                # (the kill comes within a second of its container's
                # start), and the pairs of its rounds cost less (at
                # 10000 events the test took 240 s beside the others)
                "tests": [{"preset": "quick-cpu", "events": 4000}],
                "seed": 3,
                # two rounds: a third (a Rally task more) showed nothing
                # else and took the test to 395 s on a slow machine (CI
                # 2026-12-08)
                "decide": {"budget_s": 600, "max_rounds": 2,
                           "pairs_per_round": 1, "instrument_check": False,
                           "pairing": "sequential"}}, f)
        out = os.path.join(self.home.path, "campaign")
        run = subprocess.Popen(
            self.rcbench("--task", TASK, "--task-args-file", args, "--env",
                         "local", "--out", out, "--rally-config",
                         self.home.conf),
            cwd=helpers.TOP, env=self.env(), stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL, start_new_session=True)
        self.addCleanup(processes.end_group, run)

        log = os.path.join(out, "rally-task.log")

        def round_2_second_cell():
            flight = (self.state(out) or {}).get("in_flight") or {}
            if flight.get("round") != 2 or not flight.get("task"):
                return None
            with open(log, errors="replace") as f:
                # each cell's workload numbers its iterations from 1; the
                # first cell's subtask ended before the second's began
                started = f.read().count("%s | ITER: 1 START"
                                         % flight["task"])
            return flight["task"] if started >= 2 else None
        killed = base.wait_until(round_2_second_cell, 400, 0.2,
                                 "round 2's second cell",
                                 last=lambda: self.state(out))
        # its own container (other tests' may run beside it)
        base.wait_until(lambda: self.containers(killed), 60, 0.5,
                        "round 2's container")
        processes.signal_child(run, signal.SIGKILL, group=True)
        run.wait(timeout=30)
        before = self.state(out)
        self.assertEqual(1, len(before["rounds"]))
        self.assertTrue(self.containers(killed), "nothing left to clean")
        # and its native twin's directory on this host, named for the task
        left = self.cleanup_dry_run(killed)
        self.assertIn("would delete native scratch directory", left)

        # not started over: the finished round would be lost
        refused = subprocess.run(
            self.rcbench("--task", TASK, "--task-args-file", args, "--env",
                         "local", "--out", out, "--rally-config",
                         self.home.conf),
            cwd=helpers.TOP, env=self.env(), capture_output=True,
            text=True, timeout=120)
        self.assertEqual(2, refused.returncode, refused.stderr)
        self.assertIn("holds an unfinished campaign", refused.stderr)
        self.assertIn("--resume", refused.stderr)

        resumed = subprocess.run(
            self.rcbench("--resume", "--out", out), cwd=helpers.TOP,
            env=self.env(), capture_output=True, text=True, timeout=900)
        self.assertEqual(0, resumed.returncode,
                         resumed.stdout[-3000:] + resumed.stderr[-2000:])
        self.assertIn("resuming the campaign in %s: 1 round(s) done" % out,
                      resumed.stdout)
        self.assertIn("round 2's Rally is gone and its task %s did not end"
                      % killed, resumed.stdout)
        self.assertIn("round 2's task %s: 1 cell(s) ended whole and are "
                      "kept" % killed, resumed.stdout)
        self.assertEqual([], self.containers(killed))
        self.assertNotIn("native scratch", self.cleanup_dry_run(killed))
        with open(log, errors="replace") as f:
            self.assertIn("deleted native scratch directory", f.read())

        with open(os.path.join(out, "decide.json")) as f:
            summary = json.load(f)
        self.assertEqual([1, 2], [r["round"] for r in summary["rounds"]])
        self.assertEqual(before["rounds"][0], summary["rounds"][0])
        self.assertEqual(summary["tasks"][0], before["tasks"][0])
        # round 2: its killed task's whole cell, then a task of the other
        second = summary["rounds"][1]
        self.assertEqual([killed], second["kept_from"])
        self.assertEqual(2, second["cells"])
        self.assertEqual([before["tasks"][0], killed, second["task"]],
                         summary["tasks"])
        self.assertEqual(2, summary["sessions"])
        for uuid in summary["tasks"]:
            self.assertEqual([], self.containers(uuid))
        # the first session's seconds count against the budget
        self.assertGreater(summary["elapsed_s"], before["elapsed_s"])
        # every round's iterations are in the report, none of the killed
        with open(os.path.join(out, "rally.json")) as f:
            document = json.load(f)
        self.assertEqual(summary["tasks"],
                         [t["uuid"] for t in document["tasks"]])
        cells = {t["uuid"]: [(results.round_config(w)["cell"],
                              w["runner"]["constant"]["concurrency"])
                             for s in t["subtasks"] for w in s["workloads"]]
                 for t in document["tasks"]}
        # the kept cell is not run again in its round
        kept = [c for c in cells[killed] if c not in cells[second["task"]]]
        self.assertEqual(1, len(cells[second["task"]]), cells)
        self.assertEqual(1, len(kept), cells)
        # round 1's cells (native alone ran in round 1 only)
        self.assertEqual(sorted(c for c in cells[before["tasks"][0]]
                                if c[0] != "native"),
                         sorted(kept + cells[second["task"]]))
        self.assertEqual("finished", self.state(out)["status"])
        again = subprocess.run(self.rcbench("--resume", "--out", out),
                               cwd=helpers.TOP, env=self.env(),
                               capture_output=True, text=True, timeout=120)
        self.assertEqual(2, again.returncode)
        self.assertIn("the campaign finished", again.stderr)
