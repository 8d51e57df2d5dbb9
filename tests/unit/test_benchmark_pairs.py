"""benchmarks/pairs_at_once.py: its plan, and the figures it reads.

The documents are written here in the shape the scenarios write; the
benchmark's real run is in the guide's report page ("Pairs at once or in
sequence").
"""

import math
import os
import shutil
import tempfile
import unittest

from benchmarks import pairs_at_once
from rally_container_bench.engines.native import instance as native
from rally_container_bench.report import results
from rally_container_bench.validity import cpu_pairs
from rally_container_bench.workloads import metrics

CPU = "sysbench.cpu.events_per_s"


def _iteration(driver, value, twin, mode, skew=None):
    facts = dict(final=True, attempt=1, repeat=1, pairing=mode)
    if skew is not None:
        facts["skew_ms"] = skew
    records = [metrics.Record(CPU, value, "events/s", True,
                              dict(facts, paired=True)),
               metrics.Record(CPU, twin, "events/s", True,
                              dict(facts, twin="native"))]
    return {"output": {"complete": [
        {"title": "environment", "chart_plugin": "Table",
         "data": {"cols": ["key", "value"], "rows": [["driver", driver]]}},
        metrics.records_table(records)]}}


class PairsAtOnceBenchmarkTestCase(unittest.TestCase):

    def test_the_plan_takes_the_four_cells_in_turn(self):
        plan = pairs_at_once.plan_of(4, "docker")
        self.assertEqual(8, len(plan))
        self.assertEqual(
            [(native.AA, "sequential"), (native.AA_AT_ONCE, "at-once"),
             ("docker", "sequential"), ("docker", "at-once")],
            [(row[0], row[5]) for row in plan[:4]])
        self.assertEqual(4, sum(row[3] for row in plan
                                if row[0] == native.AA))

    def test_pair_sd_and_bias_per_cell_and_mode(self):
        data = [_iteration("docker", 1010, 1000, "at once", 0.5),
                _iteration("docker", 1000, 1000, "at once", -1.5),
                _iteration("docker", 990, 1000, "in sequence")]
        document = {"tasks": [{"subtasks": [{"workloads": [
            {"data": data}]}]}]}
        rows = {r["mode"]: r for r in pairs_at_once.figures(
            pairs_at_once.pairs_of(document))}
        once = rows["at once"]
        self.assertEqual(2, once["pairs"])
        self.assertAlmostEqual(math.log(1.01) / math.sqrt(2), once["sd"])
        self.assertAlmostEqual(1.5, once["skew_ms"])
        self.assertAlmostEqual(-0.01, rows["in sequence"]["bias"])

    @unittest.skipUnless(shutil.which("sysbench") and shutil.which("taskset")
                         and len(cpu_pairs.one_per_core(
                             *cpu_pairs.host_cpus())) >= 2,
                         "needs sysbench, taskset and two cores")
    def test_bare_pairs_run_sysbench_with_no_harness_and_read_back(self):
        found = pairs_at_once.bare_pairs(1, seed=1, first=3)
        self.assertEqual(
            {(pairs_at_once.BARE, mode, metric)
             for mode in (results.IN_SEQUENCE, results.AT_ONCE)
             for metric in pairs_at_once.HEADLINES}, set(found))
        for pairs in found.values():
            (a, b, skew), = pairs
            self.assertGreater(a, 0)
            self.assertGreater(b, 0)
            self.assertIsNone(skew)
        out = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, out)
        source = os.path.join(out, "rally.json")
        self.assertEqual({}, pairs_at_once._bare_read(source))
        pairs_at_once._bare_write(out, found)
        self.assertEqual(found, pairs_at_once._bare_read(source))
