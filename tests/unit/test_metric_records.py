"""Metrics travel as records from the parsers to the report.

The parsers (real outputs from tests/fixtures) give each metric its
direction; the records a scenario writes into Rally's results come back
unchanged; the report reads them rather than the "name (unit)" rows, and
reads older results (no records) as before.
"""

import copy
import json
import os
import unittest

from rally_container_bench.report import results
from rally_container_bench.workloads.fio import parse as fio_parse
from rally_container_bench.workloads import metrics
from rally_container_bench.workloads.net import http
from rally_container_bench.workloads.net import iperf3
from rally_container_bench.workloads.sysbench import parse as sysbench_parse

FIXTURES = os.path.join(os.path.dirname(__file__), "..", "fixtures")


def fixture(*parts):
    with open(os.path.join(FIXTURES, *parts)) as f:
        return f.read()


def iteration(records, **tables):
    """An iteration as a scenario writes it: StatsTables and records."""
    additive = [{"title": title, "chart_plugin": "StatsTable",
                 "description": "", "data": metrics.stats_rows(found)}
                for title, found in tables.items()]
    return {"error": [], "atomic_actions": [],
            "output": {"additive": additive,
                       "complete": [metrics.records_table(records)]}}


class ParsersGiveDirectionsTestCase(unittest.TestCase):

    def test_each_tool(self):
        cpu = sysbench_parse.parse(fixture("sysbench", "1.0.20",
                                           "cpu-events.txt")).metrics
        self.assertTrue(cpu["events_per_s"].higher_is_better)
        self.assertFalse(cpu["latency_p95_ms"].higher_is_better)
        fio = fio_parse.parse(fixture("fio", "3.33", "randread.json"))
        self.assertTrue(fio.metrics["read_iops"].higher_is_better)
        self.assertFalse(fio.metrics["read_clat_p99_ms"].higher_is_better)
        net = iperf3.parse(fixture("iperf3", "3.12",
                                   "to-instance-2streams.json")).metrics
        self.assertTrue(net["throughput_gbit_s"].higher_is_better)
        self.assertFalse(net["retransmits"].higher_is_better)
        web = http.parse(fixture("wrk", "4.1.0", "c8.txt"), "4.1.0").metrics
        self.assertTrue(web["requests_per_s"].higher_is_better)
        self.assertFalse(web["errors"].higher_is_better)


class RoundTripTestCase(unittest.TestCase):

    def setUp(self):
        found = sysbench_parse.parse(fixture(
            "sysbench", "1.0.20", "memory-read-seq.txt")).metrics
        self.records = metrics.records_of("sysbench", "memory.read", found,
                                          round=2)

    def test_records_come_back_from_rallys_json_as_written(self):
        table = json.loads(json.dumps(metrics.records_table(self.records)))
        back = metrics.records_from(table)
        self.assertEqual(self.records, back)
        self.assertEqual([r.metadata for r in self.records],
                         [r.metadata for r in back])
        self.assertEqual({"tool": "sysbench", "test": "memory.read",
                          "round": 2}, back[0].metadata)
        self.assertIn("sysbench.memory.read.mib_per_s",
                      [r.metric for r in back])

    def test_the_report_reads_the_same_samples_as_from_the_rows(self):
        it = iteration(self.records,
                       **{"sysbench memory.read": self.records})
        from_records = list(results._iteration_values(it))
        older = copy.deepcopy(it)
        older["output"]["complete"] = []
        from_rows = list(results._iteration_values(older))
        self.assertEqual(sorted(from_rows), sorted(from_records))
        self.assertEqual(len(self.records), len(from_records))

    def test_records_keep_what_the_rows_cannot_say(self):
        # A direction the parser's table does not know (a new metric, or
        # one a scenario computed): the rows' reader guesses "higher is
        # better" for it, the records say what was written.
        odd = [metrics.Record("sysbench.cpu.made_up_s", 1.0, "s", False)]
        it = iteration(odd, **{"sysbench cpu": odd})
        self.assertEqual([("sysbench.cpu.made_up_s", "s", False, 1.0)],
                         list(results._iteration_values(it)))
        it["output"]["complete"] = []
        self.assertEqual([("sysbench.cpu.made_up_s", "s", True, 1.0)],
                         list(results._iteration_values(it)))
