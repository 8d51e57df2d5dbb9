"""The ZunContainers sample against the real Zun of the all-in-one cloud.

As a task's users see Zun (no runtime and no pull policy asked for, so no
admin rights used for the containers, and one at a time: Zun's default
pull policy makes each container load the image again, and two at once
race on the host's archive of it): sysbench over SSH, then sysbench as the
container's command with its results read from the logs. Skips without
the cloud.

First, rcbench_zun_networks' own call against a Zun made fresh for the
network (its Docker network deleted): it makes Zun's Docker network
before any container, and a second call finds it made. It runs alone,
before the other Zun tests (tox.ini): Zun refuses to delete a network
another test has containers on.
"""

import os
import subprocess
import unittest

from rally_container_bench.task.contexts import zun_networks
from tests.functional import helpers
from tests.functional_openstack import cloud as aio

SAMPLE = os.path.join(helpers.TOP, "samples", "tasks", "scenarios",
                      "zun-containers", "run-sysbench-delete.yaml")
NETWORK = "rcbench-provider"


def zun_client():
    from zunclient import client

    return client.Client("1.latest", session=aio.admin_session())


def forget_zun_network(name):
    """Delete Zun's Docker network of a Neutron network (admin API)."""
    from neutronclient.v2_0 import client as neutron_client
    from zunclient import exceptions as zun_exceptions
    net_id = neutron_client.Client(
        session=aio.admin_session()).list_networks(
        name=name)["networks"][0]["id"]
    zun = zun_client()
    try:
        zun.http_client.json_request("DELETE", "/v1/networks/%s" % net_id)
    except zun_exceptions.NotFound:
        pass
    return net_id


def docker_networks(name):
    """Docker networks of that exact name on Zun's Docker Engine."""
    out = subprocess.run(["docker", "network", "ls", "--format",
                          "{{.Name}}"], capture_output=True, text=True,
                         check=True).stdout.split()
    return [n for n in out if n == name]


class ZunSampleTestCase(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.home = aio.aio_rally_home()
        cls.net_id = forget_zun_network(NETWORK)
        cls.docker_networks_before = docker_networks(cls.net_id)
        zun = zun_client()
        zun_networks.make_zun_network(zun, cls.net_id)
        cls.docker_networks_made = docker_networks(cls.net_id)
        zun_networks.make_zun_network(zun, cls.net_id)  # made: no error
        cls.uuid, cls.stdout = cls.home.start(SAMPLE)
        cls.report = cls.home.results(cls.uuid)

    @classmethod
    def tearDownClass(cls):
        cls.home.close()

    def test_network_made_before_the_first_containers(self):
        self.assertEqual([], self.docker_networks_before)
        self.assertEqual([self.net_id], self.docker_networks_made)
        self.assertEqual([self.net_id], docker_networks(self.net_id))
        for via in ("ssh", "logs"):
            for iteration in self.iterations(via):
                self.assertFalse(iteration["error"])

    def iterations(self, via):
        found = [(w, i) for w in helpers.workloads(self.report)
                 for i in w["data"]
                 if w["scenario"]["ZunContainers.run_sysbench_delete"]
                 .get("via", "ssh") == via]
        self.assertEqual(2, len(found), via)
        return [i for _w, i in found]

    def test_over_ssh_with_every_phase(self):
        for iteration in self.iterations("ssh"):
            self.assertFalse(iteration["error"])
            names = [a["name"] for a in iteration["atomic_actions"]]
            self.assertEqual(["build", "network", "sysbench.cpu",
                              "sysbench.memory.read", "delete"], names)

    def test_from_the_logs_with_the_containers_own_timing(self):
        for iteration in self.iterations("logs"):
            self.assertFalse(iteration["error"])
            actions = {a["name"]: a for a in iteration["atomic_actions"]}
            self.assertNotIn("network", actions)
            cpu = actions["sysbench.cpu"]
            # Measured in the container: after the create request, before
            # the delete. (It may start before build ends: the command
            # runs as soon as the container does, while the client polls.)
            self.assertLess(actions["build"]["started_at"],
                            cpu["started_at"])
            self.assertLess(cpu["started_at"], cpu["finished_at"])
            self.assertLess(cpu["finished_at"],
                            actions["delete"]["started_at"])
            out = helpers.additive(iteration)
            self.assertGreater(
                out["sysbench cpu"]["events_per_s (events/s)"], 0)
            self.assertGreater(
                out["sysbench memory.read"]["mib_per_s (MiB/s)"], 0)
            env = helpers.environment(iteration)
            self.assertEqual(("logs", "zun", ""),
                             (env["via"], env["driver"],
                              env["runtime_requested"]))
