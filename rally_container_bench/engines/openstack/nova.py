"""Nova servers: KVM/QEMU, libvirt-LXC, nova-docker, Ironic alike.

The driver gets a novaclient (and, for floating IPs, a neutronclient)
from the scenario, which takes them from the Rally environment's
credentials; no Rally import here. Which hypervisor a server lands on is
the operator's choice as Nova offers it: the image's hypervisor_type
(ImagePropertiesFilter), an availability zone, scheduler hints or the
flavor's extra specs.

Timestamps: ``build`` is timed by the client from the POST to the poll
that sees ACTIVE, so it includes up to one poll interval
(``[container_bench] nova_poll_interval``) and the read of the whole
server that follows that poll; the server's own ``created``
and ``OS-SRV-USG:launched_at`` and the instance-action events (where the
user may read them) are recorded next to it as the engine's times.
"""

import contextlib
import dataclasses
import itertools
import logging
import re
import time

from rally_container_bench.core import base
from rally_container_bench.core import cloud_init
from rally_container_bench.core import ssh
from rally_container_bench.core import timestamps
from rally_container_bench.engines.openstack import api
from rally_container_bench.engines.openstack import console
from rally_container_bench.engines.openstack import nova_facts

LOG = logging.getLogger(__name__)

# Fault messages from Nova can be long tracebacks.
_FAULT_CHARS = 600
# A read of one server costs Nova two Neutron requests (its ports, its
# security groups' names: 333 of Neutron's 1189 in the cloud tests, ~0.1 s
# of CPU each). The waits poll the brief list filtered by the server's
# name (and status), which costs none, and read the whole server every
# this many polls (an ERROR, the last state) and once the list shows it.
READ_WHOLE_EVERY = 10
SITE_IMAGE_HINT = (
    "the image did not install the key pair's key (a site's image takes "
    "it through cloud-init, from the metadata service or a config drive)")


@dataclasses.dataclass(frozen=True)
class BootRequest:
    """Everything of a server create request but its name."""

    image: str
    flavor: str
    network: str | None = None
    key_name: str | None = None
    security_groups: tuple = ()
    availability_zone: str | None = None
    scheduler_hints: dict | None = None
    # Reach the server at a floating IP from this external network instead
    # of its fixed IP (which must then be routable from the Rally host).
    floating_network: str | None = None
    ssh_user: str = "root"
    ssh_port: int = 22
    # What the image targets (not api.sent: the image's property chooses the
    # host); a container hypervisor's servers share its kernel.
    hypervisor_type: str | None = None
    config_drive: bool = False  # cloud-init's data on a config drive
    # An image of the site's (not rcbench_guest's upload): its key comes
    # through cloud-init, and its console says why when it does not.
    site_image: bool = False
    key_origin: str = "the key pair of rcbench_guest"


def _seen(what):
    """last_seen of a server, or the text of a failed poll."""
    return what if isinstance(what, str) else last_seen(what)


def last_seen(server):
    """A Nova server's state, for the error of a wait that ran out."""
    fault = getattr(server, "fault", None) or {}
    facts = [("status", getattr(server, "status", None)),
             ("task_state", getattr(server, "OS-EXT-STS:task_state", None)),
             ("fault", fault.get("message") if isinstance(fault, dict)
              else fault)]
    return ", ".join("%s %s" % (key, str(value)[:_FAULT_CHARS])
                     for key, value in facts if value not in (None, ""))


def fixed_ipv4(addresses, network_name=None):
    """The first IPv4 address of a server's ``addresses`` (one network's)."""
    for name, entries in sorted(addresses.items()):
        if network_name and name != network_name:
            continue
        for entry in entries:
            if entry.get("version", 4) == 4 and \
                    entry.get("OS-EXT-IPS:type", "fixed") == "fixed":
                return entry["addr"]
    return None


