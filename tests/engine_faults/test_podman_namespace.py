"""Podman containers and the private mount namespace (hybrid cgroups).

Podman's network namespaces are bind mounts inside the namespace that
``rcbench engines start podman`` holds. A container that outlives the
holder (a test run killed, then the holder stopped) used to break every
later ``podman ps``. Run alone: it stops and starts the shared holder.
"""

import os
import subprocess
import unittest
import uuid

from rally_container_bench.engines import daemons
from rally_container_bench.engines import registry
from rally_container_bench import opts

from tests.functional import helpers


class PodmanNamespaceTestCase(unittest.TestCase):

    def setUp(self):
        self.conf = opts.register()
        holders = daemons.daemons(self.conf).get("podman")
        if not holders:
            self.skipTest("no private mount namespace on this host "
                          "(cgroups are not hybrid)")
        (self.holder,) = holders
        usable, why = registry.instance_class("podman-runc").check(self.conf)
        if not usable:
            self.skipTest(why)
        self.addCleanup(self.engines, "start")
        self.driver = registry.instance_class("podman-runc")(
            registry.guest_image(self.conf), self.conf)
        self.driver.prepare()

    def engines(self, action):
        proc = subprocess.run(
            [os.path.join(helpers.BIN, "rcbench"), "engines", action,
             "podman"], capture_output=True, text=True, timeout=300)
        self.assertEqual(0, proc.returncode, proc.stderr)
        return proc.stdout

    def boot(self):
        name = "rcbench_functest_%s" % uuid.uuid4().hex[:8]
        instance = self.driver.create(name)
        self.driver.wait_running(instance, self.conf.boot_timeout)
        return name, self.driver._checked("inspect", "--format", "{{.Id}}",
                                          name).strip()

    def test_a_container_that_outlived_the_namespace_is_removed_at_start(self):
        name, container_id = self.boot()
        self.assertIn(container_id, nat_rules())  # its port mapping
        # What a killed run leaves: the holder gone, the container not.
        self.holder.stop()
        out = self.engines("start")
        self.assertIn("podman: removed %s (its network namespace was gone)"
                      % container_id[:12], out)
        self.assertNotIn(name, helpers.ours(self.driver.name))
        # Left in place, its 127.0.0.1:PORT mapping would capture the next
        # container any engine publishes on that port.
        self.assertNotIn(container_id, nat_rules())

    def test_stopping_the_engine_removes_our_containers_first(self):
        name, container_id = self.boot()
        out = self.engines("stop")
        self.assertIn("(it cannot outlive podman's mount namespace)", out)
        self.assertIn("podman-mounts: stopped", out)
        self.engines("start")
        self.assertNotIn(name, helpers.ours(self.driver.name))
        self.assertNotIn(container_id, nat_rules())


def nat_rules():
    return subprocess.run(["iptables-save", "-t", "nat"], check=True,
                          capture_output=True, text=True).stdout
