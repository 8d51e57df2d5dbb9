"""Facts of a Nova server for the report: its host, hypervisor, tuning.

Read with admin credentials where the env has them (the host and the
hypervisor are admin-only fields); no Rally import here.
"""

import re


# What a libvirt-LXC server's disk figures read: Nova attaches its disk
# with losetup --find --show (no direct I/O), so the server's O_DIRECT
# stops at the loop device (rndrd 343 MiB/s there against 195 on the
# host's own disk, 2026-12-06).
LXC_DISK_IO = (
    "through the compute host's kernel: libvirt-LXC mounts the server's "
    "disk there on a loop device without direct I/O, so O_DIRECT in the "
    "server reaches the host's page cache, not its disk; the kernel's "
    "threads that serve it count as the task's own CPU")

# rcbench's own extra specs (the task that made the flavor): bookkeeping,
# no tuning; Nova's scheduler filters ignore a namespace they do not know.
OWN_SPECS = "rcbench:"


def flavor_tuning(extra_specs):
    """Facts of a flavor's extra specs: the report's tuning label.

    {"hw:cpu_policy": "dedicated", "hw:mem_page_size": "large"} ->
    tuning "cpu_policy-dedicated+mem_page_size-large" (the "hw:" namespace
    left out, others kept but rcbench's own), so servers of a tuned flavor
    stand apart from the untuned ones in the comparison report.
    """
    extra_specs = {key: value for key, value in (extra_specs or {}).items()
                   if not key.startswith(OWN_SPECS)}
    if not extra_specs:
        return {"tuning": "none"}
    parts = []
    for key, value in sorted(extra_specs.items()):
        key = key[3:] if key.startswith("hw:") else key
        parts.append(re.sub(r"[^A-Za-z0-9_.-]+", "-",
                            "%s-%s" % (key, value)))
    return {"tuning": "+".join(parts),
            "flavor_extra_specs": ", ".join(
                "%s=%s" % item for item in sorted(extra_specs.items()))}


def hypervisor_facts(nova, server):
    """What ran the server, for result metadata (admin-only fields).

    The comparison report groups by driver, runtime and acceleration:
    runtime is Nova's hypervisor type (QEMU, LXC, docker, ironic).
    """
    host = getattr(server, "OS-EXT-SRV-ATTR:host", None)
    node = getattr(server, "OS-EXT-SRV-ATTR:hypervisor_hostname", None)
    facts = {"compute_host": host, "hypervisor_hostname": node}
    if node:
        # search() then get(): "detailed" search needs microversion 2.53.
        for match in nova.hypervisors.search(node):
            if match.hypervisor_hostname == node:
                hypervisor = nova.hypervisors.get(match.id)
                facts["runtime"] = hypervisor.hypervisor_type.lower()
                facts["hypervisor_version"] = getattr(
                    hypervisor, "hypervisor_version", None)
    return facts


def fault_hint(message):
    """What an operator looks at next for a fault Nova gives few words."""
    if "Exhausted all hosts available for retrying build failures" in \
            message:
        return (" (every compute host that could take it failed the "
                "build; their nova-compute logs say why: a "
                "ResourceProviderUpdateConflict there means a host "
                "rewrote its Placement inventory while servers were "
                "claimed at once, e.g. its memory size changed)")
    return ""
