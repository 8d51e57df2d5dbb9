"""A cloud's results in the report: where each instance ran, rows per host
of a cell on two hosts, a host whose native level stands apart, and a
failed iteration under its platform.

The documents are built here in the shape NovaInstances writes them (an
environment table with compute_host and pairing, metric records with
each test's native twin); the real runs are in
tests/functional_openstack.
"""

import unittest

import numpy as np

from rally_container_bench.report import comparison
from rally_container_bench.report import placement
from rally_container_bench.report import render
from rally_container_bench.report import results
from rally_container_bench.workloads import metrics

METRIC = "sysbench.cpu.events_per_s"


def _iteration(host, value, twin, at, error=None):
    facts = dict(tool="sysbench", test="cpu", attempt=1, final=True,
                 disturbed=False, order="instance first")
    records = [metrics.Record(METRIC, value, "events/s", True,
                              dict(facts, paired=True)),
               metrics.Record(METRIC, twin, "events/s", True,
                              dict(facts, twin="native"))]
    env = [["driver", "nova"], ["runtime", "lxc"], ["compute_host", host],
           ["twin_host", host],
           ["pairing", "each test paired with a native twin on the "
                       "instance's compute host %s" % host]]
    return {"timestamp": at, "duration": 10.0, "error": error or [],
            "atomic_actions": [],
            "output": {"additive": [], "complete": [] if error else [
                {"title": "environment", "chart_plugin": "Table",
                 "data": {"cols": ["key", "value"], "rows": env}},
                metrics.records_table(records)]}}


def _document(iterations, step=2, cell="nova-lxc"):
    return {"tasks": [{"uuid": "t", "subtasks": [{"workloads": [{
        "scenario": {"NovaInstances.boot_sysbench_delete": {
            "hypervisor_type": "lxc", "tests": ["quick-cpu"]}},
        "runner": {"constant": {"times": len(iterations),
                                "concurrency": step}},
        "contexts": {"rcbench_round": {"round": 1, "rounds": 1,
                                       "cell": cell}},
        "data": iterations}]}]}]}


def _two_hosts(n=12, slower_host=1.0, effect=0.99, seed=5):
    """Iterations alternating over c1 and c2; c2's hardware slower_host."""
    rng = np.random.default_rng(seed)
    found = []
    for i in range(n):
        host = "c%d" % (1 + i % 2)
        level = 1000 * (slower_host if host == "c2" else 1.0)
        twin = level * rng.normal(1, 0.003)
        found.append(_iteration(host, twin * effect * rng.normal(1, 0.003),
                                twin, 100.0 * i))
    return found


