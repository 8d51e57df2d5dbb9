"""The parts of the local drivers that need no engine."""

import os
import subprocess
import tempfile
import unittest
from unittest import mock
from xml.etree import ElementTree

from oslo_config import cfg

from rally_container_bench.core import base
from rally_container_bench.core import daemon as daemon_process
from rally_container_bench.core import processes
from rally_container_bench.core import tuning
from rally_container_bench.engines.containerd import ctr
from rally_container_bench.engines import daemons
from rally_container_bench.engines.libvirt import acceleration
from rally_container_bench.engines.libvirt import daemon as libvirt_daemon
from rally_container_bench.engines.libvirt import domain as libvirt_engine
from rally_container_bench.engines.libvirt import instance as libvirt
from rally_container_bench.engines.podman import instance as podman
from rally_container_bench.engines import registry
from rally_container_bench.images import guest
from rally_container_bench import opts


def conf(**overrides):
    c = cfg.ConfigOpts()
    group = opts.register(c)
    c([])
    for name, value in overrides.items():
        c.set_override(name, value, group=opts.GROUP)
    return group


class DomainXmlTestCase(unittest.TestCase):

    def driver(self, accel):
        image = guest.GuestImage("/cache/guest-abc", "abc")
        return libvirt.LibvirtDriver(image, conf(vm_acceleration=accel))

    def render(self, accel, name="s_rally_1234abcd_XyZ"):
        xml = self.driver(accel)._domain_xml(
            name, "/i/disk.qcow2", 40022, "/i",
            {5201: 40023, 8080: 40024})
        return ElementTree.fromstring(xml)

    def test_tcg_domain(self):
        root = self.render("tcg")
        self.assertEqual("qemu", root.get("type"))
        self.assertIsNone(root.find("cpu"))
        self.assertIsNotNone(root.find("features/tcg/tb-cache"))
        self.assertIn("init=/sbin/rcbench-init", root.findtext("os/cmdline"))
        self.assertEqual("/cache/guest-abc/vmlinuz",
                         root.findtext("os/kernel"))
        self.assertEqual("rcbench instance", root.findtext("description"))

    def test_engine_version_from_virsh(self):
        output = ("Compiled against library: libvirt 9.0.0\n"
                  "Using library: libvirt 9.0.0\n"
                  "Using API: QEMU 9.0.0\n"
                  "Running hypervisor: QEMU 7.2.22\n")
        self.assertEqual("QEMU 7.2.22, libvirt 9.0.0",
                         libvirt_engine.engine_version(output))
        self.assertEqual("libvirt", libvirt_engine.engine_version(""))

    def test_kvm_domain_disables_arch_capabilities(self):
        root = self.render("kvm")
        self.assertEqual("kvm", root.get("type"))
        feature = root.find("cpu/feature")
        self.assertEqual(("disable", "arch-capabilities"),
                         (feature.get("policy"), feature.get("name")))

    def test_ssh_and_services_are_forwarded_from_loopback_only(self):
        args = [a.get("value") for a in self.render("tcg").iter()
                if a.tag.endswith("arg")]
        self.assertIn("user,id=rcb0,hostfwd=tcp:127.0.0.1:40022-:22,"
                      "hostfwd=tcp:127.0.0.1:40023-:5201,"
                      "hostfwd=tcp:127.0.0.1:40024-:8080", args)

    def test_hugepages_back_the_memory_only_when_asked(self):
        self.assertIsNone(self.render("tcg").find("memoryBacking"))
        driver = self.driver("tcg")
        driver.tuning = tuning.VmTuning(hugepages=True)
        root = ElementTree.fromstring(driver._domain_xml(
            "n", "/i/disk.qcow2", 40022, "/i", {}))
        self.assertIsNotNone(root.find("memoryBacking/hugepages"))

    def test_name_is_escaped(self):
        root = self.render("tcg", name="a<b>&c")
        self.assertEqual("a<b>&c", root.findtext("name"))


class AccelerationTestCase(unittest.TestCase):

    def test_requested_values_win(self):
        self.assertEqual("tcg", acceleration.detect("tcg")[0])
        self.assertEqual("kvm", acceleration.detect("kvm")[0])

    def test_auto_never_says_kvm_on_a_pvm_host(self):
        accel, why = acceleration.detect("auto")
        if os.path.isdir("/sys/module/kvm_pvm"):
            self.assertEqual(("tcg", True), (accel, "PVM" in why))
        self.assertIn(accel, ("kvm", "tcg"))
        self.assertTrue(why)


class RegistryTestCase(unittest.TestCase):

    def test_unknown_driver_lists_the_known_ones(self):
        with self.assertRaisesRegex(base.DriverError,
                                    "unknown driver 'vmware'; known: "
                                    "docker, docker-runsc, kvm"):
            registry.instance_class("vmware")

    def test_every_driver_class_has_its_name(self):
        for name in registry.INSTANCE_NAMES:
            self.assertEqual(name, registry.instance_class(name).name)

    def test_missing_image_says_how_to_build_it(self):
        with self.assertRaisesRegex(base.DriverError,
                                    "rcbench images build"):
            registry.guest_image(conf(image_cache_dir="/nonexistent"))


class DaemonTestCase(unittest.TestCase):

    def test_alive_is_false_for_a_missing_pid(self):
        self.assertTrue(processes.running(os.getpid()))
        self.assertFalse(processes.running(2 ** 22 + 12345))

    def test_a_crashed_daemons_own_pid_file_is_removed_before_start(self):
        dead = subprocess.Popen(["true"])
        dead.wait()
        with tempfile.TemporaryDirectory() as scratch:
            own = os.path.join(scratch, "own.pid")
            daemon = daemon_process.Daemon("x", ["true"], scratch,
                                           own_pidfiles=(own,))
            for pid, kept in ((os.getpid(), True), (dead.pid, False)):
                with open(own, "w") as f:
                    f.write("%d\n" % pid)
                daemon._remove_stale_own_pidfiles()
                self.assertEqual(kept, os.path.exists(own), pid)

    def test_every_engine_daemon_list_is_ordered(self):
        for name, group in daemons.daemons(conf()).items():
            self.assertTrue(group, name)
            for daemon in group:
                self.assertTrue(daemon.argv)

    def test_asking_for_the_daemons_writes_nothing(self):
        # Every podman command asks (for podman's namespace holder): the
        # libvirtd config is written when libvirtd starts, not then.
        with tempfile.TemporaryDirectory() as scratch:
            cache = os.path.join(scratch, "cache")
            daemons.daemons(conf(image_cache_dir=cache))
            podman.namespace_holder(conf(image_cache_dir=cache))
            self.assertFalse(os.path.exists(cache))
            path = libvirt_daemon.write_libvirtd_config(cache)
            (libvirtd,) = [d for d in daemons.daemons(
                conf(image_cache_dir=cache))["kvm"] if d.name == "libvirtd"]
            self.assertIn(path, libvirtd.argv)
            with open(path) as f:
                self.assertIn('auth_unix_rw = "none"', f.read())


class ContainerdNotRunningTestCase(unittest.TestCase):

    def test_listing_without_its_socket_fails_before_ctr_dials(self):
        with tempfile.TemporaryDirectory() as state:
            driver = ctr.Containerd(None, conf(containerd_state_dir=state))
            # a spy: ctr would wait 10 s to dial the missing socket
            with mock.patch.object(base, "run_cli",
                                   side_effect=AssertionError("ctr ran")):
                with self.assertRaisesRegex(base.DriverError,
                                            "not running.*containerd.sock"):
                    driver.list_ours()
