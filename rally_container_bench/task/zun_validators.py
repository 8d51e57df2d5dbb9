"""Validators of the ZunContainers scenarios: fail before any container.

rcbench_zun_ready   the catalog has Zun ("container") and its API speaks a
                    microversion the driver needs (>= 1.20)
rcbench_zun_runtime a runtime is asked for only with admin credentials
                    (Zun's default policy: container:create:runtime is
                    admin_api), a Zun that knows runtimes (>= 1.5) and a
                    compute host that offers it
rcbench_zun_image   the image argument, or rcbench_guest's docker form
rcbench_zun_capacity the step's containers fit the Zun hosts' free VCPU
                    and MEMORY_MB in Placement (with admin credentials)
rcbench_zun_pull_policy a pull policy only with admin credentials;
                    ifnotpresent at N at once only with the warm-up;
                    "always" (Zun's default) one at a time only, and only
                    where the image load fits half the boot timeout
"""

import os

from rally.common import logging
from rally.common import validation

from rally_container_bench.core import base
from rally_container_bench.engines.openstack import placement
from rally_container_bench.engines.openstack import zun as zun_driver
from rally_container_bench.engines import registry
from rally_container_bench import opts
from rally_container_bench.task import placement_reader
from rally_container_bench.task.validators import _arg
from rally_container_bench.task.validators import _concurrency

LOG = logging.getLogger(__name__)


def _guest_config(config):
    contexts = (config or {}).get("contexts", {})
    return next((value or {} for key, value in contexts.items()
                 if key.split("@")[0] == "rcbench_guest"), None)


def negotiated_version(credential):
    """The microversion the client and Zun agreed on, as (major, minor)."""
    client = credential.clients().zun()
    return zun_driver.microversion(client.api_version.get_string())


# Their own platform validators make them semantic ones: they run with the
# task's users (and the admin, where the env has one).
@validation.add("required_platform", platform="openstack", users=True)
@validation.configure(name="rcbench_zun_ready", platform="openstack")
class ZunReadyValidator(validation.Validator):
    """Zun is in the catalog and new enough for the driver."""

    def validate(self, context, config, plugin_cls, plugin_cfg):
        credential = context["users"][0]["credential"]
        try:
            version = negotiated_version(credential)
        except Exception as e:
            self.fail("Zun (service type 'container') is not usable with "
                      "the task's users: %s: %s" % (type(e).__name__, e))
        if version < zun_driver.MIN_MICROVERSION:
            self.fail("Zun's API speaks microversion %d.%d at most; the "
                      "ZunContainers scenarios need %d.%d (a command as a "
                      "list)" % (version + zun_driver.MIN_MICROVERSION))


@validation.add("required_platform", platform="openstack", users=True)
@validation.configure(name="rcbench_zun_runtime", platform="openstack")
class ZunRuntimeValidator(validation.Validator):
    """A runtime needs admin credentials under Zun's default policy."""

    def __init__(self, param_name="runtime"):
        super().__init__()
        self.param_name = param_name

    def validate(self, context, config, plugin_cls, plugin_cfg):
        runtime = _arg(config, self.param_name)
        if runtime is None:
            return
        if not isinstance(runtime, str) or not runtime:
            self.fail("%s must be a runtime name such as runc or "
                      "kata-runtime, not %r" % (self.param_name, runtime))
        admin = context.get("admin")
        if not admin:
            self.fail("%s=%r: choosing a runtime is admin-only under Zun's "
                      "default policy (container:create:runtime is "
                      "admin_api); give the environment admin credentials, "
                      "or leave %s out to use the compute host's default "
                      "([DEFAULT] container_runtime)"
                      % (self.param_name, runtime, self.param_name))
        version = negotiated_version(admin["credential"])
        if version < zun_driver.RUNTIME_MICROVERSION:
            self.fail("%s: Zun's API (microversion %d.%d) predates "
                      "runtimes (1.5)" % ((self.param_name,) + version))
        offered = host_runtimes(admin["credential"].clients().zun())
        if offered and runtime not in offered:
            self.fail("%s=%r: no Zun compute host offers it (they offer: "
                      "%s)" % (self.param_name, runtime,
                               ", ".join(sorted(offered))))


