"""rcbench_zun_warmup: every Zun host holds the guest image before the timer.

    contexts:
      rcbench_zun_warmup:
        image_pull_policy: auto        # or ifnotpresent
        runtime: runc                  # the workload's own container fields
        network: rcbench-provider

With ``image_pull_policy: ifnotpresent`` a Zun host downloads a Glance
image once and loads it into Docker once. But while the first container
of a host is loading it, the others of the same step find the complete
archive on disk, take it as loaded and ask Docker for an image it does not
have yet ("No such image"; Zun 18.0.0's glance driver, 7 of 8 failed at 8
at once here). So, as Nova's image cache is warm after a host's first
server, this context runs one container per Zun compute host, one at a
time, until it is Running, and deletes it, before the workload starts: the
workload's build phase then times a container from a cached image, on
every host alike. It needs admin credentials (the pull policy and the
host are admin-only under Zun's default policy); with ``auto`` and none,
it warms nothing: the workload's containers use Zun's default policy.
With the task's shared guest image (guest_share) a host that loaded it
for an earlier workload of the task is not warmed again.
"""

import time

from rally.common import logging
from rally import exceptions
from rally.task import context

from rally_container_bench.engines.openstack import zun as zun_driver
from rally_container_bench import opts
from rally_container_bench.task.contexts import guest_share
from rally_container_bench.task.scenarios import cloud
from rally_container_bench.task import zun_validators

LOG = logging.getLogger(__name__)
# Zun takes a requested host from this microversion on.
HOST_MICROVERSION = (1, 39)


@context.configure(name="rcbench_zun_warmup", platform="openstack",
                   order=430)
class ZunWarmup(context.Context):
    """One container per Zun host, one at a time, before the workload."""

    CONFIG_SCHEMA = {
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "image_pull_policy": {"enum": ["auto", "ifnotpresent",
                                           "never"]},
            "runtime": {"type": "string", "minLength": 1},
            "network": {"type": "string", "minLength": 1},
            "cpu": {"type": "number", "exclusiveMinimum": 0},
            "memory": {"type": "integer", "minimum": 4},
            "availability_zone": {"type": "string", "minLength": 1}},
        "required": ["image_pull_policy"]}

    def setup(self):
        admin = self.context.get("admin")
        self.context["rcbench_zun_warmup"] = {"seconds": {},
                                              "leftovers": []}
        if not admin and self.config["image_pull_policy"] == "auto":
            LOG.info("rcbench_zun_warmup: no admin credentials: nothing "
                     "warmed, Zun's default pull policy (always) applies")
            return
        if not admin:
            raise exceptions.ContextSetupFailure(
                ctx_name=self.get_name(),
                msg="needs admin credentials: image_pull_policy and the "
                    "target host are admin-only under Zun's default policy")
        zun = admin["credential"].clients().zun()
        hosts = self._hosts(zun, admin["credential"])
        warmed = set()
        for tenant_id, tenant in sorted(self.context["tenants"].items()):
            guest = tenant.get("rcbench_guest", {})
            if not guest.get("image_name") or guest["image_name"] in warmed:
                continue  # none, or the task's shared one: warmed once
            warmed.add(guest["image_name"])
            self._warm_hosts(zun, admin, guest, hosts)

    def _warm_hosts(self, zun, admin, guest, hosts):
        """Each host loads the image, but those that did in the task."""
        glance = admin["credential"].clients().glance("2") \
            if guest.get("shared") else None
        image = glance.images.get(guest["image"]) if glance else None
        done = guest_share.warm_hosts(image) if image else set()
        seconds = self.context["rcbench_zun_warmup"]["seconds"]
        for host in hosts:
            if (host or "any") in done:
                seconds[host or "any"] = 0.0
                continue
            seconds[host or "any"] = self._warm(zun, admin, guest, host)
        if image is not None:
            guest_share.add_warm_hosts(glance, image, [
                host or "any" for host in hosts])

    @staticmethod
    def _hosts(zun, credential):
        """[hostname, ...] to warm, or [None]: one container, any host."""
        names = sorted(h.hostname for h in zun.hosts.list())
        if len(names) <= 1:
            return [None]
        if zun_validators.negotiated_version(credential) \
                < HOST_MICROVERSION:
            LOG.warning("rcbench_zun_warmup: Zun's API predates requested "
                        "hosts (1.39): one warm-up container, on the host "
                        "Zun picks; the %d others load the image with the "
                        "workload's first containers" % (len(names) - 1))
            return [None]
        return names

    def _request(self, admin, guest, host):
        network = self.config.get("network")
        if network:
            network = cloud.network_ref(
                admin["credential"].clients().neutron(), network,
                "the admin (rcbench_zun_warmup)")[0]
        group = self.context.get("rcbench_zun", {}).get("admin_secgroup_id")
        return zun_driver.ContainerRequest(
            image=guest["image_name"],
            image_pull_policy=zun_driver.resolve_pull_policy(
                self.config["image_pull_policy"], admin),
            runtime=self.config.get("runtime"), network=network,
            security_groups=(group,) if group else (),
            cpu=self.config.get("cpu"), memory=self.config.get("memory"),
            availability_zone=self.config.get("availability_zone"),
            host=host)

    def _warm(self, zun, admin, guest, host):
        conf = opts.register()
        driver = zun_driver.ZunDriver(
            zun, self._request(admin, guest, host), private_key=None,
            conf=conf, admin_zun=zun,
            admin_neutron=admin["credential"].clients().neutron())
        where = host or "a Zun host"
        LOG.info("rcbench_zun_warmup: loading %s into %s"
                 % (guest["image_name"], where))
        started = time.monotonic()
        instance = driver.create(self.generate_random_name())
        try:
            driver.wait_running(instance, conf.boot_timeout)
        finally:
            try:
                driver.delete(instance)
                driver.wait_deleted(instance, conf.delete_timeout)
            except Exception as e:  # cleanup tries again
                LOG.warning("rcbench_zun_warmup: container %s not deleted: "
                            "%s" % (instance.name, e))
                self.context["rcbench_zun_warmup"]["leftovers"].append(
                    instance.id)
        seconds = round(time.monotonic() - started, 1)
        LOG.info("rcbench_zun_warmup: %s holds the image (%.1f s)"
                 % (where, seconds))
        return seconds

    def cleanup(self):
        leftovers = self.context.get("rcbench_zun_warmup", {}).get(
            "leftovers", [])
        if not leftovers:
            return
        zun = self.context["admin"]["credential"].clients().zun()
        for uuid in leftovers:
            try:
                zun.containers.delete(uuid, force=True, all_projects=True)
            except Exception as e:
                LOG.warning("rcbench_zun_warmup cleanup: container %s not "
                            "deleted: %s" % (uuid, e))
