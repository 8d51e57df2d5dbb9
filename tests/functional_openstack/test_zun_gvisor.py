"""Zun with gVisor's runsc on the real all-in-one cloud.

The kata-vs-runc HTTP study's runc vs sandbox, its sandbox half: two containers
at once through tasks/kvm_vs_docker.yaml with zun_runtime runsc, as
tasks/args/aio-gvisor.yaml asks (which adds runc and native beside it, and 8 at
once). The Zun host's dockerd knows runsc: setup.sh registers there the
runtimes rcbench's dockerd has (zun.sh). The mission's plain command (rally
task start, no rcbench decide) without compute_hosts: its report says per
cell that the tests ran unpaired, and why. Skips without the cloud.
"""

import json
import os
import unittest

from rally_container_bench.report import comparison
from tests.functional import helpers
from tests.functional_openstack import cloud as aio

ARGS = os.path.join(helpers.TOP, "tasks", "args", "aio-gvisor.yaml")
TASK_ARGS = json.dumps({"platforms": ["container"], "zun_runtime": ["runsc"],
                        "concurrency": [2]})


class ZunGvisorTestCase(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.home = aio.aio_rally_home()
        cls.uuid, _ = cls.home.start(aio.TASK, "--task-args-file", ARGS,
                                     "--task-args", TASK_ARGS)
        cls.report = cls.home.results(cls.uuid)

    @classmethod
    def tearDownClass(cls):
        cls.home.close()

    def test_containers_ran_under_runsc_and_measured(self):
        (workload,) = helpers.workloads(self.report)
        self.assertEqual(0, workload["failed_iteration_count"])
        self.assertEqual(2, workload["total_iteration_count"])
        for iteration in workload["data"]:
            env = helpers.key_value_tables(iteration)["environment"]
            self.assertEqual(("zun", "runsc", "runsc"),
                             (env["driver"], env["runtime"],
                              env["runtime_requested"]))
            cpu, memory = helpers.cpu_and_memory_rates(iteration)
            self.assertGreater(cpu, 0)
            self.assertGreater(memory, 0)

    def test_report_labels_the_runtime(self):
        report = comparison.build([self.report])
        self.assertEqual(["zun-runsc"],
                         [p["label"] for p in report["platforms"]])

    def test_report_says_per_cell_the_tests_ran_unpaired(self):
        report = comparison.build([self.report])
        (cell,) = report["placement"]
        self.assertEqual(("zun-runsc", 2), (cell["platform"],
                                            cell["concurrency"]))
        (pairing,) = cell["pairing"]
        self.assertIn("unpaired: no compute_hosts given", pairing)
        self.assertEqual(2, sum(cell["hosts"].values()))
