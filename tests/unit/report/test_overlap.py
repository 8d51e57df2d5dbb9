"""report/overlap.py: tests at once and time beside other phases."""

import unittest

from rally_container_bench.report import overlap


def action(name, start, end, inside=None):
    found = {"name": name, "started_at": start, "finished_at": end,
             "children": []}
    if inside:
        found["children"].append({"name": overlap.INSIDE,
                                  "started_at": inside[0],
                                  "finished_at": inside[1]})
    return found


def iteration(*actions):
    return {"atomic_actions": list(actions)}


class TestRunsTestCase(unittest.TestCase):

    def test_host_timing_without_a_run_inside(self):
        # The second command's dispatch took 1 s of the first's 2 s.
        runs = overlap.test_runs([
            iteration(action("sysbench.cpu", 0.0, 2.0)),
            iteration(action("sysbench.cpu", 1.0, 3.0))])
        self.assertEqual([1.5, 1.5], [r.effective for r in runs])

    def test_the_run_inside_the_instance_is_what_counts(self):
        # The same dispatch, but inside both ran over the same second.
        runs = overlap.test_runs([
            iteration(action("sysbench.cpu", 0.0, 2.0, inside=(1.5, 2.5))),
            iteration(action("sysbench.cpu", 1.0, 3.0, inside=(1.5, 2.5)))])
        self.assertEqual([2.0, 2.0], [r.effective for r in runs])

    def test_beside_counts_other_instances_phases_only(self):
        runs = overlap.test_runs([
            iteration(action("build", 0.0, 1.0),
                      action("sysbench.cpu", 1.0, 3.0, inside=(1.0, 3.0)),
                      action("delete", 3.0, 4.0)),
            iteration(action("build", 0.0, 2.0),
                      action("sysbench.cpu", 2.0, 3.0),
                      action("delete", 3.0, 4.0))])
        # The first test spent 1 s of 2 beside the second one's build.
        self.assertEqual([0.5, 0.0], [r.beside for r in runs])
        self.assertEqual(1.5, runs[0].effective)
