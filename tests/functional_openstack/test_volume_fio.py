"""tasks/kvm_vs_docker.yaml's kvm-volume platform on the real all-in-one
cloud (KEK's "volume"): a QEMU server with its tests on its root disk next
to one with them on a Cinder volume (Ceph RBD, attached through librbd),
sysbench fileio and fio on each. Skips without the cloud.

Why ~5 min in CI: two QEMU guests under TCG, one with a Ceph volume
attached, fileio and fio on each, in one cloud task beside two other
cloud tests on the same two cores; ~4 min alone.
"""

import json
import unittest

from rally_container_bench.report import comparison
from tests.functional import helpers
from tests.functional_openstack import cloud as aio

TESTS = ["quick-fileio-rndrd", "fio-quick-randread"]
TASK_ARGS = json.dumps({
    "platforms": ["kvm", "kvm-volume"], "concurrency": [1], "times": 1,
    "boot_and_delete": False, "volume_size": 1, "tests": TESTS})
VOLUME_ACTIONS = ["volume.create", "volume.attach", "volume.detach",
                  "volume.delete"]


class KvmOnVolumeTestCase(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.home = aio.aio_rally_home()
        cls.uuid, _ = cls.home.start(aio.TASK, "--task-args-file", aio.ARGS,
                                     "--task-args", TASK_ARGS)
        cls.report = cls.home.results(cls.uuid)
        cls.workloads = {list(w["scenario"])[0]: w
                         for w in helpers.workloads(cls.report)}

    @classmethod
    def tearDownClass(cls):
        cls.home.close()

    def test_tests_ran_on_the_volume(self):
        workload = self.workloads["NovaInstances.boot_volume_sysbench_delete"]
        self.assertEqual(0, workload["failed_iteration_count"],
                         [i["error"] for i in workload["data"]])
        (iteration,) = workload["data"]
        names = [a["name"] for a in iteration["atomic_actions"]]
        for action in VOLUME_ACTIONS:
            self.assertIn(action, names)
        # Created and attached before the tests, removed after them and
        # before the server's delete.
        self.assertLess(names.index("volume.attach"),
                        names.index("fio.randread"))
        self.assertLess(names.index("volume.delete"), names.index("delete"))
        environment = helpers.environment(iteration)
        self.assertEqual(("ceph", "cinder volume (ceph, 1 GiB)",
                          "volume-ceph"),
                         (environment["volume_backend"],
                          environment["workdir_storage"],
                          environment["tuning"]))
        out = helpers.additive(iteration)
        self.assertGreater(out["fio randread"]["read_iops (IOPS)"], 0)
        self.assertGreater(
            out["sysbench fileio.rndrd"]["reads_per_s (reads/s)"], 0)

    def test_report_keeps_root_disk_and_volume_apart(self):
        report = comparison.build([self.report])
        # In the order the (seeded, shuffled) task ran them: either.
        labels = sorted(p["label"] for p in report["platforms"])
        self.assertEqual(["nova-qemu-tcg", "nova-qemu-tcg+volume-ceph"],
                         labels)

    def test_bad_volume_input_fails_validation(self):
        cases = (({"volume_size": 0}, "volume_size"),
                 ({"volume_type": "no-such-type"},
                  "volume_type: volume type 'no-such-type' does not exist"))
        procs = self.home.validate_each(
            aio.TASK, [dict(args, platforms=["kvm-volume"], concurrency=[1])
                       for args, _ in cases], "--task-args-file", aio.ARGS)
        for (args, message), proc in zip(cases, procs):
            with self.subTest(args=args):
                self.assertNotEqual(0, proc.returncode)
                self.assertIn(message, proc.stdout + proc.stderr)

    def test_no_volume_is_left(self):
        from cinderclient import client as cinder_client
        cinder = cinder_client.Client("3", session=aio.admin_session())
        self.assertEqual([], [v.id for v in cinder.volumes.list(
            search_opts={"all_tenants": 1})])
