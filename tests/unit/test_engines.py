"""The one engine registry, the one label scheme, the shared templates.

The cleanup path itself runs against the real engines in
tests/functional/test_one_cleanup_path.py.
"""

import os
import tempfile
import unittest
from unittest import mock
from xml.etree import ElementTree

from rally_container_bench.core import base
from rally_container_bench.core import labels
from rally_container_bench.engines import catalog
from rally_container_bench.engines import daemons
from rally_container_bench.engines.libvirt import domain as libvirt_engine
from rally_container_bench.engines.libvirt import lifecycle as lc_libvirt
from rally_container_bench.engines.lxc import config as lxc_engine
from rally_container_bench.engines import registry
from rally_container_bench.images import busybox
from tests.unit.test_drivers_pure import conf


class CatalogTestCase(unittest.TestCase):

    def test_each_view_class_is_named_as_its_engine(self):
        for view in catalog.INSTANCE, catalog.LIFECYCLE:
            for name in catalog.names(view):
                self.assertEqual(name, catalog.view_class(view, name).name)

    def test_the_registries_are_views_of_the_catalog(self):
        self.assertEqual(catalog.names("instance"), registry.INSTANCE_NAMES)
        self.assertEqual(catalog.names("lifecycle"), registry.LIFECYCLE_NAMES)
        self.assertLess(set(registry.INSTANCE_NAMES),
                        set(registry.LIFECYCLE_NAMES))

    def test_every_store_is_cleaned_through_a_lifecycle_view(self):
        stores = catalog.stores()
        self.assertEqual({"docker", "podman", "libvirt", "lxc", "runc",
                          "crun", "runsc", "containerd", "cri"}, set(stores))
        for store, name in stores.items():
            self.assertEqual(store, catalog.ENGINES[name].store)
            cls = catalog.view_class(catalog.LIFECYCLE, name)
            self.assertTrue(callable(cls.discard))

    def test_unknown_and_unavailable_engines_say_why(self):
        with self.assertRaisesRegex(base.DriverError, "unknown runtime "
                                    "'vmware'; known: containerd, "):
            catalog.view_class(catalog.LIFECYCLE, "vmware")
        with self.assertRaisesRegex(base.DriverError, "unknown driver "
                                    "'runc'; known: docker, "):
            catalog.view_class(catalog.INSTANCE, "runc")
        with self.assertRaisesRegex(base.DriverError, "not packaged"):
            catalog.view_class(catalog.LIFECYCLE, "kata")

    def test_engines_start_takes_the_platform_names(self):
        # what rcbench engines start|stop resolves, before it starts any
        known = {"docker": [], "kvm": [], "podman": [], "containerd": []}
        drivers = set(registry.INSTANCE_NAMES + registry.LIFECYCLE_NAMES)
        self.assertEqual(
            [("docker", "docker"), ("podman-crun", "podman"),
             ("lxc", None), ("cri-containerd", "containerd"),
             ("docker-runsc", "docker"), ("runc", None)],
            daemons.resolve(["docker", "podman-crun", "lxc",
                             "cri-containerd", "docker-runsc", "runc"],
                            known, drivers))
        with self.assertRaisesRegex(ValueError, "no engine or driver named "
                                    "'vmware', 'xen'; engines with daemons: "
                                    "containerd, docker, kvm, podman"):
            daemons.resolve(["docker", "vmware", "xen"], known, drivers)

    def test_a_store_that_does_not_answer_is_skipped_and_named(self):
        class Answers(object):
            name = "stand-in"

            def __init__(self, image, conf):
                pass

            def list_ours(self):
                return ["s_rally_a", "other", "s_rally_a"]

        class Fails(Answers):
            def list_ours(self):
                raise base.DriverError("daemon down")

        # Stand-ins for two stores' cleaners: which one answers is the
        # point here, not the engines (real ones: the functional test).
        classes = {"docker": Answers, "podman-crun": Fails}
        unreachable = []
        with mock.patch.object(catalog, "stores",
                               return_value={"docker": "docker",
                                             "podman": "podman-crun"}), \
                mock.patch.object(catalog, "view_class",
                                  lambda view, name: classes[name]):
            found = catalog.leftovers(
                conf(), lambda n: n.startswith("s_rally"),
                on_error=lambda store, e: unreachable.append(store))
        self.assertEqual(["s_rally_a"], [name for _, name in found])
        self.assertEqual(["podman"], unreachable)


class LabelsTestCase(unittest.TestCase):

    def test_one_key_the_view_as_value(self):
        self.assertEqual({"rcbench": "instance"}, labels.label("instance"))
        self.assertEqual(["--label", "rcbench=lifecycle"],
                         labels.label_args("lifecycle"))
        with self.assertRaisesRegex(ValueError, "no view 'guest'"):
            labels.label("guest")

    def test_lxc_headers_of_this_and_older_versions_are_ours(self):
        for line in (labels.lxc_header("instance", "s_rally_x"),
                     labels.lxc_header("lifecycle", "s_rally_x"),
                     "# rally-container-bench instance s_rally_x",
                     "# rally-container-bench lifecycle instance"):
            self.assertTrue(labels.is_lxc_header(line), line)
        self.assertFalse(labels.is_lxc_header("lxc.uts.name = web"))

    def test_libvirt_descriptions_of_this_and_older_versions(self):
        for text in ("rcbench instance", "rcbench lifecycle\n",
                     "rcbench-lifecycle"):
            self.assertTrue(labels.is_libvirt_description(text), text)
        self.assertFalse(labels.is_libvirt_description("web server"))
        self.assertFalse(labels.is_libvirt_description(""))


