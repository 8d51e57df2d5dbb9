"""tasks/kvm_vs_docker.yaml's bad input, refused by validation on the real
all-in-one cloud before anything boots: networks, flavors, presets, Nova
quotas, Placement's room for a step, Zun's runtimes, pull policies and
sizes, the compute hosts of the native twins. Skips without the cloud.

(The task's run: test_cloud_verdicts.py, through rcbench decide.)

Why ~4 min in CI: 14 task validations (four at a time, in one process:
RallyHome.validate_each), each asking the cloud's APIs, beside two other
cloud tests on the same two cores; ~1 min alone (62 s and 44 s of CPU
here and in its children; as 14 rally processes 80 s and 103 s of CPU,
2026-11-28).
"""

import json
import unittest

from tests.functional_openstack import cloud


class TaskValidationTestCase(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.home = cloud.aio_rally_home()

    @classmethod
    def tearDownClass(cls):
        cls.home.close()

    def test_bad_zun_input_fails_validation(self):
        cases = (({"zun_runtime": "kata-runtime"},
                  "runtime='kata-runtime': no Zun compute host offers it"),
                 ({"zun_via": "exec"}, "via"),
                 ({"zun_via": "logs", "tests": ["fio-quick-randread"]},
                  "fio randread cannot run with via=logs"),
                 ({"zun_memory": 1}, "memory"),
                 # Zun's pull policy always, 2 at once: they would race
                 # on the host's one archive file of the image.
                 ({"zun_image_pull_policy": "always", "zun_memory": 256,
                   "concurrency": [2]},
                  "2 Zun containers at once with image_pull_policy=always: "
                  "Zun's Glance image driver downloads"))
        # aio-quick runs Zun at 2 only (min_concurrency): here at 1
        zun = dict(platforms=["container"], container="zun",
                   concurrency=[1], min_concurrency={})
        procs = self.home.validate_each(
            cloud.TASK, [dict(zun, **args) for args, _ in cases],
            cloud.ARGS)
        for (args, message), proc in zip(cases, procs):
            with self.subTest(args=args):
                self.assertNotEqual(0, proc.returncode)
                self.assertIn(message, proc.stdout + proc.stderr)

    def test_bad_input_fails_validation_before_any_boot(self):
        cases = (({"network": "no-such-net"},
                  "no network 'no-such-net' is visible"),
                 ({"flavor": "no-such-flavor"},
                  "flavor_exists@openstack validation. Details: Flavor "),
                 ({"tests": ["quick-cpu", "fast-cpu"]},
                  "unknown sysbench preset 'fast-cpu'"),
                 # Nova's default quota: 10 instances per project.
                 ({"raise_quotas": False, "concurrency": [16],
                   "max_concurrency": {}},
                  "16 servers at once do not fit the project's Nova "
                  "quotas: instances 10 with 0 in use, 16 needed"),
                 # Placement: the LXC host's memory holds fewer than 40
                 # servers of aio-quick's 1024 MiB flavor. How many follows
                 # the memory libvirt reports (NUMA node 0's MemTotal, which
                 # grows as this VM's memory is hot-plugged: 22 and 16 seen).
                 ({"platforms": ["container"], "container": "nova-lxc",
                   "concurrency": [40], "waves": 1, "max_concurrency": {}},
                  "40 servers at once (VCPU 1, MEMORY_MB 1024 each) do not "
                  "fit the lxc compute hosts: room for "),
                 # Placement: 2 cores, so no host takes a 3-core container.
                 ({"platforms": ["container"], "container": "zun",
                   "zun_cpu": 3, "concurrency": [2]},
                  "2 Zun containers at once (each claims VCPU 3, "
                  "MEMORY_MB 1024 in Placement) do not fit the Zun hosts: "
                  "room for 0"))
        procs = self.home.validate_each(
            cloud.TASK, [dict({"platforms": ["kvm"], "concurrency": [1]},
                              **args) for args, _ in cases],
            cloud.ARGS)
        for (args, message), proc in zip(cases, procs):
            with self.subTest(args=args):
                self.assertNotEqual(0, proc.returncode)
                self.assertIn(message, proc.stdout + proc.stderr)

    def test_compute_hosts_are_checked_before_any_boot(self):
        hosts = cloud.compute_hosts()
        down = json.loads(json.dumps(hosts))
        down["hosts"]["aio-lxc-2"]["address"] = "10.118.0.99"
        cases = (({"compute_hosts": down},
                  "compute host aio-lxc-2 (root@10.118.0.99:22): no login"),
                 ({"compute_hosts": dict(hosts, sysbench="/nonexistent")},
                  "compute host aio-lxc (root@10.118.0.13:22): "
                  "/nonexistent --version failed"),
                 ({"compute_hosts": dict(hosts, adress="x")},
                  "compute_hosts: unknown key(s) adress"))
        procs = self.home.validate_each(
            cloud.TASK, [dict({"platforms": ["container"],
                               "container": "nova-lxc",
                               "concurrency": [1], "min_concurrency": {}},
                              **args)
                         for args, _ in cases],
            cloud.ARGS)
        for (args, message), proc in zip(cases, procs):
            with self.subTest(message=message):
                self.assertNotEqual(0, proc.returncode)
                self.assertIn(message, proc.stdout + proc.stderr)
        # the map's key never in what Rally printed
        for proc in procs:
            with open(hosts["key_file"]) as f:
                self.assertNotIn(f.read().strip().splitlines()[1],
                                 proc.stdout + proc.stderr)
