"""The native runs' directories on this host: named for their task, found.

A killed Rally leaves its native twins' directory behind (nothing of the
scenario's own cleanup runs); rcbench cleanup --task finds it by the name
Rally would give the task's resources. Real directories, Rally's own
name generator and matcher.
"""

import contextlib
import os
import tempfile
import unittest

from rally.task import scenario

from rally_container_bench.cli import results as cli_results
from rally_container_bench.decide import rally_tasks
from rally_container_bench.task.scenarios import native

TASK = "3b8ee8a1-1b0c-4b51-9c6a-6c0b8a4c2f10"
OTHER = "9f2d5c17-0c5e-4a3e-bb1e-2d0f3c9a1e77"


class _Conf:
    def __init__(self, workdir):
        self.native_workdir = workdir


def _scenario(task):
    return native.NativeSysbench(
        {"owner_id": task, "task": {"uuid": task}, "iteration": 1})


class NativeScratchTestCase(unittest.TestCase):

    def setUp(self):
        self.parent = tempfile.mkdtemp(prefix="rcbench-test-")
        self.addCleanup(lambda: os.path.isdir(self.parent)
                        and os.rmdir(self.parent))

    def test_a_killed_tasks_directory_is_found_and_no_other(self):
        with contextlib.ExitStack() as stack:
            mine = _scenario(TASK)._scratch_here(stack, self.parent)
            other = _scenario(OTHER)._scratch_here(stack, self.parent)
            self.assertEqual(0o700, os.stat(mine).st_mode & 0o777)
            self.assertTrue(scenario.Scenario.name_matches_object(
                os.path.basename(mine), task_id=TASK))
            found = cli_results.native_scratch(
                _Conf(self.parent), rally_tasks.name_matcher([TASK]))
            self.assertEqual([mine], found)
            # any task's, as rcbench cleanup without --task
            self.assertEqual(sorted([mine, other]), cli_results.native_scratch(
                _Conf(self.parent), rally_tasks.name_matcher(None)))
        # the scenario's own cleanup removed both
        self.assertEqual([], os.listdir(self.parent))

    def test_a_missing_parent_finds_nothing(self):
        self.assertEqual([], cli_results.native_scratch(
            _Conf(os.path.join(self.parent, "gone")),
            rally_tasks.name_matcher(None)))
