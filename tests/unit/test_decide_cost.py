"""Where a decided run's wall time went (decide/cost.py)."""

import unittest

from rally_container_bench.decide import cost


def _action(name, start, seconds):
    return {"name": name, "started_at": start,
            "finished_at": start + seconds, "children": []}


def _iteration(duration, actions):
    return {"duration": duration, "atomic_actions": [
        _action(name, 100.0, seconds) for name, seconds in actions]}


class CostTestCase(unittest.TestCase):

    def test_an_iterations_time_by_kind(self):
        split = cost.iteration_split(_iteration(20, [
            ("build", 5), ("network", 1), ("sysbench.cpu", 4),
            ("sysbench.memory.read", 2), ("delete", 3)]))
        self.assertEqual({"boots": 6, "tests": 6, "deletes": 3,
                          "twins_and_waits": 5}, split)

    def test_a_run_split_by_wall_time_per_decided_cell(self):
        # two iterations at once: their load counts its wall time once
        workload = {"full_duration": 30.0, "load_duration": 20.0,
                    "data": [_iteration(20, [("build", 10),
                                             ("sysbench.cpu", 10)]),
                             _iteration(20, [("build", 10),
                                             ("sysbench.cpu", 10)])]}
        document = {"tasks": [{"uuid": "t1", "subtasks": [
            {"workloads": [workload]}]}]}
        found = cost.of_run(document, [{"task": "t1", "seconds": 40.0}],
                            50.0, 2)
        self.assertEqual({"rally": 20.0, "contexts": 10.0, "boots": 10.0,
                          "tests": 10.0, "deletes": 0.0,
                          "twins_and_waits": 0.0}, found["seconds"])
        self.assertEqual(25.0, found["seconds_per_decided_cell"])
        self.assertEqual(0.4, found["shares"]["rally"])
        said = cost.line(found)
        self.assertTrue(said.startswith("cost: 50 s, 25 s per decided cell;"
                                        " wall time: Rally's own start and "
                                        "results 40 %"), said)

    def test_a_rounds_part_from_an_interrupted_session_counts(self):
        def task(uuid, tests):
            return {"uuid": uuid, "subtasks": [{"workloads": [{
                "full_duration": 10.0, "load_duration": 10.0,
                "data": [_iteration(10, [("sysbench.cpu", tests)])]}]}]}
        document = {"tasks": [task("killed", 10.0), task("t2", 6.0)]}
        # the first session ran 30 s, 10 of them the kept workload's; the
        # second 15 s, the round's other cell
        found = cost.of_run(document, [{"task": "t2", "seconds": 15.0,
                                        "kept_from": ["killed"]}],
                            45.0, 1)
        self.assertEqual({"rally": 25.0, "contexts": 0.0, "boots": 0.0,
                          "tests": 16.0, "deletes": 0.0,
                          "twins_and_waits": 4.0}, found["seconds"])

    def test_nothing_decided_says_so(self):
        found = cost.of_run({"tasks": []}, [{"task": "gone",
                                             "seconds": 10.0}], 10.0, 0)
        self.assertIsNone(found["seconds_per_decided_cell"])
        self.assertIn("no cell decided", cost.line(found))
        self.assertEqual(10.0, found["seconds"]["rally"])

    def test_a_round_an_interrupt_cut_short_counts_its_workloads(self):
        # Ctrl-C in round 1: no round is recorded, its task's whole cells
        # are kept (KEK's campaign on the test cloud read "Rally's own
        # start and results 100 %" after 48 min of tests, 2026-12-06)
        document = {"tasks": [{"uuid": "cut", "subtasks": [{"workloads": [{
            "full_duration": 40.0, "load_duration": 30.0,
            "data": [_iteration(30, [("build", 10),
                                     ("sysbench.cpu", 15)])]}]}]}]}
        found = cost.of_run(document, [], 50.0, 0)
        self.assertEqual({"rally": 10.0, "contexts": 10.0, "boots": 10.0,
                          "tests": 15.0, "deletes": 0.0,
                          "twins_and_waits": 5.0}, found["seconds"])
