"""A decided run's state on disk (decide/campaign.py).

The Rally left running by a killed run is a real child process here (a
Python that, like Rally, ends its task on SIGINT); the whole kill and
resume of a campaign: tests/functional/test_decide_resume.py.
"""

import io
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import unittest

from rally_container_bench.core import processes
from rally_container_bench.decide import campaign

# Like Rally on Ctrl-C: says it aborts, then exits 0. The handler only
# notes the signal: one that printed could land inside print("ready")'s
# own write, a reentrant call Python refuses (seen under CI's load).
_RALLY_LIKE = """
import signal, time
seen = []
signal.signal(signal.SIGINT, lambda *_: seen.append(1))
print("ready", flush=True)
deadline = time.monotonic() + 120
while not seen and time.monotonic() < deadline:
    time.sleep(0.05)
print("aborting" if seen else "no signal", flush=True)
"""


class CampaignStateTestCase(unittest.TestCase):

    def setUp(self):
        self.out = tempfile.mkdtemp(prefix="rcbench-campaign-")
        self.addCleanup(shutil.rmtree, self.out, True)
        self.task = os.path.join(self.out, "task.yaml")
        with open(self.task, "w") as f:
            f.write("version: 2\n")

    def state(self, **changes):
        found = campaign.new_state(["rally"], self.task, {"seed": 1},
                                   "local", {"budget_s": 60}, ["t"])
        found.update(changes)
        return found

    def test_saved_whole_and_read_back(self):
        campaign.save(self.out, self.state(rounds=[{"round": 1}]))
        self.assertEqual([campaign.STATE], [
            n for n in os.listdir(self.out) if n.startswith("campaign")])
        self.assertEqual([{"round": 1}],
                         campaign.load(self.out)["rounds"])

    def test_cells_survive_json(self):
        cells = {("docker", 2): ["quick-cpu"], ("lxc", 1): []}
        rows = json.loads(json.dumps(campaign.cells_list(cells)))
        self.assertEqual(cells, campaign.cells_of(rows))

    def test_a_new_run_does_not_write_over_an_unfinished_one(self):
        campaign.refuse_unfinished(self.out)  # nothing there: fine
        campaign.save(self.out, self.state(rounds=[{}, {}]))
        with self.assertRaisesRegex(campaign.CampaignError,
                                    r"unfinished campaign \(2 round\(s\) "
                                    r"done, running\).*--resume"):
            campaign.refuse_unfinished(self.out)
        campaign.save(self.out, self.state(status=campaign.FINISHED))
        campaign.refuse_unfinished(self.out)

    def test_what_cannot_be_resumed_says_why(self):
        with self.assertRaisesRegex(campaign.CampaignError,
                                    "no campaign to resume"):
            campaign.load(self.out)
        finished = self.state(status=campaign.FINISHED)
        with self.assertRaisesRegex(campaign.CampaignError,
                                    "nothing to resume"):
            campaign.check_resumable(self.out, finished)
        state = self.state()
        campaign.check_resumable(self.out, state)
        with open(self.task, "a") as f:
            f.write("# changed\n")
        with self.assertRaisesRegex(campaign.CampaignError,
                                    "changed since the campaign started"):
            campaign.check_resumable(self.out, state)
        with open(os.path.join(self.out, campaign.STATE), "w") as f:
            f.write('{"version": 0}')
        with self.assertRaisesRegex(campaign.CampaignError, "version 1"):
            campaign.load(self.out)

    def test_a_rally_still_running_is_stopped_as_ctrl_c_stops_it(self):
        rally = subprocess.Popen([sys.executable, "-c", _RALLY_LIKE],
                                 stdout=subprocess.PIPE, text=True)
        self.addCleanup(processes.end_group, rally)
        self.assertEqual("ready\n", rally.stdout.readline())
        state = self.state(in_flight={"round": 2, "task": "u2",
                                      "rally": campaign.rally_of(rally)},
                           pairing={"setting": "sequential"})
        said, cleaned = [], []
        # its parent (here: this test) reaps it; a killed run's Rally is
        # reaped by init
        started = time.monotonic()
        campaign.settle_in_flight(state, said.append,
                                  lambda uuid: "running", cleaned.append,
                                  lambda uuid: {("docker", 1)})
        self.assertLess(time.monotonic() - started, 30)
        self.assertEqual("aborting\n", rally.stdout.readline())
        self.assertEqual(0, rally.wait(timeout=10))
        self.assertIn("round 2's Rally (pid %d) still runs" % rally.pid,
                      said[0])
        self.assertEqual([], cleaned)  # its own abort deletes
        self.assertIsNone(state["in_flight"])
        # what its task ran whole is kept, in the round it belongs to
        self.assertEqual({"round": 2, "tasks": ["u2"],
                          "done": [("docker", 1)]}, state["partial"])
        self.assertEqual(["u2"], state["tasks"])
        self.assertIn("1 cell(s) ended whole and are kept", said[-1])

    def test_a_gone_rally_whose_task_never_ended_is_cleaned_up(self):
        gone = subprocess.Popen(["true"])
        recorded = campaign.rally_of(gone)
        gone.wait()
        for status, cleaned in (("running", ["u2"]), ("aborted", []),
                                ("finished", [])):
            state = self.state(in_flight={"round": 2, "task": "u2",
                                          "rally": recorded})
            found = []
            campaign.settle_in_flight(state, lambda _: None,
                                      lambda uuid: status, found.append,
                                      lambda uuid: set())
            self.assertEqual(cleaned, found, status)
            self.assertIsNone(state["in_flight"])
            # nothing ended whole: the task is not kept
            self.assertIsNone(state["partial"])
            self.assertEqual([], state["tasks"])

    def test_an_interrupted_calibration_keeps_nothing(self):
        gone = subprocess.Popen(["true"])
        recorded = campaign.rally_of(gone)
        gone.wait()
        # the pairs' mode not chosen yet: round 1's task was the A/A's
        # calibration, whose cells are not the run's
        state = self.state(in_flight={"round": 1, "task": "cal",
                                      "rally": recorded})
        campaign.settle_in_flight(state, lambda _: None,
                                  lambda uuid: "finished", None,
                                  lambda uuid: {("native-aa", 1)})
        self.assertIsNone(state["partial"])
        self.assertEqual([], state["tasks"])

    def test_a_rounds_parts_add_up_and_belong_to_their_round(self):
        state = self.state(tasks=["r1"])
        campaign.keep_part(state, 2, "a", {("docker", 1)})
        campaign.keep_part(state, 2, "b", {("lxc", 2), ("docker", 1)})
        self.assertEqual({("docker", 1), ("lxc", 2)},
                         campaign.part_done(state, 2))
        self.assertEqual(set(), campaign.part_done(state, 3))
        self.assertEqual(["r1", "a", "b"], state["tasks"])
        saved = json.loads(json.dumps(state))
        self.assertEqual({("docker", 1), ("lxc", 2)},
                         campaign.part_done(saved, 2))
        # a part of another round starts afresh (its own round's cells)
        campaign.keep_part(saved, 3, "c", {("kvm", 1)})
        self.assertEqual({("kvm", 1)}, campaign.part_done(saved, 3))
        self.assertEqual(set(), campaign.part_done(saved, 2))
        # a state written before parts were kept has none
        del saved["partial"]
        self.assertEqual(set(), campaign.part_done(saved, 3))

    def test_a_cell_is_done_only_where_its_subtask_ended_whole(self):
        def subtask(status, cell, step, ran=4):
            return {"status": status, "workloads": [{
                "contexts": {"rcbench_round@rally_container_bench":
                             {"round": 2, "cell": cell}},
                "runner": {"constant": {"times": 4, "concurrency": step}},
                "data": [{}] * ran}]}
        document = {"tasks": [
            {"uuid": "old", "subtasks": [subtask("finished", "lxc", 1)]},
            {"uuid": "u2", "subtasks": [
                subtask("finished", "docker", 2),
                subtask("finished", "native-aa", 1),
                # the workload Ctrl-C ended early: Rally says "finished"
                subtask("finished", "lxc", 2, ran=3),
                subtask("aborted", "podman-runc", 1),
                # the one a killed Rally was running
                subtask("running", "kvm", 1, ran=0)]}]}
        self.assertEqual({("docker", 2), ("native-aa", 1)},
                         campaign.finished_cells(document, "u2"))
        self.assertEqual(set(), campaign.finished_cells(document, "none"))

        # the report keeps of an interrupted task only its whole cells;
        # another task's are left as they are
        campaign.whole_cells_only(document, {"u2", "gone"})
        cells = {task["uuid"]: [
            (w["contexts"]["rcbench_round@rally_container_bench"]["cell"],
             len(w["data"])) for s in task["subtasks"]
            for w in s["workloads"]] for task in document["tasks"]}
        self.assertEqual({"old": [("lxc", 4)],
                          "u2": [("docker", 4), ("native-aa", 4)]}, cells)

    def test_the_cleanup_names_the_rally_config_and_a_clouds_env(self):
        argv = campaign.cleanup_command(
            ["rally", "--config-file", "/r.conf"], "aio", "u1", cloud=True)
        self.assertEqual(["cleanup", "--task", "u1", "--rally-config",
                          "/r.conf", "--env", "aio"], argv[1:])
        self.assertEqual(["cleanup", "--task", "u1"], campaign.cleanup_command(
            ["rally"], "local", "u1", cloud=False)[1:])


