"""benchmarks/run_level_undone.py: a run's pairs back at their first attempts.

The records are written here in the shape measured_runs keeps them.
"""

import unittest

from benchmarks import run_level_undone
from rally_container_bench.workloads import metrics

CPU = "sysbench.cpu.events_per_s"


def _records(*attempts):
    """A pair's records: (attempt, final, below_level or None, disturbed)."""
    found = []
    for attempt, final, below, disturbed in attempts:
        for twin in (False, True):
            facts = dict(test="cpu", repeat=1, attempt=attempt, final=final,
                         disturbed=disturbed)
            if twin:
                facts["twin"] = "native"
                if below is not None:
                    facts["below_level"] = below
            found.append(metrics.Record(CPU, 1000.0, "events/s", True,
                                        facts))
    return {"tasks": [{"subtasks": [{"workloads": [{"data": [{
        "output": {"complete": [metrics.records_table(found)]}}]}]}]}]}


def _finals(document):
    table = document["tasks"][0]["subtasks"][0]["workloads"][0]["data"][0][
        "output"]["complete"][0]
    return [(r.metadata["attempt"], r.metadata["final"])
            for r in metrics.records_from(table)]


class FirstAttemptsTestCase(unittest.TestCase):

    def test_a_pair_measured_again_for_a_low_run_keeps_its_first(self):
        document = _records((1, False, -0.4, False), (2, True, None, False))
        undone, changed = run_level_undone.first_attempts(document)
        self.assertEqual(1, changed)
        self.assertEqual([(1, True)] * 2 + [(2, False)] * 2,
                         _finals(undone))
        # the run's own document is left as it was
        self.assertEqual([(1, False)] * 2 + [(2, True)] * 2,
                         _finals(document))

    def test_a_pair_measured_again_for_foreign_load_stays(self):
        document = _records((1, False, -0.4, True), (2, True, None, False))
        self.assertEqual(0, run_level_undone.first_attempts(document)[1])
        document = _records((1, True, None, False))
        self.assertEqual(0, run_level_undone.first_attempts(document)[1])
