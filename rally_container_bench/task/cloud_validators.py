"""Validators of the OpenStack scenarios' arguments against the cloud.

The image (or the rcbench_guest upload), the project's Nova quotas for a
step's servers, the networks and volume types named, the compute hosts
the native twins run on: checked at ``rally task validate``, before any
server boots.
"""

from concurrent import futures

from rally.common import validation

from rally_container_bench.core import base
from rally_container_bench.engines.openstack import cinder
from rally_container_bench.engines.openstack import nova as nova_driver
from rally_container_bench.engines.openstack import zun as zun_driver
from rally_container_bench.engines import registry
from rally_container_bench import opts
from rally_container_bench.task.validators import _arg
from rally_container_bench.task.validators import _concurrency
from rally_container_bench.validity import compute_hosts as host_access


def _guest_context(config):
    """The workload's rcbench_guest config, or None without it."""
    return next((value for key, value in
                 ((config or {}).get("contexts") or {}).items()
                 if key.split("@")[0] == "rcbench_guest"), None)


@validation.configure(name="rcbench_nova_image_or_upload")
class NovaImageValidator(validation.Validator):
    """A server needs an image: the argument, or the rcbench_guest upload.

    The rcbench_guest context must be there either way (its key pair is
    the login), and its upload, or its key: image, needs the guest image
    built here; a generated key only an image of the site's.
    """

    def __init__(self, param_name="image"):
        super().__init__()
        self.param_name = param_name

    def validate(self, context, config, plugin_cls, plugin_cfg):
        guest = _guest_context(config)
        if guest is None:
            self.fail("the rcbench_guest context is required: its key pair "
                      "is how the scenario logs in")
        uploads = (guest or {}).get("upload", True)
        if _arg(config, self.param_name) is None and not uploads:
            self.fail("%s is required when rcbench_guest has upload: false"
                      % self.param_name)
        key = (guest or {}).get("key", "auto")
        if uploads and key == "generated":
            self.fail("rcbench_guest: key: generated needs upload: false "
                      "(the uploaded guest image authorizes only its own "
                      "key)")
        if uploads or key == "image":
            try:
                registry.guest_image(opts.register())
            except base.DriverError as e:
                self.fail("rcbench_guest %s %s" % (
                    "uploads" if uploads else "logs in with the key of",
                    e))


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


def compute_host_names(admin_clients, service, hypervisor_type=None):
    """The compute hosts an instance of the workload may land on."""
    if service == "zun":
        return zun_driver.compute_hosts(admin_clients.zun())
    return nova_driver.compute_hosts(admin_clients.nova(), hypervisor_type)


@validation.add("required_platform", platform="openstack", users=True)
@validation.configure(name="rcbench_compute_hosts", platform="openstack")
class ComputeHostsValidator(validation.Validator):
    """compute_hosts, if given: every host the instances may land on works.

    Each takes a login and runs the guest image's sysbench. The native
    twin of each test runs there (and the host's load is read there); a
    host that fails is named with its address and the reason,
    before anything boots. Finding the hosts needs admin credentials.
    """

    def __init__(self, param_name="compute_hosts", service="nova"):
        super().__init__()
        self.param_name = param_name
        self.service = service

    def validate(self, context, config, plugin_cls, plugin_cfg):
        spec = _arg(config, self.param_name)
        if spec is None:
            return
        try:
            host_access.parse(spec)
        except host_access.ComputeHostError as e:
            self.fail(str(e))
        admin = context.get("admin")
        if not admin:
            self.fail("%s: the instances' compute hosts are known to admin "
                      "credentials only; give the environment an admin, or "
                      "leave %s out (the tests then run unpaired)"
                      % (self.param_name, self.param_name))
        service = _arg(config, "service") or self.service
        names = compute_host_names(admin["credential"].clients(),
                                   service, _arg(config, "hypervisor_type"))
        if not names:
            self.fail("%s: no %s compute host found to check"
                      % (self.param_name, service))
        wanted = self._guest_version(config)

        def problem(name):
            try:
                host_access.check(host_access.access(spec, name), wanted)
            except host_access.ComputeHostError as e:
                return str(e)
        # at once: each host that does not answer waits out its login
        with futures.ThreadPoolExecutor(max_workers=8) as pool:
            problems = [p for p in pool.map(problem, names) if p]
        if problems:
            self.fail("; ".join(problems))

    def _guest_version(self, config):
        """The version the twins must run: the guest image's, or None.

        Only where each side runs its own sysbench ([container_bench]
        sysbench_build = image) in this project's image: else a side
        whose build differs gets the one pushed to both.
        """
        conf = opts.register()
        guest = _guest_context(config) or {}
        if conf.sysbench_build != "image" or not guest.get("upload", True):
            return None
        try:
            return registry.guest_image(conf).describe().get("sysbench")
        except base.DriverError as e:
            self.fail("%s: the guest image's sysbench: %s"
                      % (self.param_name, e))


@validation.add("required_platform", platform="openstack", users=True)
@validation.configure(name="rcbench_spread", platform="openstack")
class SpreadValidator(validation.Validator):
    """spread: the compute hosts are listed with admin credentials.

    Nova's default policy also lets only an admin force a host
    (os_compute_api:servers:create:forced_host): a cloud whose users may
    not gets each boot refused with Nova's 403, which the iteration says.
    """

    def __init__(self, param_name="spread"):
        super().__init__()
        self.param_name = param_name

    def validate(self, context, config, plugin_cls, plugin_cfg):
        if _arg(config, self.param_name) and not context.get("admin"):
            self.fail("%s: the compute hosts to spread over are known to "
                      "admin credentials only; give the environment an "
                      "admin, or leave %s out (Nova's scheduler then "
                      "places the servers)" % (self.param_name,
                                               self.param_name))
