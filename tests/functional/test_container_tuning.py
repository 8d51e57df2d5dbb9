"""Tuning knobs on the real engines: what a container sees is what was
asked (the host's network namespace, the pinned CPUs, a volume under the
work directory) and the volume goes with it; a VM's disk cache, bus and
pinning are in its domain and its guest boots from that disk; a task of
tuned and untuned runs gives the report separate platforms."""

import os
import unittest
import uuid

from rally_container_bench.core import tuning as tuning_lib
from rally_container_bench.engines import registry
from rally_container_bench.report import comparison
from rally_container_bench.task import validators
from tests.functional import helpers

TUNED = tuning_lib.ContainerTuning(network="host", cpuset="1",
                                   workdir_volume=True)
TASK = os.path.join("tasks", "local_tuning.yaml")


class TunedContainerMixin:
    driver_name = None

    def setUp(self):
        self.conf = helpers.usable_conf(self, self.driver_name)
        self.name = "rcbench_functest_%s" % uuid.uuid4().hex[:8]

    def boot(self, tuning):
        driver = registry.prepared_instance(self.driver_name, self.conf,
                                            tuning)
        instance = driver.create(self.name)
        self.addCleanup(helpers.discard_if_left, driver.name, self.name,
                        self.conf)
        driver.wait_running(instance, self.conf.boot_timeout)
        driver.wait_reachable(instance, self.conf.ssh_timeout)
        return driver, instance, driver.executor(instance)

    def inside(self, executor, *argv):
        return executor.run(list(argv), 60).check(argv[0]).stdout.strip()

    def test_tuned_container_sees_what_was_asked(self):
        driver, instance, executor = self.boot(TUNED)
        self.assertEqual(os.readlink("/proc/self/ns/net"),
                         self.inside(executor, "readlink",
                                     "/proc/self/ns/net"))
        self.assertIn("Cpus_allowed_list:\t1", self.inside(
            executor, "grep", "Cpus_allowed_list", "/proc/self/status"))
        fs = self.inside(executor, "stat", "-f", "-c", "%T",
                         tuning_lib.VOLUME_MOUNT)
        self.assertNotIn("overlay", fs)
        self.assertIn("overlay", self.inside(executor, "stat", "-f", "-c",
                                             "%T", "/root"))
        facts = driver.describe()
        self.assertEqual(("hostnet+cpuset1+volume", "host", "volume"),
                         (facts["tuning"], facts["network_mode"],
                          facts["workdir_storage"]))
        volumes = self.volumes()
        executor.close()
        driver.delete(instance)
        driver.wait_deleted(instance, self.conf.delete_timeout)
        self.assertLess(len(self.volumes()), len(volumes))

    def test_untuned_container_keeps_its_own_network(self):
        driver, _instance, executor = self.boot(None)
        self.assertNotEqual(os.readlink("/proc/self/ns/net"),
                            self.inside(executor, "readlink",
                                        "/proc/self/ns/net"))
        self.assertEqual("none", driver.describe()["tuning"])
        executor.close()


class DockerTuningTestCase(TunedContainerMixin, unittest.TestCase):
    driver_name = "docker"

    def volumes(self):
        import docker
        client = docker.DockerClient(base_url=self.conf.docker_url)
        try:
            return client.volumes.list()
        finally:
            client.close()


class PodmanCrunTuningTestCase(TunedContainerMixin, unittest.TestCase):
    driver_name = "podman-crun"

    def volumes(self):
        driver = registry.instance_class(self.driver_name)(None, self.conf)
        return driver.command("volume", "ls", "-q").stdout.split()


def write(path, value):
    with open(path, "w") as f:
        f.write(str(value))