def host_runtimes(zun):
    """Runtimes Zun's compute hosts offer (empty: the API does not say)."""
    offered = set()
    for host in zun.hosts.list():
        detail = zun.hosts.get(host.uuid)
        offered.update(getattr(detail, "runtimes", None) or ())
    return offered


@validation.configure(name="rcbench_zun_image")
class ZunImageValidator(validation.Validator):
    """An image to run: the argument, or rcbench_guest's docker upload."""

    def __init__(self, param_name="image"):
        super().__init__()
        self.param_name = param_name

    def validate(self, context, config, plugin_cls, plugin_cfg):
        guest = _guest_config(config)
        if guest is None:
            self.fail("the rcbench_guest context is required: its key pair "
                      "is how the scenario logs in")
        if _arg(config, self.param_name) is not None:
            return
        if _arg(config, "image_driver", "glance") == "docker":
            self.fail("%s is required with image_driver docker: the name "
                      "of an image the compute hosts' Docker has or pulls "
                      "(rcbench_guest uploads to Glance)" % self.param_name)
        if not guest.get("upload", True):
            self.fail("%s is required when rcbench_guest has upload: false"
                      % self.param_name)
        if guest.get("hypervisor_type") != "docker":
            self.fail("rcbench_guest must upload the docker form for Zun "
                      "(hypervisor_type: docker), not %r"
                      % guest.get("hypervisor_type", "qemu"))
        try:
            registry.guest_image(opts.register())
        except base.DriverError as e:
            self.fail("rcbench_guest uploads %s" % e)


@validation.add("required_platform", platform="openstack", users=True)
@validation.configure(name="rcbench_zun_capacity", platform="openstack")
class ZunCapacityValidator(validation.Validator):
    """N containers at once fit the Zun hosts' free capacity in Placement.

    Zun claims VCPU and MEMORY_MB in Placement before it schedules; a
    container that does not fit fails its create with HTTP 500 (Placement's
    409). Seen: 9 of 32 at once failed on a 2-core host (VCPU 2 x
    allocation ratio 16 = 32) where 9 allocations of long-gone containers
    were left. Needs the admin's eyes; without them it checks nothing.
    """

    def validate(self, context, config, plugin_cls, plugin_cfg):
        admin = context.get("admin")
        if not admin:
            return
        concurrency = _concurrency(config)
        cpu, memory = _arg(config, "cpu"), _arg(config, "memory")
        credential = admin["credential"]
        try:
            hosts = {h.hostname for h in
                     credential.clients().zun().hosts.list()}
            providers = placement_reader.providers(credential, hosts)
        except Exception as e:
            LOG.warning("rcbench_zun_capacity: Placement not readable, "
                        "capacity not checked: %s" % e)
            return
        vcpu, mem = zun_driver.placement_claim(cpu, memory)
        short = placement.shortfall(providers, vcpu, mem, concurrency)
        if short is None:
            return
        self.fail(
            "%d Zun containers at once (each claims VCPU %d, MEMORY_MB %d "
            "in Placement) do not fit the Zun hosts: room for %d (free: "
            "%s). Lower the concurrency or the containers' cpu / memory "
            "(zun_cpu, zun_memory), raise Zun's cpu_allocation_ratio / "
            "ram_allocation_ratio, or delete allocations of containers "
            "that no longer exist (openstack resource provider usage "
            "show; openstack resource provider allocation delete)"
            % ((concurrency, vcpu, mem) + short))


def _context_names(config):
    return {key.split("@")[0]
            for key in ((config or {}).get("contexts") or {})}