class SharedTemplatesTestCase(unittest.TestCase):

    def test_lxc_config_of_each_view(self):
        with tempfile.TemporaryDirectory() as root, \
                mock.patch.object(lxc_engine, "LXC_PATH", root):
            lxc_engine.write_config("a", "instance", "/img", "/up/a",
                                    init="/sbin/rcbench-init",
                                    network="none", hostname="g", ptys=16,
                                    environment=["RCBENCH_SSH_PORT=4022"])
            lxc_engine.write_config("b", "lifecycle", "/img", "/up/b",
                                    init="/loop", network="empty",
                                    hostname="rcbench", ptys=4)
            os.makedirs(os.path.join(root, "someone-elses"))
            with open(os.path.join(root, "someone-elses", "config"),
                      "w") as f:
                f.write("lxc.uts.name = web\n")
            self.assertEqual(["a", "b"], lxc_engine.list_ours())
            with open(os.path.join(root, "a", "config")) as f:
                a = f.read()
        self.assertIn("lxc.rootfs.path = overlay:/img:/up/a\n", a)
        self.assertIn("lxc.net.0.type = none\n", a)
        self.assertIn("lxc.environment = RCBENCH_SSH_PORT=4022\n", a)
        self.assertIn("lxc.pty.max = 16\n", a)

    def test_lifecycle_domain_is_marked_and_diskless(self):
        vm = lc_libvirt.LibvirtVm(
            busybox.BusyboxImage("/cache/busybox-x", "x"),
            conf(vm_acceleration="tcg"))
        with tempfile.TemporaryDirectory() as cache, \
                mock.patch.object(vm, "_kernel", return_value="/k"), \
                mock.patch.object(libvirt_engine, "instance_dir",
                                  lambda c, n: os.path.join(cache, n)):
            with open(vm._xml("s_rally_v")) as f:
                root = ElementTree.fromstring(f.read())
        self.assertEqual("rcbench lifecycle", root.findtext("description"))
        self.assertEqual("qemu", root.get("type"))
        self.assertIsNone(root.find("devices/disk"))
        self.assertIn("rdinit=" + busybox.LOOP_SCRIPT,
                      root.findtext("os/cmdline"))
        self.assertEqual("1", root.findtext("vcpu"))


class _StandInCleaner:
    """Stand-in for an engine's lifecycle view (its discard only).

    One that removes, one that fails, one that never answers.
    """

    def __init__(self, name, behaviour, release=None):
        self.name = name
        self.behaviour = behaviour
        self.release = release
        self.discarded = []

    def discard(self, name):
        if self.behaviour == "fails":
            raise base.DriverError("%s rm -f %s failed: busy"
                                   % (self.name, name))
        if self.behaviour == "hangs":
            self.release.wait(30)
        self.discarded.append(name)

    def by_hand(self, name):
        return "%s rm -f %s" % (self.name, name)


class DiscardAllTestCase(unittest.TestCase):
    """The whole cleanup is bounded, whatever one engine does."""

    def test_what_does_not_go_within_the_bound_is_named(self):
        import threading
        import time
        release = threading.Event()
        self.addCleanup(release.set)
        good = _StandInCleaner("docker", "removes")
        bad = _StandInCleaner("podman-runc", "fails")
        stuck = _StandInCleaner("lxc", "hangs", release)
        found = ([(good, "a%d" % i) for i in range(20)]
                 + [(bad, "b"), (stuck, "c")])
        heard = []
        started = time.monotonic()
        left = catalog.discard_all(found, 1.0, lambda c, n, e: heard.append(n))
        self.assertLess(time.monotonic() - started, 5)
        self.assertEqual(20, len(good.discarded))
        self.assertEqual(21, len(heard))  # the stuck one never ended
        self.assertEqual([("podman-runc", "b"), ("lxc", "c")],
                         [(c.name, n) for c, n, _ in left])
        self.assertIn("busy", left[0][2])
        self.assertIn("not removed within 1 s (cleanup_timeout)", left[1][2])
        line = catalog.left_line(*left[1], task_id="T")
        self.assertEqual("lxc c is left (not removed within 1 s "
                         "(cleanup_timeout)); remove it with: rcbench "
                         "cleanup --task T or: lxc rm -f c", line)

    def test_every_engine_says_how_to_remove_by_hand(self):
        for name in catalog.names(catalog.LIFECYCLE):
            cleaner = catalog.view_class(catalog.LIFECYCLE, name)(None,
                                                                  conf())
            if name in ("containerd", "cri-containerd"):
                continue  # rcbench cleanup only
            self.assertIn("s_rally_x", cleaner.by_hand("s_rally_x"), name)


class ContainerdSweepBeforeStopTestCase(unittest.TestCase):

    def test_a_client_that_is_not_installed_is_skipped_and_said(self):
        # Stand-in: the drivers' checks and listings (no containerd runs
        # in the unit tests); the real sweep runs in tests/functional.
        from rally_container_bench.engines.containerd import cri
        from rally_container_bench.engines.containerd import ctr
        from rally_container_bench.engines.containerd import daemon
        said = []
        with mock.patch.object(cri.CriContainerd, "check",
                               return_value=(False, cri.INSTALL_HINT)), \
                mock.patch.object(ctr.Containerd, "check",
                                  return_value=(True, "ctr")), \
                mock.patch.object(ctr.Containerd, "list_ours",
                                  return_value=["rcbench-1"]), \
                mock.patch.object(ctr.Containerd,
                                  "discard") as discard:
            daemon._remove_containerd_instances(conf())(
                said.append)
        self.assertEqual([mock.call("rcbench-1")], discard.call_args_list)
        self.assertEqual(["cri-containerd: not swept (%s)" % cri.INSTALL_HINT,
                          "containerd: removed rcbench-1"], said)
