"""fio jobs in a task's tests list, on the host and in a Docker container,
through Rally's CLI, and how the comparison report lines them up."""

import os

from rally_container_bench.report import comparison
from tests.functional import helpers

SAMPLE = os.path.join("samples", "tasks", "workloads",
                      "fio-and-sysbench-fileio.yaml")
ACTIONS = ["sysbench.fileio.rndrd", "fio.randread", "fio.write"]


class FioWorkloadTestCase(helpers.DockerRallyTestCase):

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.uuid, _ = cls.home.start(SAMPLE)
        cls.results = cls.home.results(cls.uuid)

    def test_fio_runs_where_sysbench_does(self):
        found = helpers.workloads(self.results)
        self.assertEqual(["NativeHost.sysbench",
                          "LocalInstances.boot_sysbench_delete"],
                         [next(iter(w["scenario"])) for w in found])
        for workload in found:
            self.assertEqual(0, workload["failed_iteration_count"])
            for iteration in workload["data"]:
                names = helpers.atomic_names(iteration)
                self.assertEqual(ACTIONS, [n for n in names
                                           if n in ACTIONS])
                out = helpers.additive(iteration)
                self.assertGreater(out["fio randread"]["read_iops (IOPS)"],
                                   0)
                self.assertNotIn("write_iops (IOPS)", out["fio randread"])
                self.assertGreater(
                    out["fio write"]["write_mib_per_s (MiB/s)"], 0)
                self.assertLessEqual(
                    out["fio randread"]["read_clat_p50_ms (ms)"],
                    out["fio randread"]["read_clat_p99_ms (ms)"])
                environment = helpers.environment(iteration)
                self.assertTrue(environment["fio_version"].startswith("3."))
                self.assertIn("sysbench_version", environment)
        self.assertEqual([], self.containers(self.uuid))

    def test_report_lines_fio_up_with_native(self):
        report = comparison.build([self.results])
        self.assertEqual(["native", "docker-runc"],
                         [p["label"] for p in report["platforms"]])
        metrics = {m["name"]: m for m in report["metrics"]}
        read = metrics["fio.randread.read_mib_per_s"]
        self.assertEqual(("workload", True, True),
                         (read["kind"], read["higher_is_better"],
                          read["headline"]))
        self.assertFalse(metrics["fio.randread.read_clat_p99_ms"]
                         ["higher_is_better"])
        rows = comparison.rows_for(report, "fio.write.write_mib_per_s",
                                   concurrency=1)
        self.assertEqual({"native", "docker-runc"},
                         {row["platform"] for row in rows})
