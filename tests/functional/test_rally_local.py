"""LocalInstances scenarios through Rally's CLI on a real engine (Docker,
the quickest to boot); every engine runs in tools/quickstart.sh's job."""

import os

from tests.functional import helpers

SAMPLES = os.path.join("samples", "tasks", "scenarios", "local-instances")


class RallyLocalDockerTestCase(helpers.DockerRallyTestCase):

    def test_boot_sysbench_delete_sample(self):
        uuid, _ = self.home.start(os.path.join(SAMPLES,
                                               "boot-sysbench-delete.yaml"))
        (workload,) = helpers.workloads(self.home.results(uuid))
        self.assertEqual(0, workload["failed_iteration_count"])
        for iteration in workload["data"]:
            self.assertEqual(
                ["build", "network", "sysbench.cpu", "sysbench.memory.read",
                 "sysbench.fileio.rndrd", "delete"],
                helpers.atomic_names(iteration))
            tables = {t["title"]: t for t in iteration["output"]["complete"]}
            environment = dict(tables["environment"]["data"]["rows"])
            self.assertEqual(("docker", "runc"), (environment["driver"],
                                                  environment["runtime"]))
            stamps = dict(tables["engine timestamps"]["data"]["rows"])
            self.assertGreater(float(stamps["started"]),
                               float(stamps["created"]))
            self.assertGreater(helpers.additive(iteration)["sysbench cpu"]
                               ["events_per_s (events/s)"], 0)
        self.assertEqual([], self.containers(uuid))

    def test_boot_and_delete_sample(self):
        uuid, _ = self.home.start(os.path.join(SAMPLES,
                                               "boot-and-delete.yaml"))
        (workload,) = helpers.workloads(self.home.results(uuid))
        self.assertEqual(0, workload["failed_iteration_count"])
        self.assertEqual(4, workload["total_iteration_count"])
        for iteration in workload["data"]:
            self.assertEqual(["build", "network", "delete"],
                             helpers.atomic_names(iteration))
