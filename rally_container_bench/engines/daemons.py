"""Start and stop the engine daemons this machine does not start itself.

On an ordinary host systemd runs dockerd and libvirtd; on hosts without an
init system (containers, CI sandboxes) ``rcbench engines start`` does:
each as a core.daemon.Daemon, which keeps its pid file host-wide and
stops only what it started. Each engine package says what its daemons
are (its ``daemon`` module); this is their table.
"""

from rally_container_bench.engines.containerd import daemon as containerd
from rally_container_bench.engines.docker import daemon as docker
from rally_container_bench.engines.libvirt import daemon as libvirt
from rally_container_bench.engines.podman import instance as podman


def daemons(conf):
    """The daemons local drivers need, by engine name, in start order."""
    found = {"docker": docker.daemons(conf), "kvm": libvirt.daemons(conf),
             "containerd": containerd.daemons(conf)}
    holder = podman.namespace_holder(conf)
    if holder is not None:
        found["podman"] = [holder]
    return found


def resolve(names, known, drivers):
    """[(name, its daemons' key in known, or None)] for each name.

    A name is a key of known (an engine with daemons), or a driver: one
    named after an engine with daemons runs on them (podman-crun: podman,
    cri-containerd: containerd), the others need none (lxc, runc). Any
    other name fails here, before anything is started or stopped.
    """
    resolved, unknown = [], []
    for name in names:
        engine = name if name in known else next(
            (part for part in name.split("-") if part in known), None)
        if engine is None and name not in drivers:
            unknown.append(name)
        resolved.append((name, engine))
    if unknown:
        raise ValueError("no engine or driver named %s; engines with "
                         "daemons: %s" % (", ".join(map(repr, unknown)),
                                          ", ".join(sorted(known))))
    return resolved
