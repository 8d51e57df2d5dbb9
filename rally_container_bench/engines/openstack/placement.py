"""How many instances of a size fit resource providers, as Placement sees it.

Pure: the providers are what Placement's API returned (see
task/placement_reader.py). Nova and Zun both claim VCPU and MEMORY_MB
there before they schedule; an instance that does not fit fails (Nova:
"No valid host", Zun: HTTP 500 from Placement's 409).
"""


def room(inventory, used):
    """Left of one resource class: (total - reserved) x ratio - used."""
    capacity = int((inventory["total"] - inventory.get("reserved", 0))
                   * inventory.get("allocation_ratio", 1.0))
    return capacity - used


def instances_that_fit(providers, vcpu, memory_mb):
    """How many instances claiming vcpu and memory_mb the providers hold.

    providers: {name: {"inventories": {rc: {total, reserved,
    allocation_ratio, max_unit}}, "usages": {rc: used}}}.
    Returns (count, {name: {rc: free}}).
    """
    need = {"VCPU": vcpu, "MEMORY_MB": memory_mb}
    count, free = 0, {}
    for name, provider in sorted(providers.items()):
        left = {}
        for rc, amount in need.items():
            inventory = provider["inventories"].get(rc)
            if not inventory or amount > inventory.get("max_unit",
                                                       inventory["total"]):
                left[rc] = 0
            else:
                left[rc] = room(inventory, provider["usages"].get(rc, 0))
        free[name] = left
        count += min(max(0, left[rc]) // amount for rc, amount in need.items())
    return count, free


def describe_free(free):
    """"host: MEMORY_MB 26173, VCPU 23; ..." for an error message."""
    return "; ".join("%s: %s" % (name, ", ".join(
        "%s %d" % item for item in sorted(left.items())))
        for name, left in sorted(free.items()))


def shortfall(providers, vcpu, memory_mb, wanted):
    """(how many fit, the free room described) when `wanted` do not fit.

    None when they do, or when no provider is known.
    """
    if not providers:
        return None
    fit, free = instances_that_fit(providers, vcpu, memory_mb)
    return None if fit >= wanted else (fit, describe_free(free))
