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
