"""The OCI runtime table: one entry makes the engines of both views.

The runtimes themselves run for real in tests/functional (test_lifecycle,
test_local_drivers, test_gvisor_task); here a runtime that is not
installed ("youki", a stand-in entry) shows what one entry brings.
"""

import unittest
from unittest import mock

from rally_container_bench.core import base
from rally_container_bench.engines import catalog
from rally_container_bench.engines.oci import runtimes
from tests.unit.test_drivers_pure import conf

YOUKI = runtimes.Runtime("youki", package="youki",
                         flags=lambda conf: ["--log-level=warn"],
                         facts=lambda flags: {"youki_flags": " ".join(flags)})


class WithYouki(object):
    """The catalog as it is after one more entry in engines.runtimes."""

    def setUp(self):
        table = mock.patch.dict(runtimes.RUNTIMES, youki=YOUKI)
        table.start()
        self.addCleanup(table.stop)
        engines = mock.patch.object(catalog, "ENGINES", catalog.engines())
        engines.start()
        self.addCleanup(engines.stop)


class TableTestCase(unittest.TestCase):

    def test_the_names_task_files_use(self):
        self.assertEqual(
            [("docker", "docker", "runc"),
             ("docker-runsc", "docker", "runsc"),
             ("podman-crun", "podman", "crun"),
             ("podman-runc", "podman", "runc"),
             ("podman-runsc", "podman", "runsc"),
             ("crun", "bare", "crun"), ("runc", "bare", "runc"),
             ("runsc", "bare", "runsc")],
            sorted(runtimes.offered(), key=lambda o: (o[1] == "bare", o)))

    def test_a_sandbox_is_all_overhead_in_the_footprint(self):
        for name in "runsc", "docker-runsc", "podman-runsc", "runc":
            driver = catalog.view_class(catalog.LIFECYCLE, name)(None, conf())
            self.assertEqual(name.endswith("runc"), driver.workload_separate)

    def test_runsc_flags_on_a_bundle_have_no_network(self):
        oci = runtimes.RUNTIMES["runsc"]
        self.assertEqual(["--platform=ptrace", "--network=host"],
                         oci.flags(conf()))
        self.assertEqual(["--platform=ptrace", "--network=none"],
                         oci.bare_global_flags(conf()))


class OneEntryTestCase(WithYouki, unittest.TestCase):

    def test_both_views_offer_it(self):
        self.assertIn("docker-youki", catalog.names(catalog.INSTANCE))
        self.assertIn("podman-youki", catalog.names(catalog.INSTANCE))
        for name in "youki", "docker-youki", "podman-youki":
            self.assertIn(name, catalog.names(catalog.LIFECYCLE))
            cls = catalog.view_class(catalog.LIFECYCLE, name)
            self.assertEqual((name, "youki"), (cls.name, cls.runtime))
        self.assertEqual("youki", catalog.stores()["youki"])

    def test_podman_passes_its_binary_and_flags(self):
        cls = catalog.view_class(catalog.INSTANCE, "podman-youki")
        driver = cls(None, conf())
        with mock.patch.object(cls, "_in_namespace") as run, \
                mock.patch.object(cls, "_conf_file", return_value="/c"):
            driver.command("ps")
        argv = run.call_args[0][0]
        self.assertEqual(["--runtime", "youki", "--runtime-flag",
                          "log-level=warn", "ps"],
                         argv[argv.index("--runtime"):])

    def test_a_bare_bundle_runs_its_binary_under_its_own_root(self):
        driver = catalog.view_class(catalog.LIFECYCLE, "youki")(None, conf())
        self.assertEqual(["youki", "--root", "/run/rcbench-youki",
                          "--log-level=warn", "list", "-q"],
                         driver._argv("list", "-q"))

    def test_not_installed_is_said_with_its_package(self):
        for view, name in ((catalog.INSTANCE, "podman-youki"),
                           (catalog.LIFECYCLE, "youki")):
            with mock.patch("shutil.which", side_effect=lambda tool: (
                    None if tool == "youki" else "/usr/bin/" + tool)):
                ok, why = catalog.view_class(view, name).check(conf())
            self.assertFalse(ok)
            self.assertEqual("youki is not installed (apt: youki)", why)

    def test_dockerd_gets_it_registered_with_its_flags(self):
        with mock.patch.object(runtimes.Runtime, "installed",
                               return_value=True), \
                mock.patch("shutil.which", return_value="/usr/bin/youki"):
            config = runtimes.dockerd_config(conf(), None)
        self.assertEqual({"path": "/usr/bin/youki",
                          "runtimeArgs": ["--log-level=warn"]},
                         config["runtimes"]["youki"])
        self.assertNotIn("runc", config["runtimes"])

    def test_its_facts_go_with_each_result(self):
        oci = runtimes.RUNTIMES["youki"]
        self.assertEqual({"driver": "podman-youki",
                          "youki_flags": "--log-level=warn"},
                         oci.instance_facts({"driver": "podman-youki"},
                                            oci.flags(conf())))

    def test_an_unknown_runtime_is_still_unknown(self):
        with self.assertRaisesRegex(base.DriverError, "unknown runtime"):
            catalog.view_class(catalog.LIFECYCLE, "kata-youki")