class ResumedRunTestCase(unittest.TestCase):
    """What a resumed run says, and the report it reads, after a stop.

    Its progress line read "cells decided 0 of 129" through KEK's
    campaign's round 2 with 48 decided in round 1.
    """

    def resumed(self, args, **state):
        """A SequentialRun resuming state (new_state's, updated)."""
        from rally_container_bench.decide import run as decide
        out = tempfile.mkdtemp(prefix="rcbench-campaign-")
        self.addCleanup(shutil.rmtree, out, True)
        task = os.path.join(out, "task.yaml")
        with open(task, "w") as f:
            f.write("{}\n")
        kept = campaign.new_state(["false"], task, args, "env", {}, [])
        kept.update(state)
        return decide.SequentialRun(["false"], task, args, "env", out, 600,
                                    4, 2, None, _Stream(),
                                    instrument_check=False, resumed=kept)

    def test_the_cells_decided_carry_over(self):
        run = self.resumed(
            {"platforms": ["native", "docker"], "concurrency": [1, 2],
             "tests": ["quick-cpu", "quick-memory-read"]},
            rounds=[{"round": 1}], tasks=["t1"], elapsed_s=60.0,
            left=[["docker", 2, ["quick-memory-read"]]])
        run._start_or_resume()
        # 4 cells (docker at 1 and 2, cpu and memory), one left
        self.assertIn("1 round(s) done, 3 of 4 cells decided, 1:00 of the "
                      "10:00 budget spent", run.progress.stream.getvalue())
        self.assertEqual(3, run.progress.state["decided"])

    def test_a_resumed_report_leaves_out_what_an_interrupt_cut_short(self):
        # round 2 ended whole after Ctrl-C had cut docker at 2 short in
        # task u2 (its aborted iteration "failed"), and ran it again in u3
        run = self.resumed(
            {"platforms": ["native", "docker"], "concurrency": [2],
             "tests": ["quick-cpu"]},
            rounds=[{"round": 1, "kept_from": []},
                    {"round": 2, "kept_from": ["u2"]}],
            tasks=["u1", "u2", "u3"])

        def workload(ran):
            return {"contexts": {"rcbench_round@rally_container_bench":
                                 {"round": 2, "cell": "docker"}},
                    "runner": {"constant": {"times": 4, "concurrency": 2}},
                    "data": [{}] * ran}

        class Reads(object):
            def report(self, uuids, path):
                return {"tasks": [
                    {"uuid": u, "subtasks": [{"status": "finished",
                                              "workloads": [workload(ran)]}]}
                    for u, ran in (("u1", 4), ("u2", 2), ("u3", 4))]}
        run.reads = Reads()
        document = run._report_of(["u1", "u2", "u3"])
        self.assertEqual([("u1", 1), ("u2", 0), ("u3", 1)], [
            (t["uuid"], len(t["subtasks"])) for t in document["tasks"]])


class _Stream(io.StringIO):

    def isatty(self):
        return False