@validation.add("required_platform", platform="openstack", users=True)
@validation.configure(name="rcbench_zun_pull_policy", platform="openstack")
class ZunPullPolicyValidator(validation.Validator):
    """The pull policy is allowed, and its image loads can finish.

    Zun's default policy lets only an admin choose one. With Zun's own,
    "always", every container downloads its Glance image to the one
    archive file the host keeps per image and loads that into Docker:
    two at once cut each other's load short (the shared-archive race), so
    a step of more than one is refused, and one alone is refused when its
    load would take more than half of boot_timeout (estimated from the
    image's size and [container_bench] zun_image_load_mb_per_s). With
    "ifnotpresent" at more than one at once, the rcbench_zun_warmup
    context must load the image first (the first-load race).
    """

    def validate(self, context, config, plugin_cls, plugin_cfg):
        policy = _arg(config, "image_pull_policy")
        admin = context.get("admin")
        if policy not in (None, "auto") and not admin:
            self.fail(
                "image_pull_policy=%s is admin-only under Zun's default "
                "policy (container:create:image_pull_policy): give the "
                "environment admin credentials, or use auto "
                "(ifnotpresent where the admin is known, else Zun's own, "
                "always)" % policy)
        effective = zun_driver.resolve_pull_policy(policy, admin)
        if _arg(config, "image_driver", "glance") != "glance":
            return
        concurrency = _concurrency(config)
        if effective == "ifnotpresent" and concurrency > 1 and \
                "rcbench_zun_warmup" not in _context_names(config):
            self.fail(
                "image_pull_policy=%s with %d containers at once needs the "
                "rcbench_zun_warmup context (tasks/kvm_vs_docker.yaml adds "
                "it): while a host's first container loads the image, the "
                "others find the archive on disk, skip the load and fail "
                "with \"No such image\" (7 of 8 at 8 at once, Zun 18)"
                % (policy, concurrency))
        if effective not in (None, "always"):
            return
        if concurrency > 1:
            self.fail(
                "%d Zun containers at once with %s: Zun's Glance image "
                "driver downloads the image for each container into one "
                "file per image on the compute host (images_directory/"
                "<image id>.tar, truncated by each new download), so a "
                "container that starts while another one loads that file "
                "into Docker cuts the load short, and Docker waits for the "
                "rest until Zun's Docker client gives up (600 s on the test "
                "cloud, then the container is in Error; Zun 18). %s, or "
                "one container at a time"
                % (concurrency, _policy_said(policy), _LOAD_ONCE))
        self._check_loads_fit(context, config, policy)

    def _check_loads_fit(self, context, config, policy):
        size = image_megabytes(context, _arg(config, "image"))
        if size is None:
            return
        conf = opts.register()
        seconds = size / conf.zun_image_load_mb_per_s
        if seconds <= conf.boot_timeout / 2:
            return
        self.fail(
            "a Zun container with %s downloads the %.0f MB image from "
            "Glance and loads it into Docker: about %.0f s at the %.0f "
            "MB/s of [container_bench] zun_image_load_mb_per_s (the 2-core "
            "test cloud: 32 of a 300 MB image took 620-656 s), more than "
            "half of boot_timeout (%.0f s). %s, or a longer "
            "[container_bench] boot_timeout"
            % (_policy_said(policy), size, seconds,
               conf.zun_image_load_mb_per_s, conf.boot_timeout,
               _LOAD_ONCE))


# How Zun's "always" is avoided, in every message that refuses it.
_LOAD_ONCE = ("Use image_pull_policy auto or ifnotpresent with admin "
              "credentials (task arg zun_image_pull_policy: auto, the "
              "default; each host then loads the image once, before the "
              "timer)")


def _policy_said(policy):
    """How a message names the policy that resolved to Zun's "always"."""
    if policy == "always":
        return "image_pull_policy=always"
    return ("Zun's default pull policy, always (image_pull_policy %s%s)"
            % (policy or "not set", ": no admin credentials" if policy
               else ""))


def image_megabytes(context, image):
    """The size of what each container loads, MB; None: not known.

    The guest image rcbench_guest uploads (its root file system), or the
    named Glance image's size as Glance records it.
    """
    if image is None:
        try:
            tarball = registry.guest_image(opts.register()).tarball
            return os.path.getsize(tarball) / 1e6
        except (base.DriverError, OSError):
            return None
    try:
        glance = context["users"][0]["credential"].clients().glance("2")
        found = [i for i in glance.images.list(filters={"name": image})]
    except Exception as e:
        LOG.warning("rcbench_zun_pull_policy: Glance image %s not read, "
                    "its loads not estimated: %s" % (image, e))
        return None
    sizes = [getattr(i, "size", None) or 0 for i in found]
    return max(sizes) / 1e6 if sizes and max(sizes) else None
