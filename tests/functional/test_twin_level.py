"""Twins judged against their level, on this host through Rally's CLI.

The A/A cell (native against its twin) with a short cpu test, a bound of
1 % so that ordinary spread crosses it (the default 10 % is crossed by
the host's own dips, which no test can order): the first twins are
never judged, every twin the runner processes judged slow had its pair
measured again, and what they judged is what validity.twin_level judges
on the twins' values in the order they ran. The comparison report says
how many twins were slow.
"""

import json
import os
import unittest

from rally_container_bench.report import comparison
from rally_container_bench.report import render
from rally_container_bench.task import output_tables as tables
from rally_container_bench.validity import twin_level
from rally_container_bench.workloads import metrics
from tests.functional import helpers

BOUND = 0.01
TIMES = 30
# a cpu test of ~15 ms: its spread crosses 1 % often, its runs cost little
SHORT_CPU = {"test": "cpu", "cpu_max_prime": 2000, "events": 200,
             "threads": 1}
TASK = """---
version: 2
title: twins judged against their level
subtasks:
  - title: A/A at 1
    workloads:
      - scenario:
          NativeHost.against_twin:
            tests: [%s]
        runner:
          constant:
            times: %d
            concurrency: 1
""" % (json.dumps(SHORT_CPU), TIMES)
RATE = "sysbench.cpu.events_per_s"


def _twins(iteration):
    """[(attempt, value, below_level)] of the iteration's twin records."""
    for table in iteration["output"]["complete"]:
        if table["title"] == metrics.RECORDS_TITLE:
            return sorted(
                (r.metadata["attempt"], r.value,
                 r.metadata.get("below_level"))
                for r in metrics.records_from(table)
                if r.metric == RATE and r.metadata.get("twin"))
    return []


class TwinLevelTestCase(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.home = helpers.RallyHome({"twin_level_bound": BOUND})
        task = os.path.join(cls.home.path, "twin-level.yaml")
        with open(task, "w") as f:
            f.write(TASK)
        uuid, _ = cls.home.start(task)
        cls.report = cls.home.results(uuid)
        (cls.workload,) = helpers.workloads(cls.report)
        cls.iterations = sorted(cls.workload["data"],
                                key=lambda i: i["timestamp"])

    @classmethod
    def tearDownClass(cls):
        cls.home.close()

    def test_slow_twins_are_measured_again_as_the_level_says(self):
        history, judged, slow = [], 0, 0
        for number, iteration in enumerate(self.iterations):
            self.assertFalse(iteration["error"], iteration["error"])
            twins = _twins(iteration)
            self.assertTrue(twins)
            for attempt, value, below in twins:
                expected = twin_level.shortfall(value, history, BOUND)
                if expected is None:
                    self.assertIsNone(below, (number, attempt, value))
                else:
                    self.assertAlmostEqual(expected, below, places=3)
                    slow += 1
                judged += len(history) >= twin_level.HISTORY
                history.append(value)
            # a slow twin's pair was measured again, to the bound
            attempts = [attempt for attempt, _, _ in twins]
            self.assertEqual(list(range(1, len(attempts) + 1)), attempts)
            for attempt, _, below in twins[:-1]:
                self.assertIsNotNone(below, (number, twins))
            if number < twin_level.HISTORY:
                self.assertEqual(1, len(twins), (number, twins))
        self.assertGreaterEqual(judged, TIMES - twin_level.HISTORY)
        self.assertGreater(slow, 0)
        rows = [row for i in self.iterations
                for row in helpers.table_rows(i, tables.VALIDITY)]
        self.assertEqual(slow, sum(1 for row in rows
                                   if row["disturbed"] == tables.TWIN_SLOW))
        self.assertIn("more than 1 % below the median",
                      helpers.environment(self.iterations[0])["twin_level"])

    def test_the_report_counts_the_slow_twins(self):
        report = comparison.build([self.report])
        said = report["disturbance"]
        self.assertGreater(said["twin_slow"], 0)
        self.assertLessEqual(said["twin_slow_kept"], said["twin_slow"])
        self.assertIn("Twins: %d twin run(s) read far below"
                      % said["twin_slow"], render.to_markdown(report))
