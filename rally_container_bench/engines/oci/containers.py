"""What Docker and Podman containers share: sshd, state, endpoints, tuning.

Both engines read the same inspect document and publish the guest's sshd
the same way; the engine packages (engines.docker, engines.podman) use
these.
"""

from rally_container_bench.core import base
from rally_container_bench.core import ports
from rally_container_bench.core import processes
from rally_container_bench.core import timestamps
from rally_container_bench.core import tuning as tuning_lib
from rally_container_bench.images import guest

SSHD = list(guest.SSHD)


def running(instance, attrs):
    """Read a Docker/Podman inspect document; True once running.

    Records the engine's timestamps and the published SSH port then;
    raises DriverError when the container exited instead.
    """
    state = attrs["State"]
    if not state.get("Running"):
        if state.get("Status") in ("exited", "stopped", "dead"):
            raise base.DriverError("container %s %s: %s"
                                   % (instance.name, state["Status"],
                                      state.get("Error") or ""))
        return False
    _watch(instance, state)
    instance.engine_times = {
        "created": timestamps.epoch(attrs["Created"]),
        "started": timestamps.epoch(state.get("StartedAt")),
    }
    if instance.private.get("host_network"):
        return True  # sshd listens on the port chosen at create
    bindings = (attrs["NetworkSettings"]["Ports"] or {}).get("22/tcp")
    if not bindings:
        raise base.DriverError("container %s has no published SSH port"
                               % instance.name)
    instance.ssh_host = bindings[0]["HostIp"] or "127.0.0.1"
    instance.ssh_port = int(bindings[0]["HostPort"])
    return True


def _watch(instance, state):
    """Record the container's main process and the engine's monitor of it.

    Read once, from the inspect that found it running: the monitor is the
    main process's parent (Docker's containerd-shim, Podman's conmon),
    recorded with start times, so what lost() checks later costs no
    engine call, only /proc.
    """
    if "watched" in instance.private or not state.get("Pid"):
        return
    main = processes.Recorded.of(state["Pid"])
    watched = []
    if main is not None:
        watched.append((main, "its main process (pid %d) is gone, though "
                              "the engine had it running"))
        monitor = processes.Recorded.of(processes.parent(main.pid) or 0)
        if monitor is not None and monitor.pid != 1:
            name = processes.command_name(monitor.pid)
            watched.insert(0, (monitor, name + " (pid %d), the engine's "
                               "monitor of the container, is gone: the "
                               "engine can no longer follow it"))
    instance.private["watched"] = watched


def bridge_address(attrs, name):
    """The container's IP address on its (first) bridge network."""
    networks = (attrs.get("NetworkSettings") or {}).get("Networks") or {}
    for network in networks.values():
        if network.get("IPAddress"):
            return network["IPAddress"]
    raise base.DriverError("container %s has no IP address on a bridge "
                           "network" % name)


def container_endpoint(conf, instance, port, inspect):
    """The Endpoint of a server port inside a Docker or Podman container.

    Host network: a free port on loopback; a bridge: the container's
    address (reachable from the host through the bridge, no NAT).
    """
    if instance.private.get("host_network"):
        return base.host_network_endpoint(
            conf, instance.private.setdefault("host_ports", {}), port)
    if "address" not in instance.private:
        instance.private["address"] = bridge_address(inspect(instance),
                                                     instance.name)
    return base.Endpoint(port, instance.private["address"], port)


class InspectedContainer:
    """What a Docker or Podman instance driver reads from its inspect.

    The driver gives ``_inspect(instance)``: the engine's inspect document
    (Docker's API and ``podman inspect`` share its shape).
    """

    def endpoint(self, instance, port):
        return container_endpoint(self.conf, instance, port, self._inspect)

    def host_pid(self, instance):
        return self._inspect(instance)["State"].get("Pid") or None

    def lost(self, instance):
        for recorded, what in instance.private.get("watched", ()):
            if not recorded.alive():
                return what % recorded.pid
        return None


def host_network_sshd(conf):
    """(port, command) of an sshd in the host's network namespace.

    No port can be published there, so sshd itself listens on a free
    loopback port of the host.
    """
    port = ports.reserve(conf)
    return port, SSHD + ["-p", str(port), "-o", "ListenAddress=127.0.0.1"]


def volume_or_root(tuning):
    """The tests' work directory: the volume where one is asked for."""
    if tuning is not None and tuning.workdir_volume:
        return tuning_lib.VOLUME_MOUNT
    return base.Driver.default_workdir


def tuning_facts(tuning, default_network):
    """Environment entries of a container's tuning (untuned: the default)."""
    tuning = tuning or tuning_lib.ContainerTuning()
    facts = tuning.describe()
    if tuning.network == "host":
        facts["network"] = ("host network namespace, sshd on a free port "
                            "of 127.0.0.1")
    else:
        facts["network"] = default_network
    return facts
