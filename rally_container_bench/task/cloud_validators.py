"""Validators of the OpenStack scenarios' arguments against the cloud.

The image (or the rcbench_guest upload), the project's Nova quotas for a
step's servers, the networks and volume types named: checked at ``rally
task validate``, before any server boots.
"""

from rally.common import validation

from rally_container_bench.core import base
from rally_container_bench.engines.openstack import cinder
from rally_container_bench.engines import registry
from rally_container_bench import opts
from rally_container_bench.task.validators import _arg
from rally_container_bench.task.validators import _concurrency


@validation.configure(name="rcbench_nova_image_or_upload")
class NovaImageValidator(validation.Validator):
    """A server needs an image: the argument, or the rcbench_guest upload.

    The rcbench_guest context must be there either way (its key pair is
    the login), and its upload needs the guest image built here.
    """

    def __init__(self, param_name="image"):
        super().__init__()
        self.param_name = param_name

    def validate(self, context, config, plugin_cls, plugin_cfg):
        contexts = (config or {}).get("contexts", {})
        guest = next((value for key, value in contexts.items()
                      if key.split("@")[0] == "rcbench_guest"), None)
        if guest is None:
            self.fail("the rcbench_guest context is required: its key pair "
                      "is how the scenario logs in")
        uploads = (guest or {}).get("upload", True)
        if _arg(config, self.param_name) is None and not uploads:
            self.fail("%s is required when rcbench_guest has upload: false"
                      % self.param_name)
        if uploads:
            try:
                registry.guest_image(opts.register())
            except base.DriverError as e:
                self.fail("rcbench_guest uploads %s" % e)


def _raised_quotas(config, service):
    """The quotas context's settings of a service in the workload, or {}."""
    for name, value in ((config or {}).get("contexts") or {}).items():
        if name.split("@")[0] == "quotas" and isinstance(value, dict):
            return value.get(service) or {}
    return {}


def quota_shortfalls(limits, needs):
    """[(quota, limit, in use, needed)] where limits cannot hold needs.

    limits: Nova's absolute limits ({maxTotalInstances: 10,
    totalInstancesUsed: 0, ...}); needs: {"instances": 16, "cores": 16}.
    A limit of -1 is none.
    """
    names = {"instances": ("maxTotalInstances", "totalInstancesUsed"),
             "cores": ("maxTotalCores", "totalCoresUsed"),
             "ram": ("maxTotalRAMSize", "totalRAMUsed")}
    short = []
    for quota, needed in sorted(needs.items()):
        limit_key, used_key = names[quota]
        limit = limits.get(limit_key)
        used = limits.get(used_key) or 0
        if limit is not None and limit >= 0 and limit - used < needed:
            short.append((quota, limit, used, needed))
    return short


@validation.add("required_platform", platform="openstack", users=True)
@validation.configure(name="rcbench_nova_quota", platform="openstack")
class NovaQuotaValidator(validation.Validator):
    """N servers at once fit the project's Nova quotas.

    KEK's ladder reaches 32 at once; Nova's default quotas (10 instances,
    20 cores) stop it at 16 with "Quota exceeded" in half the iterations.
    Where the workload's quotas context lifts a quota, Rally sets it
    (as admin) before the first server; otherwise the quota of the task's
    project must already hold the step.
    """

    def validate(self, context, config, plugin_cls, plugin_cfg):
        concurrency = _concurrency(config)
        raised = _raised_quotas(config, "nova")
        needs = {"instances": concurrency}
        flavor = _arg(config, "flavor") or {}
        clients = context["users"][0]["credential"].clients()
        try:
            name = flavor.get("name") if isinstance(flavor, dict) else None
            if name:
                found = clients.nova().flavors.find(name=name)
                needs.update(cores=concurrency * found.vcpus,
                             ram=concurrency * found.ram)
        except Exception:
            pass  # made by the flavors context later: instances only
        needs = {quota: n for quota, n in needs.items()
                 if raised.get(quota) != -1
                 and not (raised.get(quota) or 0) >= n}
        if not needs:
            return
        limits = {item.name: item.value
                  for item in clients.nova().limits.get().absolute}
        short = quota_shortfalls(limits, needs)
        if short:
            self.fail(
                "%d servers at once do not fit the project's Nova quotas: "
                "%s. Give the workload Rally's quotas context (quotas: "
                "{nova: {instances: -1, cores: -1, ram: -1}}, needs admin) "
                "or have an admin raise them (openstack quota set "
                "--instances N --cores N --ram MiB PROJECT)" % (
                    concurrency, "; ".join(
                        "%s %d with %d in use, %d needed" % item
                        for item in short)))


class _GivenArgValidator(validation.Validator):
    """One argument, if given, checked with the task's users' clients.

    The required_platform validator each subclass adds makes it a
    semantic one: it runs with the task's users (at syntax validation it
    would get no context).
    """

    def __init__(self, param_name):
        super().__init__()
        self.param_name = param_name

    def validate(self, context, config, plugin_cls, plugin_cfg):
        value = _arg(config, self.param_name)
        if value:
            self.check(context["users"][0]["credential"].clients(), value)

    def check(self, clients, value):
        """Call self.fail() when value is not the cloud's."""
        raise NotImplementedError


@validation.add("required_platform", platform="openstack", users=True)
@validation.configure(name="rcbench_network_exists", platform="openstack")
class NetworkExistsValidator(_GivenArgValidator):
    """The network argument (a name or id), if given, is visible.

    Visible to the task's users: a typo fails here, not in every iteration.
    """

    def check(self, clients, value):
        neutron = clients.neutron()
        for key in ("id", "name"):
            if neutron.list_networks(**{key: value})["networks"]:
                return
        self.fail("%s: no network %r is visible to the task's users"
                  % (self.param_name, value))


@validation.add("required_platform", platform="openstack", users=True)
@validation.configure(name="rcbench_volume_type_exists",
                      platform="openstack")
class VolumeTypeExistsValidator(_GivenArgValidator):
    """The volume type argument (a name or id), if given, is Cinder's."""

    def check(self, clients, value):
        try:
            cinder.CinderVolumes(clients.cinder(), None, None).check_type(
                value)
        except base.DriverError as e:
            self.fail("%s: %s" % (self.param_name, e))
