"""LocalInstances scenarios through Rally's CLI on a real engine (Docker,
the quickest to boot); every engine runs in tools/quickstart.sh's job.
The guest's private key is in none of a sysbench sample's outputs (task
start, HTML and JSON reports; before 2026-11-27 a task of its own in
test_local_faults)."""

import json
import os

from rally_container_bench.engines import registry
from tests.functional import helpers

SAMPLES = os.path.join("samples", "tasks", "scenarios", "local-instances")


class RallyLocalDockerTestCase(helpers.DockerRallyTestCase):

    def run_sysbench_sample(self, sample, driver, runtime,
                            no_key_in_outputs=False):
        """Run a sample, check its workload; its iterations' environments.

        no_key_in_outputs: also check that the guest's private key is in
        none of its outputs (task start, HTML and JSON reports).
        """
        uuid, stdout = self.home.start(os.path.join(SAMPLES, sample))
        report = self.home.results(uuid)
        if no_key_in_outputs:
            self.assert_no_private_key(uuid, stdout, report)
        (workload,) = helpers.workloads(report)
        self.assertEqual(0, workload["failed_iteration_count"])
        environments = []
        for iteration in workload["data"]:
            self.assertEqual(
                ["build", "network", "sysbench.cpu", "sysbench.memory.read",
                 "sysbench.fileio.rndrd", "delete"],
                helpers.atomic_names(iteration))
            tables = {t["title"]: t for t in iteration["output"]["complete"]}
            environment = dict(tables["environment"]["data"]["rows"])
            self.assertEqual((driver, runtime), (environment["driver"],
                                                 environment["runtime"]))
            stamps = dict(tables["engine timestamps"]["data"]["rows"])
            self.assertGreater(float(stamps["started"]),
                               float(stamps["created"]))
            self.assertGreater(helpers.additive(iteration)["sysbench cpu"]
                               ["events_per_s (events/s)"], 0)
            # no twin: the guest's own build, read and named
            self.assertRegex(environment["sysbench_build"],
                             r"^its own, build [0-9a-f]{12} ")
            environments.append(environment)
        self.assertEqual([], self.containers(uuid))
        return environments

    def assert_no_private_key(self, uuid, stdout, report):
        """The guest's key is in no output: task start, HTML, JSON."""
        image = registry.guest_image(self.conf)
        with open(os.path.join(image.dir, "id_ed25519")) as f:
            key_lines = [line.strip() for line in f
                         if line.strip() and "PRIVATE KEY" not in line]
        html = os.path.join(self.home.path, "report-%s.html" % uuid)
        self.home.rally("task", "report", uuid, "--out", html)
        with open(html) as f:
            outputs = {"task start": stdout, "html": f.read(),
                       "json": json.dumps(report)}
        for name, text in outputs.items():
            with self.subTest(output=name):
                self.assertNotIn("PRIVATE KEY", text)
                for line in key_lines:
                    self.assertNotIn(line, text)

    def test_boot_sysbench_delete_sample(self):
        self.run_sysbench_sample("boot-sysbench-delete.yaml", "docker",
                                 "runc", no_key_in_outputs=True)

    def test_boot_sysbench_delete_under_gvisor(self):
        conf = helpers.usable_conf(self, "docker-runsc")
        for environment in self.run_sysbench_sample(
                "boot-sysbench-delete-runsc.yaml", "docker-runsc", "runsc"):
            # The platform runsc really ran with, read back from dockerd.
            self.assertEqual("gvisor-" + conf.runsc_platform,
                             environment["acceleration"])
            self.assertEqual(conf.runsc_platform,
                             environment["gvisor_platform"])
            self.assertIn("hostinet", environment["network"])

    def test_boot_and_delete_sample(self):
        uuid, _ = self.home.start(os.path.join(SAMPLES,
                                               "boot-and-delete.yaml"))
        (workload,) = helpers.workloads(self.home.results(uuid))
        self.assertEqual(0, workload["failed_iteration_count"])
        self.assertEqual(4, workload["total_iteration_count"])
        for iteration in workload["data"]:
            self.assertEqual(["build", "network", "delete"],
                             helpers.atomic_names(iteration))
