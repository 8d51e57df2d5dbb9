"""gVisor's flags, dockerd's config and the label: the parts without runsc.

The runtime itself is tested for real in tests/functional
(test_local_drivers, test_lifecycle, test_gvisor_task).
"""

import json
import os
import tempfile
import unittest
from unittest import mock

from rally_container_bench.core import base
from rally_container_bench.engines import daemons
from rally_container_bench.engines.docker import daemon as docker_daemon
from rally_container_bench.engines.docker import instance as docker_driver
from rally_container_bench.engines.oci import gvisor
from rally_container_bench.engines.oci import runtimes
from rally_container_bench.report import results
from tests.unit.test_drivers_pure import conf


class FlagsTestCase(unittest.TestCase):

    def test_flags_follow_the_options(self):
        self.assertEqual(["--platform=ptrace", "--network=host"],
                         gvisor.runtime_flags(conf()))
        self.assertEqual(["--platform=kvm", "--network=sandbox"],
                         gvisor.runtime_flags(conf(runsc_platform="kvm",
                                                   runsc_network="sandbox")))

    def test_flag_values_default_as_runsc_does(self):
        self.assertEqual({"platform": "ptrace", "network": "sandbox"},
                         gvisor.flag_values([]))
        self.assertEqual({"platform": "kvm", "network": "host"},
                         gvisor.flag_values(["--network=host", "-platform=kvm",
                                             "--debug"]))

    def test_facts_name_platform_and_network(self):
        facts = gvisor.facts_of(["--platform=ptrace", "--network=host"])
        self.assertEqual("gvisor-ptrace", facts["acceleration"])
        self.assertIn("hostinet", facts["gvisor_network"])
        self.assertIn("netstack", gvisor.facts_of([])["gvisor_network"])
        self.assertTrue(gvisor.facts_of(["--network=none"])[
            "gvisor_network"].startswith("none"))

    def test_described_keeps_the_engine_facts(self):
        with mock.patch.object(gvisor, "version", return_value="runsc v1"):
            facts = gvisor.described(
                {"network": "docker network bridge", "runtime": "runsc",
                 "engine_version": "docker 20.10"}, ["--network=host"])
        self.assertEqual("docker 20.10, runsc v1", facts["engine_version"])
        self.assertTrue(facts["network"].startswith("docker network bridge;"))
        self.assertNotIn("gvisor_network", facts)


class DockerdConfigTestCase(unittest.TestCase):

    def test_host_config_is_kept_without_command_line_keys(self):
        host = json.dumps({"hosts": ["tcp://0.0.0.0:2375"], "pidfile": "/x",
                           "log-level": "warn",
                           "runtimes": {"other": {"path": "/bin/other"}}})
        with mock.patch.object(runtimes.Runtime, "installed",
                               return_value=True):
            config = runtimes.dockerd_config(conf(), host)
        self.assertNotIn("hosts", config)
        self.assertNotIn("pidfile", config)
        self.assertEqual("warn", config["log-level"])
        self.assertEqual({"other", "runsc"}, set(config["runtimes"]))
        self.assertEqual(["--platform=ptrace", "--network=host"],
                         config["runtimes"]["runsc"]["runtimeArgs"])

    def test_without_runsc_no_runtime_is_registered(self):
        with mock.patch.object(runtimes.Runtime, "installed",
                               return_value=False):
            self.assertEqual({}, runtimes.dockerd_config(conf(), None))

    def test_engines_start_writes_it_where_dockerd_reads_it(self):
        with tempfile.TemporaryDirectory() as state:
            c = conf(daemon_state_dir=state)
            (dockerd,) = daemons.daemons(c)["docker"]
            argv = dockerd.argv
            path = argv[argv.index("--config-file") + 1]
            self.assertFalse(os.path.exists(path))  # not before a start
            with mock.patch.object(runtimes.Runtime, "installed",
                                   return_value=True):
                dockerd.prepare()
            with open(path) as f:
                self.assertIn("runsc", json.load(f)["runtimes"])

    def test_a_broken_host_config_is_a_clear_error(self):
        with tempfile.TemporaryDirectory() as state:
            host = os.path.join(state, "daemon.json")
            with open(host, "w") as f:
                f.write('{"log-level": "warn",}')
            write = docker_daemon._write_dockerd_config(
                conf(daemon_state_dir=state), host_config=host)
            with self.assertRaisesRegex(base.DriverError,
                                        "daemon.json is not valid JSON"):
                write()


class RegisteredFlagsTestCase(unittest.TestCase):

    def test_read_from_docker_info(self):
        info = {"Runtimes": {"runc": {"path": "runc"}, "runsc": {
            "path": "/usr/bin/runsc", "runtimeArgs": ["--network=host"]}}}
        self.assertEqual(["--network=host"],
                         docker_driver.registered_flags(info, "runsc"))
        self.assertIsNone(docker_driver.registered_flags({"Runtimes": {}},
                                                         "runsc"))


class LabelTestCase(unittest.TestCase):

    def test_label_names_gvisor_platform(self):
        for driver in ("docker-runsc", "podman-runsc", "runsc"):
            platform = results.Platform(driver, "runsc", "gvisor-ptrace")
            self.assertEqual(driver + "-ptrace", platform.label)
        self.assertEqual("docker-runc", results.Platform(
            "docker", "runc", "none (container)").label)
