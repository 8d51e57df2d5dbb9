import os
import tempfile
import unittest
from unittest import mock

from rally import plugins as rally_plugins
from rally.task import scenario

from rally_container_bench.core import tuning
from rally_container_bench.report import results
from rally_container_bench.task import validators


def errors(name, **args):
    rally_plugins.load()
    return " ".join(scenario.Scenario.validate(
        name=name, context={}, config={"args": args}, plugin_cfg=None,
        vtype="syntax"))


class ContainerTuningTestCase(unittest.TestCase):

    def test_label_and_environment_say_what_was_set(self):
        tuned = tuning.from_dict({"network": "host", "cpuset": "0,2-3",
                                  "workdir_volume": True})
        self.assertEqual("hostnet+cpuset0,2-3+volume", tuned.label())
        self.assertEqual({0, 2, 3}, tuned.cpus())
        self.assertEqual({"tuning": "hostnet+cpuset0,2-3+volume",
                          "network_mode": "host", "cpuset": "0,2-3",
                          "workdir_storage": "volume"}, tuned.describe())
        default = tuning.from_dict({})
        self.assertTrue(default.is_default)
        self.assertEqual(("", "none", "overlay"),
                         (default.label(), default.describe()["tuning"],
                          default.describe()["workdir_storage"]))

    def test_vm_label_and_environment(self):
        tuned = tuning.from_dict({"disk_cache": "writeback",
                                  "disk_bus": "scsi", "cpuset": "1",
                                  "hugepages": True}, "kvm")
        self.assertEqual("cache-writeback+scsi+cpuset1+hugepages",
                         tuned.label())
        self.assertEqual({"tuning": "cache-writeback+scsi+cpuset1+hugepages",
                          "disk_cache": "writeback",
                          "disk_bus": "virtio-scsi", "cpuset": "1",
                          "memory_backing": "hugepages"},
                         tuned.describe())
        self.assertEqual("anonymous", tuning.VmTuning().describe()
                         ["memory_backing"])
        with self.assertRaisesRegex(tuning.TuningError, "hugepages must be"):
            tuning.from_dict({"hugepages": "yes"}, "kvm")
        self.assertTrue(tuning.from_dict({"disk_cache": "none"},
                                         "kvm").is_default)
        with self.assertRaisesRegex(tuning.TuningError,
                                    "disk_cache must be one of none"):
            tuning.from_dict({"disk_cache": "fast"}, "kvm")

    def test_invalid_knobs_say_why(self):
        cases = (({"network": "macvlan"}, "network must be one of"),
                 ({"cpuset": "0;rm -rf /"}, "cpuset must be host CPUs"),
                 ({"cpuset": 1}, "cpuset must be host CPUs"),
                 ({"workdir_volume": "yes"}, "workdir_volume must be"),
                 ({"hugepages": True}, "unknown tuning knob"),
                 (["host"], "must be a mapping"))
        for fields, message in cases:
            with self.subTest(fields=fields):
                with self.assertRaisesRegex(tuning.TuningError, message):
                    tuning.from_dict(fields)

    def test_report_keeps_tuned_and_untuned_apart(self):
        untuned = results.platform_of(
            {"driver": "docker", "runtime": "runc", "tuning": "none"},
            "LocalInstances.boot_sysbench_delete", {})
        tuned = results.platform_of(
            {"driver": "docker", "runtime": "runc",
             "tuning": "hostnet+volume"},
            "LocalInstances.boot_sysbench_delete", {})
        self.assertEqual("docker-runc", untuned.label)
        self.assertEqual("docker-runc+hostnet+volume", tuned.label)


class TuningValidationTestCase(unittest.TestCase):
    NAME = "LocalInstances.boot_sysbench_delete"

    def test_tuning_only_for_drivers_that_take_it(self):
        self.assertIn("tuning applies to the drivers docker, podman-runc, "
                      "podman-crun, kvm, not 'lxc'",
                      errors(self.NAME, driver="lxc", tests=["quick-cpu"],
                             tuning={"network": "host"}))
        self.assertNotIn("tuning", errors(self.NAME, driver="lxc",
                                          tests=["quick-cpu"], tuning={}))

    def test_each_kind_its_own_knobs(self):
        self.assertIn("unknown tuning knob(s) network for kvm; known: "
                      "cpuset, disk_bus, disk_cache, hugepages",
                      errors(self.NAME, driver="kvm", tests=["quick-cpu"],
                             tuning={"network": "host"}))
        self.assertIn("unknown tuning knob(s) disk_cache for docker",
                      errors(self.NAME, driver="docker", tests=["quick-cpu"],
                             tuning={"disk_cache": "unsafe"}))
        self.assertNotIn("tuning", errors(
            self.NAME, driver="kvm", tests=["quick-cpu"],
            tuning={"disk_cache": "writeback", "disk_bus": "scsi",
                    "cpuset": "0"}))

    def test_cpus_must_exist_here(self):
        beyond = max(os.sched_getaffinity(0)) + 1
        self.assertIn("CPU(s) %d are not usable here" % beyond,
                      errors(self.NAME, driver="docker", tests=["quick-cpu"],
                             tuning={"cpuset": str(beyond)}))

    def test_hugepages_must_be_reserved_first(self):
        # Stand-in for /proc/meminfo: how many pages are free is the
        # host's state, not something a unit test may change.
        with mock.patch.object(validators, "huge_pages",
                               return_value=(100, 2048)):
            found = errors(self.NAME, driver="kvm", tests=["quick-cpu"],
                           tuning={"hugepages": True})
        self.assertIn("needs 512 free huge pages of 2048 KiB, this host has "
                      "100: reserve them first", found)
        with mock.patch.object(validators, "huge_pages",
                               return_value=(512, 2048)):
            self.assertNotIn("huge", errors(
                self.NAME, driver="kvm", tests=["quick-cpu"],
                tuning={"hugepages": True}))

    def test_huge_pages_read_from_meminfo(self):
        with tempfile.NamedTemporaryFile("w") as f:
            f.write("MemTotal: 1 kB\nHugePages_Free:       7\n"
                    "Hugepagesize:       2048 kB\n")
            f.flush()
            self.assertEqual((7, 2048), validators.huge_pages(f.name))

    def test_bad_knob_is_named(self):
        self.assertIn("tuning.network must be one of",
                      errors("LocalInstances.boot_and_delete",
                             driver="podman-crun",
                             tuning={"network": "none"}))
