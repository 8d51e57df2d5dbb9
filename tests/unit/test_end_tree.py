"""tools/end-tree.py: .ci/run's EXIT trap ends the stage a signal cut.

Real processes: a shell whose EXIT trap runs the tool, killed by SIGTERM
while it waits for a foreground command that has children of its own,
as CI's time limit ends .ci/run in the middle of a stage.
"""

import os
import signal
import subprocess
import sys
import time
import unittest

from rally_container_bench.core import processes

TOOL = os.path.join(os.path.dirname(__file__), "..", "..", "tools",
                    "end-tree.py")


def _alive(pid):
    return processes.running(pid)


class EndTreeTestCase(unittest.TestCase):

    def run_stage(self, trap):
        """The pids of a stage's tree once its shell got SIGTERM."""
        shell = subprocess.Popen(
            # the tree's own output elsewhere: the shell's ends with it
            ["bash", "-c", trap + "; sh -c 'sleep 300 >/dev/null & echo "
             "$!; sleep 300 >/dev/null & echo $!; exec >/dev/null; wait'"
             "; echo not reached"],
            stdout=subprocess.PIPE, text=True, start_new_session=True)
        self.addCleanup(processes.end_group, shell)
        sleeps = [int(shell.stdout.readline()) for _ in range(2)]
        self.addCleanup(self.reap, sleeps)
        processes.signal_child(shell, signal.SIGTERM)
        out = shell.communicate(timeout=60)[0]
        return sleeps, out

    @staticmethod
    def reap(pids):
        # the sleeps (their shell, waiting for them, then ends)
        for pid in pids:
            recorded = processes.Recorded.of(pid)
            if recorded is not None:
                recorded.signal(signal.SIGKILL)

    def test_the_trap_ends_the_foreground_commands_tree(self):
        sleeps, out = self.run_stage(
            "trap '%s %s $$' EXIT" % (sys.executable, TOOL))
        deadline = time.monotonic() + 15
        while any(map(_alive, sleeps)) and time.monotonic() < deadline:
            time.sleep(0.1)
        self.assertEqual([False, False], [_alive(p) for p in sleeps], out)
        self.assertIn("end-tree: ended 3 process(es)", out)
        self.assertNotIn("not reached", out)

    def test_without_it_the_tree_outlives_the_shell(self):
        # what CI's limit left before: the stage ran on under no one
        sleeps, out = self.run_stage("trap 'echo trap ran' EXIT")
        self.assertIn("trap ran", out)
        time.sleep(0.5)
        self.assertEqual([True, True], [_alive(p) for p in sleeps])
