"""rcbench decide measures no more the tests no round left can settle.

The real run: tests/functional/test_decide.py.
"""

import unittest

from rally_container_bench.decide import budget
from rally_container_bench.decide import rally_runs
from rally_container_bench.decide import run as decide_run

CPU = "sysbench.cpu.events_per_s"
MEMORY = "sysbench.memory.read.mib_per_s"


def _report(rows):
    """A comparison report's shape.

    rows: {(label, step, metric): (verdict, iterations_needed, pairs)}.
    """
    return {"platforms": [{"driver": "docker", "label": "docker-runc"},
                          {"driver": "lxc", "label": "lxc"},
                          {"driver": "native-aa", "label": "native-aa"}],
            "metrics": [{"name": CPU, "headline": True},
                        {"name": MEMORY, "headline": True}],
            "rows": [{"platform": label, "concurrency": step,
                      "metric": metric, "verdict": verdict,
                      "iterations_needed": needed, "pairs": pairs}
                     for (label, step, metric), (verdict, needed, pairs)
                     in rows.items()]}


BOTH = ["quick-cpu", "quick-memory-read"]


class OutOfReachTestCase(unittest.TestCase):

    def test_a_test_needing_more_than_four_times_its_reach_is_out(self):
        # at 2, one round of 6 waves adds 12 pairs: reach 12 + 12 = 24
        report = _report({
            ("docker-runc", 2, CPU): ("inconclusive", 97, 12),
            ("docker-runc", 2, MEMORY): ("inconclusive", 96, 12),
            ("lxc", 2, CPU): ("inconclusive", None, 12),
            ("lxc", 2, MEMORY): ("equivalent", None, 12)})
        left = {("docker", 2): list(BOTH), ("lxc", 2): ["quick-cpu"]}
        found = budget.out_of_reach(report, left, 1, 6)
        # 97 > 4 x 24; 96 is not; no number of pairs settles lxc's cpu
        self.assertEqual({("docker", 2): [("quick-cpu", 97)],
                          ("lxc", 2): [("quick-cpu", None)]}, found)
        self.assertEqual({("docker", 2): ["quick-memory-read"],
                          ("lxc", 2): []},
                         budget.within_reach(left, found))
        self.assertEqual(
            ["docker at 2: cpu (needs ~97 pairs)",
             "lxc at 2: cpu (no number of pairs settles it)"],
            budget.reach_lines(found))

    def test_more_rounds_left_reach_further(self):
        report = _report({("docker-runc", 1, CPU): ("inconclusive", 97, 6)})
        left = {("docker", 1): ["quick-cpu"]}
        self.assertIn(("docker", 1), budget.out_of_reach(report, left, 1, 6))
        # 6 + 2 x 6 = 18 pairs by the last round: 97 > 72 still
        self.assertIn(("docker", 1), budget.out_of_reach(report, left, 2, 6))
        # 6 + 3 x 6 = 24: 97 > 96, just
        self.assertIn(("docker", 1), budget.out_of_reach(report, left, 3, 6))
        self.assertEqual({}, budget.out_of_reach(report, left, 4, 6))

    def test_a_test_with_no_interval_yet_or_kept_is_measured_on(self):
        report = _report({
            ("docker-runc", 1, CPU): (None, None, 0),
            ("native-aa", 1, CPU): ("inconclusive", 5000, 6)})
        left = {("docker", 1): ["quick-cpu"], ("native-aa", 1): ["quick-cpu"],
                ("lxc", 1): ["quick-cpu"]}  # lxc: no row at all
        self.assertEqual({}, budget.out_of_reach(
            report, left, 1, 6, keep={("native-aa", 1): ["quick-cpu"]}))


class _Progress:

    def __init__(self):
        self.said = []

    def say(self, line):
        self.said.append(line)

    def elapsed(self):
        return 0.0


def _run(instrument=None):
    """A SequentialRun with only what planning the next round reads."""
    found = object.__new__(decide_run.SequentialRun)
    found.progress = _Progress()
    found.budget, found.pairs = 600.0, 6
    found.instrument = instrument or {}
    found.out_of_reach = []
    return found


def _document(cells):
    """Rally's JSON document of one round: a workload per cell, 10 s."""
    return {"tasks": [{"uuid": "u1", "subtasks": [{"workloads": [
        {"scenario": {"LocalInstances.boot_sysbench_delete": {
            "driver": platform}},
         "runner": {"constant": {"times": 6 * step, "concurrency": step}},
         "contexts": {"rcbench_round": {"cell": platform}},
         "load_duration": 10.0, "full_duration": 10.0, "data": []}
        for platform, step in cells]}]}]}


class NextRoundTestCase(unittest.TestCase):

    def test_the_cells_out_of_reach_are_said_and_left_out(self):
        report = _report({
            ("docker-runc", 2, CPU): ("inconclusive", 10010, 12),
            ("lxc", 2, CPU): ("inconclusive", 20, 12)})
        left = {("docker", 2): ["quick-cpu"], ("lxc", 2): ["quick-cpu"]}
        run = _run()
        planned = run._next_round(_document([("docker", 2), ("lxc", 2)]),
                                  "u1", report, left, 30.0, 1)
        self.assertEqual({("lxc", 2): ["quick-cpu"]}, planned)
        self.assertEqual(["docker at 2: cpu (needs ~10010 pairs)"],
                         run.out_of_reach)
        self.assertIn("measured no more, out of reach of the 1 round(s) "
                      "left: docker at 2: cpu", run.progress.said[0])

    def test_none_within_reach_stops_and_says_why(self):
        report = _report({("docker-runc", 2, CPU): ("inconclusive", None,
                                                    12)})
        run = _run()
        planned = run._next_round(_document([("docker", 2)]), "u1", report,
                                  {("docker", 2): ["quick-cpu"]}, 30.0, 1)
        self.assertEqual({}, planned)
        self.assertEqual("stopping: no undecided cell is within reach",
                         run.progress.said[-1])

    def test_after_the_last_round_nothing_is_called_out_of_reach(self):
        report = _report({("docker-runc", 2, CPU): ("inconclusive", 10010,
                                                    12)})
        run = _run()
        run._next_round(_document([("docker", 2)]), "u1", report,
                        {("docker", 2): ["quick-cpu"]}, 30.0, 0)
        self.assertEqual([], run.out_of_reach)
        self.assertFalse(any("out of reach" in line
                             for line in run.progress.said))


class YieldKindTestCase(unittest.TestCase):

    def test_a_cloud_task_yields_rally_and_its_children(self):
        self.assertEqual(rally_runs.CLOUD,
                         rally_runs.yield_kind({"compute_hosts": []}))
