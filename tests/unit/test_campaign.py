"""A decided run's state on disk (decide/campaign.py).

The Rally left running by a killed run is a real child process here (a
Python that, like Rally, ends its task on SIGINT); the whole kill and
resume of a campaign: tests/functional/test_decide_resume.py.
"""

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
                                      "rally": campaign.rally_of(rally)})
        said, cleaned = [], []
        # its parent (here: this test) reaps it; a killed run's Rally is
        # reaped by init
        started = time.monotonic()
        campaign.settle_in_flight(state, said.append,
                                  lambda uuid: "running", cleaned.append)
        self.assertLess(time.monotonic() - started, 30)
        self.assertEqual("aborting\n", rally.stdout.readline())
        self.assertEqual(0, rally.wait(timeout=10))
        self.assertIn("round 2's Rally (pid %d) still runs" % rally.pid,
                      said[0])
        self.assertEqual([], cleaned)  # its own abort deletes
        self.assertIsNone(state["in_flight"])

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
                                      lambda uuid: status, found.append)
            self.assertEqual(cleaned, found, status)
            self.assertIsNone(state["in_flight"])

    def test_the_cleanup_names_the_rally_config_and_a_clouds_env(self):
        argv = campaign.cleanup_command(
            ["rally", "--config-file", "/r.conf"], "aio", "u1", cloud=True)
        self.assertEqual(["cleanup", "--task", "u1", "--rally-config",
                          "/r.conf", "--env", "aio"], argv[1:])
        self.assertEqual(["cleanup", "--task", "u1"], campaign.cleanup_command(
            ["rally"], "local", "u1", cloud=False)[1:])
