"""tasks/kvm_vs_docker.yaml's kvm-tuned and kvm-volume platforms on the
real all-in-one cloud, in one task: a QEMU server on a flavor the task
makes with extra specs, and one whose tests run on a Cinder volume (Ceph
RBD, attached through librbd; KEK's "volume"). Each runs sysbench fileio
and fio (the tuned server on its root disk, the other on the volume);
the tuned server also iperf3 both ways and HTTP load from this host to
its fixed IP. Skips without the cloud.

The extra spec is hw:cpu_policy=shared (Nova's default behaviour), the one
this cloud's compute host can honour without cpu_dedicated_set or reserved
huge pages: what is tested is the path (flavor made with the specs, server
booted on it, specs recorded, report label), not pinning itself.

Before, these were two tasks (test_tuned_flavor_network: a tuned server
with the network tests; test_volume_fio: a plain server next to one on a
volume, fileio and fio): the tuned server's root disk now stands where
the plain server's did, and one task's users, image and warm caches and
one TCG guest less are spent.

The tuned server's tests are paired with their native twins on its own
compute host (compute_hosts), and the host's load read there: the QEMU
servers' path of test_cloud_verdicts' pairing, which leaves the VM out
(a TCG boot and two hosts' warm-up less beside the other cloud tests).
The volume's tests have no twin, and the report says why.

Why ~6-8 min in CI (361 s unpaired; 492 s paired, CI 2026-11-27; ~7 min
beside the decide run alone): a whole cloud task whose two QEMU guests
boot under TCG here and run fileio, fio, iperf3 and HTTP load (the tuned
server's sysbench and fio tests each with a twin on its host), beside
other cloud tests on the same two cores
(tools/stestr-openstack-workers.yaml).
"""

import json
import os
import unittest

from rally_container_bench.report import comparison
from rally_container_bench.task.scenarios import nova_volume
from tests.functional import helpers
from tests.functional_openstack import cloud as aio

# The volume server's flavor is this test's own (an existing flavor, the
# task's `flavor` argument): that path is tested here, the task's own
# flavor (a random name per task) by test_cloud_verdicts beside it.
FLAVOR = "rcbench-test-qemu-volume"
DISK_TESTS = ["quick-fileio-rndrd", "fio-quick-randread"]
# Each server's own tests (the task's plan: a cell, its step, tests, times
# and repeat): the network tests on the tuned server only. On the volume
# server they took the same path to its fixed IP again, a TCG guest's
# ~30-40 s of CPU beside the other cloud tests (the path from the host
# into a QEMU guest, both ways and HTTP: test_network_workloads).
TASK_ARGS = {
    "platforms": ["kvm-tuned", "kvm-volume"], "flavor": FLAVOR,
    "boot_and_delete": False, "volume_size": 1,
    "kvm_flavor_extra_specs": {"hw:cpu_policy": "shared"},
    "plan": [["kvm-tuned", 1, DISK_TESTS + [
        "iperf3-quick", "iperf3-quick-reverse", "http-quick-c16"], 1, 1],
        ["kvm-volume", 1, DISK_TESTS, 1, 1]]}
QEMU_HOSTS = {"aio-qemu", "aio-qemu-2"}
VOLUME_ACTIONS = ["volume.create", "volume.attach", "volume.detach",
                  "volume.delete"]