class NovaDriver(ssh.SshDriver):
    """Servers of one Nova endpoint, booted from one BootRequest."""

    name = "nova"
    engine_times_note = (
        "Server-side clocks (epoch seconds; Nova keeps whole seconds for "
        "created and launched_at): created = nova-api accepted the request, "
        "launched_at = the compute host finished spawning, "
        "create.<event>.start/finish = instance-action events. The phases "
        "(build, network, delete) are the client's clock")

    def __init__(self, nova, request, private_key, conf, neutron=None,
                 network_name=None, admin_nova=None):
        super().__init__(image=None, conf=conf)
        self.nova = nova
        # Instance-action events are admin-only under Nova's default
        # policy: read with the admin client where the env has one.
        self.events_nova = admin_nova or nova
        self.admin_nova = admin_nova
        self.neutron = neutron
        self.request = request
        self.private_key = private_key
        self.network_name = network_name

    def create(self, name):
        r = self.request
        nics = [{"net-id": r.network}] if r.network else "auto"
        server = api.sent(lambda: self.nova.servers.create(
            name, r.image, r.flavor, nics=nics, key_name=r.key_name,
            security_groups=list(r.security_groups) or None,
            availability_zone=r.availability_zone,
            scheduler_hints=r.scheduler_hints or None,
            config_drive=r.config_drive or None),
            "creating server %s" % name)
        return base.Instance(name=name, id=server.id, ssh_host=None,
                             ssh_port=r.ssh_port, ssh_user=r.ssh_user,
                             private={"server": server})

    def _get(self, instance):
        return self.nova.servers.get(instance.id)

    def _listed(self, instance, status=None):
        """Whether the brief server list shows the server (in status).

        True, False, or None when a busy API failed the poll.
        """
        search = {"name": "^%s$" % re.escape(instance.name)}
        if status:
            search["status"] = status
        return base.polled(
            lambda: any(s.id == instance.id for s in self.nova.servers.list(
                detailed=False, search_opts=search)),
            [], api.transient_api_error)

    def wait_running(self, instance, timeout):
        seen = []
        polls = itertools.count()

        def active():
            if next(polls) % READ_WHOLE_EVERY and not self._listed(
                    instance, "ACTIVE"):
                return None
            server = base.polled(lambda: self._get(instance), seen,
                                 api.transient_api_error)
            if server is None:
                return None
            if server.status == "ERROR":
                fault = getattr(server, "fault", {}) or {}
                message = str(fault.get("message", fault))
                raise base.DriverError(
                    "server %s went to ERROR: %s%s"
                    % (instance.name, message[:_FAULT_CHARS],
                       nova_facts.fault_hint(message)))
            return server if server.status == "ACTIVE" else None
        server = base.wait_until(active, timeout,
                                 self.conf.nova_poll_interval,
                                 "server %s ACTIVE" % instance.name,
                                 last=lambda: seen and _seen(seen[0]))
        instance.private["server"] = server
        instance.ssh_host = self._address(instance, server)

    def _address(self, instance, server):
        if self.request.floating_network:
            return self._attach_floating_ip(instance, server)
        address = fixed_ipv4(server.addresses, self.network_name)
        if address is None:
            raise base.DriverError("server %s is ACTIVE without an IPv4 "
                                   "address: %s"
                                   % (instance.name, server.addresses))
        return address

    def _attach_floating_ip(self, instance, server):
        ports = self.neutron.list_ports(device_id=server.id)["ports"]
        if not ports:
            raise base.DriverError("server %s has no port for a floating IP"
                                   % instance.name)
        floating = self.neutron.create_floatingip({"floatingip": {
            "floating_network_id": self.request.floating_network,
            "port_id": ports[0]["id"],
            "description": instance.name}})["floatingip"]
        instance.private["floating_ip_id"] = floating["id"]
        return floating["floating_ip_address"]

    @property
    def own_kernel(self):
        """Servers of container hypervisors share their host's kernel."""
        return self.request.hypervisor_type not in ("lxc", "docker")

    def wait_pingable(self, instance, timeout):
        """Return when the server answers ICMP echo (first network step)."""
        with self._explained(instance):
            base.wait_pingable(instance.ssh_host, timeout,
                               self.conf.ssh_poll_interval,
                               "ping %s (%s)" % (instance.name,
                                                 instance.ssh_host))

    def wait_reachable(self, instance, timeout):
        """A login; a site image's refusal is final once cloud-init is done.

        cloud-init installs the key pair's key, and may still be at work
        (waiting for a metadata service) while sshd already answers: the
        wait goes on while the console shows it running, within timeout.
        """
        deadline = time.monotonic() + timeout
        with self._explained(instance):
            while True:
                try:
                    return super().wait_reachable(
                        instance, max(deadline - time.monotonic(), 1))
                except ssh.KeyRefusedError:
                    if not self.request.site_image or \
                            time.monotonic() >= deadline or \
                            not cloud_init.still_running(
                                console.tail(self.nova, instance)):
                        raise
                    LOG.info("%s refuses the key while cloud-init runs: "
                             "waiting on" % instance.name)

    def _explained(self, instance):
        """A site image's console diagnosis on a failed network phase."""
        if not self.request.site_image:
            return contextlib.nullcontext()
        return console.explained(self.nova, instance, self.request.ssh_user)

    def executor(self, instance):
        hint = SITE_IMAGE_HINT if self.request.site_image \
            else ssh.REBUILD_HINT
        return ssh.SSHExecutor(instance, self.private_key, kind=self.name,
                               key_origin=self.request.key_origin,
                               refused_hint=hint)

    def record_engine_times(self, instance):
        if instance.engine_times:
            return
        server = self._get(instance)
        times = {"created": timestamps.epoch(getattr(server, "created", None)),
                 "launched_at": timestamps.epoch(
                     getattr(server, "OS-SRV-USG:launched_at", None))}
        try:
            actions = api.settled_actions(lambda: self._actions(instance),
                                          self.conf.nova_poll_interval)
            times.update(api.action_event_times(actions))
        except Exception as e:  # a policy may refuse them
            times["instance_actions_unreadable"] = None
            instance.private["actions_error"] = str(e)
        instance.engine_times = times

    def _actions(self, instance):
        events = self.events_nova.instance_action
        return [events.get(instance.id, action.request_id).to_dict()
                for action in events.list(instance.id)]

    def delete(self, instance):
        floating = instance.private.pop("floating_ip_id", None)
        if floating:
            self.neutron.delete_floatingip(floating)
        self.nova.servers.delete(instance.id)

    def wait_deleted(self, instance, timeout):
        from novaclient import exceptions as nova_exceptions

        seen = []
        polls = itertools.count()

        def gone():
            if next(polls) % READ_WHOLE_EVERY:
                return self._listed(instance) is False
            try:
                server = base.polled(lambda: self._get(instance), seen,
                                     api.transient_api_error)
            except nova_exceptions.NotFound:
                return True
            if server is None:
                return False
            if server.status == "ERROR":
                raise base.DriverError("server %s went to ERROR while "
                                       "being deleted" % instance.name)
            return server.status == "DELETED"
        base.wait_until(gone, timeout, self.conf.nova_poll_interval,
                        "server %s gone" % instance.name,
                        last=lambda: seen and _seen(seen[0]))

    def host_pid_command(self, instance):
        """The argv that prints the server's process id on its host.

        libvirt's pid file of the domain (QEMU's or LXC's controller),
        else QEMU's process by its guest name. The domain's name is
        admin-only: None without the admin.
        """
        if self.admin_nova is None:
            return None
        domain = getattr(self.admin_nova.servers.get(instance.id),
                         "OS-EXT-SRV-ATTR:instance_name", None)
        return ["sh", "-c", _DOMAIN_PID, "rcbench-pid", domain] \
            if domain else None

    def host_cpu_command(self, instance):
        """The argv that prints vCPU 0's host CPUs on the compute host.

        libvirt's vcpupin of the domain (Nova pins it where the flavor
        asks for hw:cpu_policy dedicated); None without the admin.
        """
        if self.admin_nova is None:
            return None
        domain = getattr(self.admin_nova.servers.get(instance.id),
                         "OS-EXT-SRV-ATTR:instance_name", None)
        return ["virsh", "-c", "qemu:///system", "vcpupin", domain,
                "--vcpu", "0"] if domain else None

    @staticmethod
    def host_pinning_command():
        """The argv that prints every domain's vCPU and emulator CPUs.

        On the compute host, each running libvirt domain's vcpupin and
        emulatorpin (cloud.parse_pinned_cpus): a twin at once takes none.
        """
        return ["sh", "-c", _DOMAINS_PINNING]

    def disk_in_host_kernel(self, instance):
        # libvirt-LXC's server has its root disk mounted on the compute
        # host (nova.virt.disk: a loop device for raw images, nbd for
        # qcow2): its I/O runs in the host kernel's threads
        return self.request.hypervisor_type == "lxc"

    def describe(self):
        found = {"driver": self.name, "nova_image": self.request.image,
                 "flavor": self.request.flavor}
        if self.disk_in_host_kernel(None):
            found["disk_io"] = nova_facts.LXC_DISK_IO
        return found

    @classmethod
    def check(cls, conf):
        return True, "reached through the Rally environment's credentials"


