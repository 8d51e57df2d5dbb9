"""rcbench_nova_capacity: N servers at once fit the compute hosts' room.

Nova claims VCPU and MEMORY_MB in Placement for every server it
schedules; a step of KEK's ladder that does not fit ends in "No valid
host" part-way. The hosts are the hypervisors of the scenario's
hypervisor_type (and availability_zone); the flavor is the one named, or
the one the workload's flavors context makes. With admin credentials
only (hypervisors and Placement are admin-only); otherwise, or for a
flavor of dedicated CPUs (claimed as PCPU), it checks nothing.
"""

from rally.common import logging
from rally.common import validation

from rally_container_bench.engines.openstack import placement
from rally_container_bench.task import placement_reader
from rally_container_bench.task.validators import _arg
from rally_container_bench.task.validators import _concurrency

LOG = logging.getLogger(__name__)
# The image property hypervisor_type -> the type Nova's hypervisors report.
NOVA_TYPES = {"qemu": "QEMU", "kvm": "QEMU", "lxc": "LXC"}


def flavor_size(config, nova):
    """(vcpus, ram MiB, extra_specs) of the workload's flavor, or None."""
    flavor = _arg(config, "flavor") or {}
    name = flavor.get("name") if isinstance(flavor, dict) else None
    if not name:
        return None
    for made in ((config or {}).get("contexts") or {}).get("flavors") or ():
        if made.get("name") == name:
            return (made.get("vcpus", 1), made["ram"],
                    made.get("extra_specs") or {})
    try:
        found = nova.flavors.find(name=name)
    except Exception:
        return None
    return found.vcpus, found.ram, found.get_keys()


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
