"""Pairs at once on the real engines: docker and native, released together.

The sample's task (docker against native at once, and the A/A at once):
each pair's two sides ran on two different CPUs, the sides alternated
between them, both started within a hundredth of their length of each
other (measured on both sides), and every record and report names the
mode. The mode's choice (rcbench decide's calibration) is run by
test_decide.InstrumentCheckTestCase. Named test_decide_*: tox.ini runs it
alone, after the others (a start skew is a busy host's as much as ours).
"""

import os

from rally_container_bench.report import comparison
from rally_container_bench.report import render
from rally_container_bench.validity import cpu_pairs
from rally_container_bench.workloads import metrics
from tests.functional import helpers

SAMPLE = os.path.join(helpers.TOP, "samples", "tasks", "scenarios",
                      "local-instances", "boot-sysbench-delete-at-once.yaml")


def _records(iteration):
    for table in iteration["output"]["complete"]:
        if table["title"] == metrics.RECORDS_TITLE:
            return metrics.records_from(table)
    return []


class PairsAtOnceTestCase(helpers.DockerRallyTestCase):

    def test_docker_and_native_pairs_start_together_on_two_cpus(self):
        usable, siblings = cpu_pairs.host_cpus()
        if len(cpu_pairs.one_per_core(usable, siblings)) < 2:
            self.skipTest("one core: every pair runs in sequence")
        uuid, _ = self.home.start(SAMPLE)
        report = self.home.results(uuid)
        docker, aa = helpers.workloads(report)
        for workload in (docker, aa):
            placed = []
            for iteration in workload["data"]:
                self.assertFalse(iteration["error"], iteration["error"])
                environment = helpers.environment(iteration)
                self.assertTrue(environment["pairing"].startswith(
                    "at once"), environment["pairing"])
                placed.append(environment["pinning"])
                # one sysbench build on both sides, named on both
                self.assertEqual(
                    helpers.sysbench_build_id(environment["sysbench_build"]),
                    helpers.sysbench_build_id(
                        environment["twin_sysbench_build"]))
                self.assertNotIn("sysbench_builds", environment)
                kept = [r for r in _records(iteration)
                        if r.metadata.get("final")
                        and r.metric.endswith("events_per_s")]
                self.assertEqual(2, len(kept), kept)
                for record in kept:
                    facts = record.metadata
                    self.assertEqual("at once", facts["pairing"])
                    instance, twin = [int(w.rstrip(",")) for w in
                                      facts["cpus"].split()
                                      if w.rstrip(",").isdigit()]
                    self.assertNotEqual(instance, twin)
                    total = [r.value for r in _records(iteration)
                             if r.metric == "sysbench.cpu.total_time_s"
                             and r.metadata == facts]
                    # measured on both sides; on a quiet host (this
                    # runs alone, as tox.ini's test_decide group) no
                    # final pair is skewed
                    self.assertNotIn("skewed", facts)
                    self.assertLessEqual(
                        abs(facts["skew_ms"]) / 1000,
                        cpu_pairs.skew_bound(total[0]), facts)
            # the sides take turns on the two CPUs
            self.assertEqual(2, len(set(placed)), placed)
        built = comparison.build([report])
        rows = comparison.rows_for(built, "sysbench.cpu.events_per_s",
                                   concurrency=1)
        self.assertEqual({"at once"}, {r["pairing"] for r in rows
                                       if r["platform"] != "native"})
        self.assertIn("pairing", render.to_csv(built).splitlines()[0])
        self.assertEqual([], self.containers(uuid))
