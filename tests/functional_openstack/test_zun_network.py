"""rcbench_zun_networks' call against the real Zun of the all-in-one cloud.

Zun made fresh for the provider network (its Docker network deleted
through Zun's admin API): the context's own function makes Zun's Docker
network before any container, and a second call finds it made and does
not fail (Zun answers HTTP 500 then). Runs alone, before the other cloud
tests (tox.ini): Zun refuses to delete a network another test has
containers on. Skips without the cloud.
"""

import subprocess
import unittest

from rally_container_bench.task.contexts import zun_networks
from tests.functional_openstack import cloud as aio

NETWORK = "rcbench-provider"


def forget_zun_network(name):
    """Delete Zun's Docker network of a Neutron network (admin API)."""
    from neutronclient.v2_0 import client as neutron_client
    from zunclient import exceptions as zun_exceptions
    net_id = neutron_client.Client(
        session=aio.admin_session()).list_networks(
        name=name)["networks"][0]["id"]
    try:
        aio.admin_zun().http_client.json_request(
            "DELETE", "/v1/networks/%s" % net_id)
    except zun_exceptions.NotFound:
        pass
    return net_id


def docker_networks(name):
    """Docker networks of that exact name on Zun's Docker Engine."""
    out = subprocess.run(aio.zun_docker("network", "ls", "--format",
                                        "{{.Name}}"),
                         capture_output=True, text=True,
                         check=True).stdout.split()
    return [n for n in out if n == name]


class ZunNetworkTestCase(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        aio.env_spec()  # skips without the cloud
        cls.net_id = forget_zun_network(NETWORK)

    def test_made_before_any_container_and_again_without_error(self):
        self.assertEqual([], docker_networks(self.net_id))
        zun = aio.admin_zun()
        zun_networks.make_zun_network(zun, self.net_id)
        self.assertEqual([self.net_id], docker_networks(self.net_id))
        zun_networks.make_zun_network(zun, self.net_id)
        self.assertEqual([self.net_id], docker_networks(self.net_id))
