"""Nova's room and a site's image, checked before anything boots.

rcbench_site_image: the image argument's Glance fields fit the
hypervisor_type and the flavor (engines/openstack/image_props).

rcbench_nova_capacity: N servers at once fit the compute hosts' room.

Nova claims VCPU and MEMORY_MB in Placement for every server it
schedules; a step of KEK's ladder that does not fit ends in "No valid
host" part-way. The hosts are the hypervisors of the scenario's
hypervisor_type (and availability_zone); the flavor is the one named, or
the one the workload's flavors context makes. With admin credentials
only (hypervisors and Placement are admin-only); otherwise, or for a
flavor of dedicated CPUs (claimed as PCPU), it checks nothing.
"""

import platform

from rally.common import logging
from rally.common import validation

from rally_container_bench.engines.openstack import image_props
from rally_container_bench.engines.openstack import placement
from rally_container_bench import opts
from rally_container_bench.task import placement_reader
from rally_container_bench.task.validators import _arg
from rally_container_bench.task.validators import _concurrency

LOG = logging.getLogger(__name__)
# The image property hypervisor_type -> the type Nova's hypervisors report.
NOVA_TYPES = {"qemu": "QEMU", "kvm": "QEMU", "lxc": "LXC"}


def flavor_size(config, nova, with_disk=False):
    """(vcpus, ram MiB, extra_specs) of the workload's flavor, or None.

    with_disk: (vcpus, ram MiB, extra_specs, disk GB).
    """
    flavor = _arg(config, "flavor") or {}
    name = flavor.get("name") if isinstance(flavor, dict) else None
    if not name:
        return None
    for made in ((config or {}).get("contexts") or {}).get("flavors") or ():
        if made.get("name") == name:
            size = (made.get("vcpus", 1), made["ram"],
                    made.get("extra_specs") or {}, made.get("disk", 0))
            return size if with_disk else size[:3]
    try:
        found = nova.flavors.find(name=name)
    except Exception:
        return None
    size = found.vcpus, found.ram, found.get_keys(), found.disk
    return size if with_disk else size[:3]


def hypervisor_hosts(nova, hypervisor_type, zone=None):
    """Names of the hypervisors (Placement's providers) of that type."""
    wanted = NOVA_TYPES.get(hypervisor_type, hypervisor_type or "").lower()
    in_zone = None
    if zone:
        in_zone = {host for z in nova.availability_zones.list()
                   if z.zoneName == zone for host in (z.hosts or {})}
    names = set()
    for hypervisor in nova.hypervisors.list():
        if wanted and hypervisor.hypervisor_type.lower() != wanted:
            continue
        if in_zone is not None and \
                hypervisor.service.get("host") not in in_zone:
            continue
        names.add(hypervisor.hypervisor_hostname)
    return names


@validation.add("required_platform", platform="openstack", users=True)
@validation.configure(name="rcbench_nova_capacity", platform="openstack")
class NovaCapacityValidator(validation.Validator):
    """The step's servers fit the free VCPU / MEMORY_MB in Placement."""

    def validate(self, context, config, plugin_cls, plugin_cfg):
        admin = context.get("admin")
        if not admin:
            return
        credential = admin["credential"]
        nova = credential.clients().nova()
        hypervisor_type = _arg(config, "hypervisor_type")
        try:
            size = flavor_size(config, nova)
            if size is None or \
                    size[2].get("hw:cpu_policy") == "dedicated":
                return
            hosts = hypervisor_hosts(nova, hypervisor_type,
                                     _arg(config, "availability_zone"))
            providers = placement_reader.providers(credential, hosts)
        except Exception as e:
            LOG.warning("rcbench_nova_capacity: hypervisors or Placement "
                        "not readable, capacity not checked: %s" % e)
            return
        concurrency = _concurrency(config)
        vcpus, ram, _specs = size
        short = placement.shortfall(providers, vcpus, ram, concurrency)
        if short is None:
            return
        self.fail(
            "%d servers at once (VCPU %d, MEMORY_MB %d each) do not fit the "
            "%s compute hosts: room for %d (free: %s). Lower the "
            "concurrency (max_concurrency) or the flavor (flavor_ram, "
            "flavor_vcpus), raise the hosts' cpu_allocation_ratio / "
            "ram_allocation_ratio, or delete allocations of servers that "
            "no longer exist (nova-manage placement audit --delete)"
            % ((concurrency, vcpus, ram, hypervisor_type or "Nova")
               + short))


@validation.add("required_platform", platform="openstack", users=True)
@validation.configure(name="rcbench_site_image", platform="openstack")
class SiteImageValidator(validation.Validator):
    """A site's image (the image argument) can boot where it is sent.

    Its Glance fields against the hypervisor_type and the flavor: what
    Nova would refuse only after scheduling (image_props), said before
    anything boots. An image Glance does not list is image_exists's.
    """

    def __init__(self, param_name="image"):
        super().__init__()
        self.param_name = param_name

    def validate(self, context, config, plugin_cls, plugin_cfg):
        spec = _arg(config, self.param_name)
        if not spec:
            return  # rcbench_guest's upload: made to fit
        clients = context["users"][0]["credential"].clients()
        try:
            image = _glance_image(context, clients, spec)
        except Exception as e:
            LOG.warning("rcbench_site_image: image %s not read, not "
                        "checked: %s" % (spec, e))
            return
        hypervisor_type = _arg(config, "hypervisor_type") or "qemu"
        mode = opts.register().sysbench_build
        found = image_props.problems(
            image, hypervisor_type,
            None if mode == "image" else platform.machine())
        size = flavor_size(config, clients.nova(), with_disk=True)
        if size is not None:
            found += image_props.flavor_problems(image, size[1], size[3])
        if found:
            self.fail("image %s (%s) cannot boot as asked: %s"
                      % (image.get("name"), image.get("id"),
                         "; ".join(found)))


def _glance_image(context, clients, spec):
    """Glance's record of the image spec ({name: ...}, {id: ...}, a name)."""
    from rally_openstack.task import types as openstack_types
    processor = openstack_types.GlanceImage(
        context={"admin": {"credential": clients.credential}})
    image_id = processor.pre_process(spec, config={})
    return dict(clients.glance("2").images.get(image_id))
