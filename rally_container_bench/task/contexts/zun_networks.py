"""rcbench_zun_networks: Zun's Docker network made before the first container.

    contexts:
      rcbench_zun_networks:
        networks: [rcbench-provider]

Zun makes the Docker network of a Neutron network on a compute host with
that host's first container there. When several containers are the first
at once, all but one go to Error with "A network with UUID ... already
exists": Zun catches the duplicate row only when oslo.db names the column
neutron_net_id, but its unique constraint "uniq_network0neutron_net_id_host"
is parsed as one column "neutron_net_id_host" (Zun 18.0.0). A benchmark at
concurrency N on a fresh Zun would measure that race, not the cloud, so
this context asks Zun's network API (admin-only) to make the network first.
It stays after the task, as Zun itself keeps the networks its containers
make (only its admin network API deletes them). Zun makes it on one compute
host (its API picks one); on a multi-host Zun the other hosts' first
containers can still race. Without admin credentials it warns and does
nothing.
"""

from rally.common import logging
from rally.task import context

from rally_container_bench.task.scenarios import cloud

LOG = logging.getLogger(__name__)


@context.configure(name="rcbench_zun_networks", platform="openstack",
                   order=419)
class ZunNetworks(context.Context):
    """Zun's Docker network for these Neutron networks, made up front."""

    CONFIG_SCHEMA = {
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "networks": {
                "type": "array", "minItems": 1, "uniqueItems": True,
                "items": {"type": "string", "minLength": 1},
                "description": "Neutron networks (names or ids) the "
                               "workload's containers use"}},
        "required": ["networks"]}

    def setup(self):
        admin = self.context.get("admin")
        if not admin:
            LOG.warning("rcbench_zun_networks: no admin credentials, so "
                        "Zun's Docker networks are not made in advance; "
                        "the first concurrent containers on a fresh Zun "
                        "host may fail with 'A network with UUID ... "
                        "already exists' (Zun's network creation race)")
            return
        clients = admin["credential"].clients()
        neutron, zun = clients.neutron(), clients.zun()
        for ref in self.config["networks"]:
            net_id, _name = cloud.network_ref(
                neutron, ref, "the admin (rcbench_zun_networks)")
            make_zun_network(zun, net_id)

    def cleanup(self):
        """None: the networks stay, as those Zun's containers make do."""


def make_zun_network(zun, net_id):
    """Zun's Docker network of a Neutron network, unless it has one."""
    from zunclient import exceptions as zun_exceptions

    try:
        # The API requires a name; zun-compute names the Docker network
        # after the Neutron network's id anyway, as it does on its own.
        zun.http_client.json_request(
            "POST", "/v1/networks",
            body={"neutron_net_id": net_id, "name": net_id})
    except zun_exceptions.Conflict:
        LOG.info("Zun already has a Docker network for %s" % net_id)
        return
    except zun_exceptions.InternalServerError as e:
        # zun-api passes zun-compute's NetworkAlreadyExists on as an RPC
        # error, an HTTP 500 with no reason given, and has no API to ask
        # first: not fatal, the containers tell whether the network works.
        LOG.info("Zun did not make a Docker network for %s (HTTP 500; "
                 "Zun says so when it has one already): %s"
                 % (net_id, e))
        return
    LOG.info("Zun made its Docker network for %s" % net_id)