# $1: the libvirt domain's name (instance-0000000a).
_DOMAIN_PID = r"""
for f in "/run/libvirt/qemu/$1.pid" "/run/libvirt/lxc/$1.pid"; do
    [ -r "$f" ] && { cat "$f"; echo; exit 0; }
done
pgrep -o -f -- "guest=$1," || pgrep -o -f -- "--name $1( |$)"
"""


def compute_hosts(nova, hypervisor_type=None):
    """{host: availability zone} of enabled compute services (admin).

    Only those whose hypervisors are of hypervisor_type (qemu also for
    kvm; None: any).
    """
    wanted = "qemu" if hypervisor_type == "kvm" else hypervisor_type
    zones = {s.host: s.zone for s in nova.services.list(
        binary="nova-compute") if s.status == "enabled"}
    found = {}
    for hypervisor in nova.hypervisors.list():
        host = (getattr(hypervisor, "service", None) or {}).get("host")
        kind = (getattr(hypervisor, "hypervisor_type", "") or "").lower()
        if host in zones and (wanted is None or kind == wanted):
            found[host] = zones[host]
    return dict(sorted(found.items()))


# Every running domain's vcpupin and emulatorpin, on both of libvirt's
# system connections Nova's hypervisors use.
_DOMAINS_PINNING = r"""
for c in qemu:///system lxc:///system; do
    for d in $(virsh -c "$c" list --name 2>/dev/null); do
        virsh -c "$c" vcpupin "$d" 2>/dev/null
        virsh -c "$c" emulatorpin "$d" 2>/dev/null
    done
done
exit 0
"""
