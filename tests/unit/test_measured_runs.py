"""The plan of a test's attempts: barrier points, roles, disturbance."""

import unittest

from rally_container_bench.task.scenarios import measured_runs
from rally_container_bench.workloads import tests as tests_lib


def _plan(**fields):
    values = dict(executor=None, executable="sysbench", workdir="/root",
                  timeout=60, endpoint=None, versions={}, sync=None,
                  twin=measured_runs.Twin(None, "sysbench", "/tmp"),
                  host=None, limit=0.25, attempts=3, tests=2, repeats=2)
    values.update(fields)
    return measured_runs.Plan(**values)


class PlanTestCase(unittest.TestCase):

    def test_every_run_and_decision_has_a_point_of_its_own(self):
        plan = _plan()
        points = [plan.point(t, r, a, s) for t in range(2) for r in range(2)
                  for a in range(3) for s in range(measured_runs.SLOTS)]
        self.assertEqual(len(points), len(set(points)))
        self.assertEqual(plan.end_point, max(points) + 1)

    def test_roles_alternate_and_only_local_tools_pair(self):
        plan = _plan()
        cpu = tests_lib.resolve("quick-cpu")
        self.assertEqual(["instance", "native twin"], plan.roles(cpu, 0))
        self.assertEqual(["native twin", "instance"], plan.roles(cpu, 1))
        self.assertEqual(["instance"], _plan(twin=None).roles(cpu, 1))
        iperf = tests_lib.resolve(next(
            n for n in tests_lib.names() if n.startswith("iperf3")))
        self.assertEqual(["instance"], plan.roles(iperf, 0))


class DisturbedTestCase(unittest.TestCase):

    def outcome(self, foreign, seconds):
        return measured_runs.Outcome(
            "instance", load={"foreign": foreign, "seconds": seconds},
            limit=0.25)

    def test_beyond_the_limit_is_disturbed(self):
        self.assertTrue(self.outcome(0.5, 5.0).disturbed)
        self.assertFalse(self.outcome(0.2, 5.0).disturbed)

    def test_a_short_run_allows_for_the_rounding_of_ticks(self):
        # 0.15 s: 3 ticks of rounding read as 0.2 cores
        self.assertFalse(self.outcome(0.4, 0.15).disturbed)
        self.assertTrue(self.outcome(0.5, 0.15).disturbed)

    def test_unmeasured_is_not_disturbed(self):
        self.assertFalse(measured_runs.Outcome("instance").disturbed)
