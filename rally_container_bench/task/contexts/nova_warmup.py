"""rcbench_nova_warmup: every compute host caches the image before the timer.

    contexts:
      rcbench_guest: {hypervisor_type: lxc, shared: true, last: false}
      rcbench_nova_warmup:
        flavor: {name: rcbench-kek-1a2b3c}   # the workload's own
        network: rcbench-provider
        availability_zone: nova       # optional

Nova downloads an image into a compute host's cache at the first server
of that image on that host: the first timed boot of every host would
otherwise include a download (20-31 s per workload on the test cloud).
With the task's shared guest image (guest_share) this context boots one
server on each compute host of the image's hypervisor type that has not
cached it yet during the task, all at once, waits for them to be ACTIVE
(the image is then in the host's cache) and deletes them, before the
workload starts. The hosts warmed are kept on the image, so a later
workload of the task boots nothing. Needs admin credentials (a server on
a named host is admin-only); without them, or without a shared image, it
warms nothing and says so. Each iteration records what was warmed.
"""

import time

from rally.common import logging
from rally.task import context

from rally_container_bench.core import base
from rally_container_bench.engines.openstack import nova as nova_driver
from rally_container_bench import opts
from rally_container_bench.task.contexts import guest_share
from rally_container_bench.task.scenarios import cloud

LOG = logging.getLogger(__name__)


@context.configure(name="rcbench_nova_warmup", platform="openstack",
                   order=430)
class NovaWarmup(context.Context):
    """One server per compute host that has not cached the task's image."""

    CONFIG_SCHEMA = {
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "flavor": {"type": "object",
                       "properties": {"name": {"type": "string"}},
                       "required": ["name"]},
            "network": {"type": "string", "minLength": 1},
            "availability_zone": {"type": "string", "minLength": 1}},
        "required": ["flavor"]}

    def setup(self):
        # {host: what happened}: the scenario puts it in each iteration's
        # environment ("image_cache").
        found = self.context["rcbench_nova_warmup"] = {}
        self._servers = []
        guest = next((t.get("rcbench_guest") for t in
                      self.context["tenants"].values()
                      if (t.get("rcbench_guest") or {}).get("shared")),
                     None)
        admin = self.context.get("admin")
        if guest is None or not admin:
            found["*"] = ("not warmed: %s" % (
                "no admin credentials" if not admin else
                "the image is the workload's own (no shared image)"))
            LOG.info("rcbench_nova_warmup: %s" % found["*"])
            return
        clients = admin["credential"].clients()
        glance = clients.glance("2")
        image = glance.images.get(guest["image"])
        hosts = nova_driver.compute_hosts(clients.nova(),
                                          guest["hypervisor_type"])
        zone = self.config.get("availability_zone")
        cold = {host: zone or host_zone for host, host_zone in hosts.items()
                if host not in guest_share.warm_hosts(image)}
        for host in sorted(set(hosts) - set(cold)):
            found[host] = "cached by an earlier workload of the task"
        if cold:
            found.update(self._warm(clients, guest, cold))
            guest_share.add_warm_hosts(glance, image, [
                h for h, what in found.items() if what.startswith("warmed")])

    def _warm(self, clients, guest, zones):
        """{host: what happened} of one server booted on each host."""
        conf = opts.register()
        network = cloud.network_ref(
            clients.neutron(), self.config["network"],
            "the admin (rcbench_nova_warmup)")[0] \
            if self.config.get("network") else None
        flavor = clients.nova().flavors.find(
            name=self.config["flavor"]["name"]).id
        booted = {}
        started = time.monotonic()
        for host, zone in sorted(zones.items()):
            request = nova_driver.BootRequest(
                image=guest["image"], flavor=flavor, network=network,
                availability_zone="%s:%s" % (zone, host),
                hypervisor_type=guest["hypervisor_type"])
            driver = nova_driver.NovaDriver(clients.nova(), request, None,
                                            conf)
            booted[host] = (driver, driver.create(
                self.generate_random_name()))
            self._servers.append(booted[host])
        LOG.info("rcbench_nova_warmup: caching %s on %s"
                 % (guest["image"], ", ".join(sorted(booted))))
        found = {}
        for host, (driver, instance) in sorted(booted.items()):
            try:
                driver.wait_running(instance, conf.boot_timeout)
                found[host] = ("warmed before the workload (one server "
                               "ACTIVE after %.1f s)"
                               % (time.monotonic() - started))
            except base.DriverError as e:
                found[host] = "not warmed: %s" % e
                LOG.warning("rcbench_nova_warmup: %s: %s" % (host, e))
        self._delete()
        return found

    def _delete(self):
        conf = opts.register()
        for driver, instance in self._servers:
            try:
                driver.delete(instance)
            except Exception as e:
                LOG.warning("rcbench_nova_warmup: server %s not deleted: "
                            "%s (Rally's cleanup tries again)"
                            % (instance.name, e))
        for driver, instance in self._servers:
            try:
                driver.wait_deleted(instance, conf.delete_timeout)
            except Exception as e:
                LOG.warning("rcbench_nova_warmup: server %s not gone: %s"
                            % (instance.name, e))
        self._servers = []

    def cleanup(self):
        if getattr(self, "_servers", None):
            self._delete()