class TunedFlavorAndVolumeTestCase(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        from novaclient import client as nova_client
        nova = nova_client.Client("2.1", session=aio.admin_session())
        if not [f for f in nova.flavors.list(is_public=None)
                if f.name == FLAVOR]:
            nova.flavors.create(FLAVOR, ram=1024, vcpus=1, disk=5)
        # load limit: the machine's cores (as test_cloud_verdicts', for
        # its reason: the other cloud tests' load is on every host)
        cls.home = aio.aio_rally_home({"foreign_load_limit": os.cpu_count(),
                                       "saturated_load_share": 1,
                                       "quiet_wait": 0})
        cls.hosts = aio.compute_hosts()
        # what was there before (another test's, or a killed run's):
        # not this task's to delete
        cls.volumes_before = _volume_ids()
        cls.uuid, _ = cls.home.start(
            aio.TASK, "--task-args-file", aio.ARGS, "--task-args",
            json.dumps(dict(TASK_ARGS, compute_hosts=cls.hosts)))
        cls.report = cls.home.results(cls.uuid)
        cls.workloads = {list(w["scenario"])[0]: w
                         for w in helpers.workloads(cls.report)}

    @classmethod
    def tearDownClass(cls):
        from novaclient import client as nova_client
        nova = nova_client.Client("2.1", session=aio.admin_session())
        for flavor in nova.flavors.list(is_public=None):
            if flavor.name == FLAVOR:
                nova.flavors.delete(flavor)
        cls.home.close()

    def iteration(self, scenario):
        workload = self.workloads[scenario]
        self.assertEqual(0, workload["failed_iteration_count"],
                         [i["error"] for i in workload["data"]])
        (iteration,) = workload["data"]
        return iteration

    def assert_disk_measured(self, iteration):
        out = helpers.additive(iteration)
        self.assertGreater(out["fio randread"]["read_iops (IOPS)"], 0)
        self.assertGreater(
            out["sysbench fileio.rndrd"]["reads_per_s (reads/s)"], 0)
        return out

    def assert_disk_and_network_measured(self, iteration):
        out = self.assert_disk_measured(iteration)
        for label in ("to-instance", "from-instance"):
            self.assertGreater(out["iperf3 " + label]
                               ["throughput_gbit_s (Gbit/s)"], 0)
        self.assertGreater(out["http c16"]["requests_per_s (req/s)"], 0)
        self.assertEqual(0, out["http c16"]["errors (count)"])

    def test_server_on_the_tuned_flavor_measured_disk_and_network(self):
        iteration = self.iteration("NovaInstances.boot_sysbench_delete")
        environment = helpers.environment(iteration)
        self.assertEqual(("cpu_policy-shared", "hw:cpu_policy=shared"),
                         (environment["tuning"],
                          environment["flavor_extra_specs"]))
        self.assert_disk_and_network_measured(iteration)

    def test_each_test_paired_on_its_servers_own_compute_host(self):
        for scenario in self.workloads:
            iteration = self.iteration(scenario)
            tables = helpers.key_value_tables(iteration)
            env = tables["environment"]
            self.assertIn(env["compute_host"], QEMU_HOSTS)
            self.assertIn(env["image_cache"].split(" ")[0],
                          ("warmed", "cached"), env["image_cache"])
            # TCG here, never called kvm
            self.assertEqual(("qemu", "tcg"),
                             (env["runtime"], env["acceleration"]))
            times = tables["engine timestamps"]
            build = "create.compute__do_build_and_run_instance"
            self.assertLessEqual(float(times[build + ".start"]),
                                 float(times[build + ".finish"]))
            if "volume" in scenario:
                # the volume has no twin on the host, and says so
                self.assertEqual(nova_volume.UNPAIRED, env["pairing"])
                self.assertNotIn("twin_host", env)
                continue
            self.assertEqual(env["compute_host"], env["twin_host"])
            self.assertIn("each test paired with a native twin on the "
                          "instance's", env["pairing"])
            rows = helpers.table_rows(iteration, "validity")
            self.assertTrue(rows)
            for row in rows:
                # read on the server's host, never on the Rally host
                self.assertEqual(env["compute_host"], row["host"], row)

    def test_tests_ran_on_the_volume(self):
        iteration = self.iteration(
            "NovaInstances.boot_volume_sysbench_delete")
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
        out = self.assert_disk_measured(iteration)
        self.assertNotIn("iperf3 to-instance", out)

    def test_report_keeps_the_tuned_root_disk_and_the_volume_apart(self):
        report = comparison.build([self.report])
        # In the order the (seeded, shuffled) task ran them: either.
        labels = sorted(p["label"] for p in report["platforms"])
        # native: the tuned server's twins on its compute host
        self.assertEqual(["native", "nova-qemu-tcg+cpu_policy-shared",
                          "nova-qemu-tcg+volume-ceph"], labels)

    def test_bad_volume_input_fails_validation(self):
        cases = (({"volume_size": 0}, "volume_size"),
                 ({"volume_type": "no-such-type"},
                  "volume_type: volume type 'no-such-type' does not exist"))
        procs = self.home.validate_each(
            aio.TASK, [dict(args, platforms=["kvm-volume"], concurrency=[1])
                       for args, _ in cases], aio.ARGS)
        for (args, message), proc in zip(cases, procs):
            with self.subTest(args=args):
                self.assertNotEqual(0, proc.returncode)
                self.assertIn(message, proc.stdout + proc.stderr)

    def test_the_tuned_flavor_and_the_volume_are_gone(self):
        from novaclient import client as nova_client
        made = {flavor["name"] for workload in self.workloads.values()
                for flavor in workload["contexts"].get("flavors", [])}
        self.assertIn(True, [name.startswith("rcbench-kek-tuned-")
                             for name in made], made)
        nova = nova_client.Client("2.1", session=aio.admin_session())
        self.assertEqual([], [f.name for f in nova.flavors.list(
            is_public=None) if f.name in made])
        self.assertEqual(set(), _volume_ids() - self.volumes_before)


def _volume_ids():
    """Every project's Cinder volumes."""
    from cinderclient import client as cinder_client
    cinder = cinder_client.Client("3", session=aio.admin_session())
    return {v.id for v in cinder.volumes.list(search_opts={"all_tenants": 1})}