class PlacementTestCase(unittest.TestCase):

    def test_where_each_cells_instances_ran_and_how_they_paired(self):
        report = comparison.build([_document(_two_hosts())])
        self.assertEqual(
            [{"platform": "nova-lxc", "concurrency": 2,
              "hosts": {"c1": 6, "c2": 6},
              "pairing": ["each test paired with a native twin on the "
                          "instance's compute host c1",
                          "each test paired with a native twin on the "
                          "instance's compute host c2"]}],
            report["placement"])
        self.assertEqual({"nova-lxc": "nova-lxc"}, report["cells"])

    def test_a_cell_on_two_hosts_gets_a_row_per_host(self):
        report = comparison.build([_document(_two_hosts())])
        rows = [r for r in report["host_rows"] if r["metric"] == METRIC]
        self.assertEqual(["c1", "c2"], [r["host"] for r in rows])
        self.assertEqual([6, 6], [r["pairs"] for r in rows])
        pooled = comparison.rows_for(report, METRIC, "nova-lxc", 2)[0]
        self.assertEqual(12, pooled["pairs"])
        self.assertNotIn("host", pooled)

    def test_rows_per_host_are_the_headline_metrics_only(self):
        # one row per cell and host, not one per latency percentile (78
        # rows of "-" on the test cloud, 2026-12-02)
        iterations = _two_hosts()
        for number, iteration in enumerate(iterations):
            table = iteration["output"]["complete"][1]
            extra = metrics.records_table([metrics.Record(
                "sysbench.cpu.latency_p95_ms", 1.0 + number % 3, "ms",
                False, {"tool": "sysbench", "test": "cpu", "attempt": 1,
                        "final": True, "paired": True})])
            table["data"]["rows"] += extra["data"]["rows"]
        report = comparison.build([_document(iterations)])
        self.assertIn("sysbench.cpu.latency_p95_ms",
                      {r["metric"] for r in report["rows"]})
        self.assertEqual({METRIC}, {r["metric"] for r in report["host_rows"]})

    def test_within_host_pairs_hide_no_host_behind_another(self):
        # c2 is 20 % slower hardware: the pooled verdict from within-host
        # pairs still sees the platform's -1 %, and c2 is named.
        report = comparison.build([_document(_two_hosts(slower_host=0.8))],
                                  margins={"cpu": 0.05})
        pooled = comparison.rows_for(report, METRIC, "nova-lxc", 2)[0]
        self.assertEqual("equivalent", pooled["verdict"])
        self.assertAlmostEqual(-0.01, pooled["change"], delta=0.005)
        levels = report["native_levels"]
        self.assertEqual({"c1", "c2"}, {lv["host"] for lv in levels})
        c2 = next(lv for lv in levels if lv["host"] == "c2")
        self.assertEqual("worse", c2["verdict"])
        self.assertTrue(any("compute host c2" in w
                            for w in report["warnings"]))
        html = render.to_html(report)
        self.assertIn("Placement", html)
        self.assertIn("c2", html)

    def test_hosts_alike_are_not_named(self):
        report = comparison.build([_document(_two_hosts())],
                                  margins={"cpu": 0.05})
        self.assertEqual([], report["native_levels"])

    def test_a_failed_iteration_is_counted_under_its_platform(self):
        iterations = _two_hosts(n=4) + [_iteration(
            "c1", 0, 0, 500.0, error=["ResourceProviderUpdateConflict",
                                      "no host"])]
        report = comparison.build([_document(iterations)])
        labels = [p["label"] for p in report["platforms"]]
        self.assertEqual(["native", "nova-lxc"], labels)
        row = comparison.rows_for(report, METRIC, "nova-lxc", 2)[0]
        self.assertEqual(1, row["failed"])

    def test_a_workload_whose_iterations_all_failed_is_named_as_asked(self):
        failed = [_iteration("c1", 0, 0, 0.0, error=["boom", "x"])]
        report = comparison.build([_document(failed)])
        self.assertEqual(["nova-lxc"],
                         [p["label"] for p in report["platforms"]])

    def test_a_hosts_twins_of_one_wave_count_once(self):
        # 4 waves of 2 twins a host, each wave's moment moving its two
        # alike: a host's native level is measured by 4, not 8
        rng = np.random.default_rng(11)

        def twins(host, level):
            found = []
            for wave in range(4):
                moment = rng.normal(0, 0.02)
                for i in range(2):
                    found.append(results.Sample(
                        METRIC, "events/s", True,
                        level * np.exp(moment + rng.normal(0, 0.002)),
                        "native", 2, 1, (host, wave, i), "nova-lxc", host,
                        (1, wave + 1, METRIC, 1)))
            return found

        samples = twins("c1", 1000.0) + twins("c2", 960.0)
        headline = [{"name": METRIC, "headline": True,
                     "higher_is_better": True}]

        def c2_width(found):
            (c2,) = [lv for lv in placement.native_levels(
                found, headline, lambda metric: 0.01) if lv["host"] == "c2"]
            return c2["ci_high"] - c2["ci_low"]

        as_draws = [s._replace(moment=None) for s in samples]
        self.assertGreater(c2_width(samples), 1.4 * c2_width(as_draws))
