"""tasks/kvm_vs_docker.yaml's kvm-tuned platform and the network tests on
the real all-in-one cloud: one QEMU server on a flavor the task makes with
extra specs, iperf3 both ways and HTTP load from this host to the server's
fixed IP. Skips without the cloud.

The extra spec is hw:cpu_policy=shared (Nova's default behaviour), the one
this cloud's compute host can honour without cpu_dedicated_set or reserved
huge pages: what is tested is the path (flavor made with the specs, server
booted on it, specs recorded, report label), not pinning itself.

Why ~5.5 min in CI: a whole cloud task (users, the image to Glance, a
warm cache) whose QEMU guest boots under TCG here and runs iperf3 and HTTP
load, beside two other cloud tests on the same two cores
(tools/stestr-openstack-workers.yaml); ~3 min alone.
"""

import json
import unittest

from rally_container_bench.report import comparison
from tests.functional import helpers
from tests.functional_openstack import cloud as aio

TASK_ARGS = json.dumps({
    "platforms": ["kvm-tuned"], "concurrency": [1], "times": 1,
    "boot_and_delete": False,
    "kvm_flavor_extra_specs": {"hw:cpu_policy": "shared"},
    "tests": ["quick-cpu", "iperf3-quick", "iperf3-quick-reverse",
              "http-quick-c16"]})


class TunedFlavorAndNetworkTestCase(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.home = aio.aio_rally_home()
        cls.uuid, _ = cls.home.start(aio.TASK, "--task-args-file", aio.ARGS,
                                     "--task-args", TASK_ARGS)
        cls.report = cls.home.results(cls.uuid)

    @classmethod
    def tearDownClass(cls):
        cls.home.close()

    def test_server_on_the_tuned_flavor_measured_the_network(self):
        (workload,) = list(helpers.workloads(self.report))
        self.assertEqual(0, workload["failed_iteration_count"],
                         [i["error"] for i in workload["data"]])
        for iteration in workload["data"]:
            environment = helpers.environment(iteration)
            self.assertEqual(("cpu_policy-shared", "hw:cpu_policy=shared"),
                             (environment["tuning"],
                              environment["flavor_extra_specs"]))
            out = helpers.additive(iteration)
            for label in ("to-instance", "from-instance"):
                self.assertGreater(out["iperf3 " + label]
                                   ["throughput_gbit_s (Gbit/s)"], 0)
            self.assertGreater(out["http c16"]["requests_per_s (req/s)"], 0)
            self.assertEqual(0, out["http c16"]["errors (count)"])

    def test_the_tuned_flavor_is_gone(self):
        from novaclient import client as nova_client
        nova = nova_client.Client("2.1", session=aio.admin_session())
        self.assertEqual([], [f.name for f in nova.flavors.list(
            is_public=None) if f.name == "rcbench-kek-tuned"])

    def test_report_names_the_tuned_platform(self):
        report = comparison.build([self.report])
        self.assertEqual(["nova-qemu-tcg+cpu_policy-shared"],
                         [p["label"] for p in report["platforms"]])
