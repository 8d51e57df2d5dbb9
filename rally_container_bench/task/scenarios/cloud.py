"""What scenarios of instances in an OpenStack cloud share (Nova, Zun)."""

from rally.task import atomic


def network_ref(neutron, network, seen_by):
    """(id, name) of a Neutron network given by name or id."""
    for key in ("id", "name"):
        found = neutron.list_networks(**{key: network})["networks"]
        if found:
            return found[0]["id"], found[0]["name"]
    raise ValueError("no network %r visible to %s" % (network, seen_by))


class CloudInstanceMixin:
    """Networks by name or id; the network phase as ping, then SSH."""

    def _network_ref(self, network):
        """(id, name) of a network given by name or id; (None, None)."""
        if not network:
            return None, None
        return network_ref(self.clients("neutron"), network,
                           "the task's users")

    def _network(self, driver, instance, conf):
        with atomic.ActionTimer(self, "ping"):
            driver.wait_pingable(instance, conf.ssh_timeout)
        with atomic.ActionTimer(self, "ssh"):
            driver.wait_reachable(instance, conf.ssh_timeout)