class VmTuningTestCase(unittest.TestCase):
    """The kvm driver's knobs in libvirt's domain and in the guest."""

    def reserve_huge_pages(self, conf):
        """Reserve the guest's memory in huge pages; restored afterwards."""
        free, page_kb = validators.huge_pages()
        need = -(-conf.vm_memory_mb * 1024 // page_kb)
        path = "/proc/sys/vm/nr_hugepages"
        with open(path) as f:
            before = int(f.read())
        self.addCleanup(write, path, before)
        write(path, before + need)
        if validators.huge_pages()[0] < need:
            self.fail("could not reserve %d huge pages" % need)

    def test_tuned_vm_boots_from_virtio_scsi_pinned_on_hugepages(self):
        conf = helpers.usable_conf(self, "kvm")
        tuned = tuning_lib.VmTuning(disk_cache="writeback", disk_bus="scsi",
                                    cpuset="1", hugepages=True)
        self.reserve_huge_pages(conf)
        driver = registry.prepared_instance("kvm", conf, tuned)
        name = "rcbench_functest_%s" % uuid.uuid4().hex[:8]
        instance = driver.create(name)
        self.addCleanup(helpers.discard_if_left, "kvm", name, conf)
        driver.wait_running(instance, conf.boot_timeout)
        domain = driver._checked("dumpxml", name)
        self.assertIn("cache='writeback'", domain)
        self.assertIn("<target dev='sda' bus='scsi'/>", domain)
        self.assertIn("model='virtio-scsi'", domain)
        self.assertIn("<hugepages/>", domain)
        # QEMU's memory is a file on hugetlbfs: pages in use or reserved.
        meminfo = dict(line.split(":", 1) for line in open("/proc/meminfo"))
        taken = (int(meminfo["HugePages_Total"]) -
                 int(meminfo["HugePages_Free"]) +
                 int(meminfo["HugePages_Rsvd"]))
        self.assertGreater(taken, 0)
        # Host CPU 1 only ("-y" on two CPUs; "--y-" on four, ...).
        affinity = [line.split()[-1] for line in driver._checked(
            "vcpuinfo", name).splitlines() if "Affinity" in line]
        self.assertTrue(affinity)
        for mask in affinity:
            self.assertEqual("y", mask[1:2])
            self.assertEqual(1, mask.count("y"))
        driver.wait_reachable(instance, conf.ssh_timeout)
        executor = driver.executor(instance)
        self.assertIn("sda", executor.run(["ls", "/sys/block"], 60)
                      .check("ls").stdout.split())
        self.assertEqual("/dev/sda", executor.run(
            ["findmnt", "-n", "-o", "SOURCE", "/"], 60).check(
                "findmnt").stdout.strip())
        executor.close()
        facts = driver.describe()
        self.assertEqual(("cache-writeback+scsi+cpuset1+hugepages",
                          "virtio-scsi", "hugepages"),
                         (facts["tuning"], facts["disk_bus"],
                          facts["memory_backing"]))
        driver.delete(instance)
        driver.wait_deleted(instance, conf.delete_timeout)


class TuningTaskTestCase(helpers.DockerRallyTestCase):

    def test_report_separates_tuned_from_untuned(self):
        uuid_, _ = self.home.start(
            TASK, "--task-args", '{"engines": ["docker"], "times": 2, '
            '"tests": ["quick-cpu", "fio-quick-randread", "iperf3-quick", '
            '"http-quick-c16"]}')
        results = self.home.results(uuid_)
        for workload in helpers.workloads(results):
            self.assertEqual(0, workload["failed_iteration_count"])
        report = comparison.build([results])
        self.assertEqual(["native", "docker-runc",
                          "docker-runc+hostnet+cpuset1+volume"],
                         [p["label"] for p in report["platforms"]])
        environments = {p["label"]: dict(p["environment"])
                        for p in report["platforms"]}
        self.assertEqual(
            ("/root", "/rcbench-volume"),
            (environments["docker-runc"]["work directory"],
             environments["docker-runc+hostnet+cpuset1+volume"]
             ["work directory"]))
        self.assertIn("overlay",
                      environments["docker-runc"]["its filesystem"])
        self.assertNotIn("overlay", environments[
            "docker-runc+hostnet+cpuset1+volume"]["its filesystem"])
        # Host network vs the bridge, in the same report as native.
        rows = comparison.rows_for(
            report, "iperf3.to-instance.throughput_gbit_s", concurrency=1)
        self.assertEqual({"native", "docker-runc",
                          "docker-runc+hostnet+cpuset1+volume"},
                         {row["platform"] for row in rows})
        self.assertEqual([], self.containers(uuid_))
