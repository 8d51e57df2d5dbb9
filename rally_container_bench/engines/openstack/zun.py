"""Zun containers: OpenStack's container service (runtime runc, kata, ...).

The driver gets python-zunclient clients from the scenario (Rally's
keystone session, API microversion negotiated); no Rally import here.
Phases as for Nova: build = create request (``run``) -> status Running;
network = ping, then an SSH login to the container's sshd (its command);
delete = DELETE with stop (the container runs) -> Zun no longer knows it.

The runtime (``runc``, ``kata-runtime``, ...) is admin-only in Zun's
default policy (``container:create:runtime``, ``container:get_one:runtime``):
with a runtime requested, the scenario hands the admin's client in.
"""

import dataclasses
import time

from rally_container_bench.core import base
from rally_container_bench.core import ssh
from rally_container_bench.core import timestamps
from rally_container_bench.engines.openstack import api
from rally_container_bench.images import guest

# Zun lists "runtime" from 1.5 and takes the command as a list from 1.20.
MIN_MICROVERSION = (1, 20)
RUNTIME_MICROVERSION = (1, 5)
_REASON_CHARS = 600
# What Zun 18 does when the request names no pull policy
# (zun.common.utils.get_image_pull_policy): every container downloads its
# Glance image and loads it into Docker again.
ZUN_DEFAULT_PULL_POLICY = "always (Zun's default)"
PORT_CHECK_INTERVAL = 15.0


@dataclasses.dataclass(frozen=True)
class ContainerRequest:
    """Everything of a Zun container create request but its name."""

    image: str
    network: str | None = None
    security_groups: tuple = ()
    cpu: float | None = None
    memory: int | None = None       # MiB
    runtime: str | None = None
    availability_zone: str | None = None
    hints: dict | None = None
    command: tuple = guest.SSHD
    image_driver: str = "glance"
    # None: Zun's default, "always" (ZUN_DEFAULT_PULL_POLICY).
    # "ifnotpresent" reuses what a host has (admin-only; rcbench_zun_warmup
    # loads it first). See resolve_pull_policy for "auto".
    image_pull_policy: str | None = None
    host: str | None = None         # admin-only, API 1.39
    ssh_user: str = "root"
    ssh_port: int = 22

    @property
    def needs_admin(self):
        """Fields Zun's default policy lets only an admin set."""
        return bool(self.runtime or self.image_pull_policy or self.host)

    def body(self, name):
        """The create request's fields, without the unset ones."""
        body = {"name": name, "image": self.image,
                "command": list(self.command),
                "image_driver": self.image_driver,
                "image_pull_policy": self.image_pull_policy,
                "cpu": self.cpu, "memory": self.memory,
                "runtime": self.runtime,
                "availability_zone": self.availability_zone,
                "host": self.host,
                "hints": self.hints or None,
                "security_groups": list(self.security_groups) or None,
                "nets": [{"network": self.network}] if self.network
                else None}
        return {key: value for key, value in body.items()
                if value is not None}


PULL_POLICIES = ("auto", "always", "ifnotpresent", "never")


def resolve_pull_policy(policy, admin):
    """The pull policy to send: "auto" is ifnotpresent with the admin.

    Without the admin (setting one is admin-only under Zun's default
    policy) "auto" sends none: Zun's own, "always".
    """
    if policy == "auto":
        return "ifnotpresent" if admin else None
    return policy


def last_seen(container):
    """A Zun container's state, for the error of a wait that ran out."""
    facts = [("status", getattr(container, "status", None)),
             ("task_state", getattr(container, "task_state", None)),
             ("status_reason", getattr(container, "status_reason", None))]
    return ", ".join("%s %s" % (key, str(value)[:_REASON_CHARS])
                     for key, value in facts if value not in (None, ""))


def _seen(what):
    """last_seen of a container, or the text of a failed poll."""
    return what if isinstance(what, str) else last_seen(what)


def microversion(text):
    """"1.38" -> (1, 38)."""
    major, minor = str(text).split(".")
    return int(major), int(minor)


def container_ipv4(addresses):
    """The first IPv4 address in a container's ``addresses``."""
    for _network, entries in sorted((addresses or {}).items()):
        for entry in entries:
            if str(entry.get("version", 4)) == "4" and entry.get("addr"):
                return entry["addr"]
    return None


def unbound_port(ports):
    """The first port Neutron failed to bind, or None."""
    return next((p for p in ports
                 if p.get("binding:vif_type") == "binding_failed"), None)


def action_event_times(actions):
    """Container-action events as {"<action>.<event>.start|finish": epoch}."""
    return api.action_event_times(actions)


class ZunDriver(ssh.SshDriver):
    """Containers of one Zun endpoint, created from one ContainerRequest."""

    name = "zun"
    engine_times_note = (
        "Zun's clocks (epoch seconds, whole seconds): created = zun-api "
        "accepted the request, create.compute__do_container_create and "
        "create.compute__do_container_start .start/.finish = zun-compute's "
        "container-action events (Docker create, Docker start). The "
        "phases (build, network, delete) are the client's clock")

    def __init__(self, zun, request, private_key, conf, admin_zun=None,
                 exits=False, admin_neutron=None):
        super().__init__(image=None, conf=conf)
        self.request = request
        self.private_key = private_key
        # The command is the workload and ends by itself: "started" is
        # Running or already Stopped, and no address is needed.
        self.exits = exits
        # The runtime is admin-only to set and to read (default policy):
        # with one asked for, the admin owns the container.
        self.zun = admin_zun if request.needs_admin else zun
        self.admin = admin_zun
        # Reads the ports' binding (admin-only): see _unbound_port.
        self.admin_neutron = admin_neutron

    def create(self, name):
        container = api.sent(
            lambda: self.zun.containers.run(**self.request.body(name)),
            "creating container %s" % name)
        return base.Instance(name=name, id=container.uuid, ssh_host=None,
                             ssh_port=self.request.ssh_port,
                             ssh_user=self.request.ssh_user,
                             private={"container": container})

    def _get(self, instance):
        return self.zun.containers.get(instance.id)

    def _poll(self, instance, seen):
        """The container, or None when Zun's API failed this poll.

        Under load zun-api answers a GET with HTTP 500 when zun-compute
        does not answer its RPC within 60 s (oslo.messaging's
        MessagingTimeout: 8 of 32 iterations at once on the 2-core test
        cloud failed on one such poll): the wait polls again.
        """
        return base.polled(lambda: self._get(instance), seen,
                           api.transient_api_error)

    def wait_running(self, instance, timeout):
        seen = []

        def running():
            container = self._poll(instance, seen)
            if container is None:
                return None
            if container.status in ("Error", "Dead"):
                raise base.DriverError(
                    "container %s went to %s: %s"
                    % (instance.name, container.status,
                       str(container.status_reason)[:_REASON_CHARS]))
            if container.status == "Stopped" and self.exits:
                return container
            if container.status in ("Stopped", "Deleted"):
                raise base.DriverError(
                    "container %s is %s: its command exited (%s)"
                    % (instance.name, container.status,
                       container.status_reason))
            if container.status == "Creating":
                self._fail_on_unbound_port(instance, checked)
            return container if container.status == "Running" else None
        checked = [time.monotonic()]
        container = base.wait_until(running, timeout,
                                    self.conf.nova_poll_interval,
                                    "container %s Running" % instance.name,
                                    last=lambda: seen and _seen(seen[0]))
        instance.private["container"] = container
        instance.ssh_host = container_ipv4(container.addresses)
        if instance.ssh_host is None and not self.exits:
            raise base.DriverError("container %s is Running without an IPv4 "
                                   "address: %s" % (instance.name,
                                                    container.addresses))

    def _fail_on_unbound_port(self, instance, checked):
        """Fail when Neutron could not bind the container's port.

        Zun 18 then leaves the container in Creating for ever (the host's
        network agent is dead): fail at once, not at the boot timeout.
        One look per PORT_CHECK_INTERVAL.
        """
        if self.admin_neutron is None or \
                time.monotonic() - checked[0] < PORT_CHECK_INTERVAL:
            return
        checked[0] = time.monotonic()
        port = unbound_port(self.admin_neutron.list_ports(
            device_id=instance.id)["ports"])
        if port:
            raise base.DriverError(
                "container %s stays in Creating: Neutron could not bind its "
                "port %s on host %s (binding_failed). Is that host's "
                "network agent alive? (openstack network agent list)"
                % (instance.name, port["id"],
                   port.get("binding:host_id") or "?"))

    def wait_pingable(self, instance, timeout):
        base.wait_pingable(instance.ssh_host, timeout,
                           self.conf.ssh_poll_interval,
                           "ping %s (%s)" % (instance.name,
                                             instance.ssh_host))

    def executor(self, instance):
        return ssh.SSHExecutor(instance, self.private_key, kind=self.name,
                               key_origin="the key pair of rcbench_guest")

    def logs(self, instance):
        """The container's stdout and stderr, as Zun returns them."""
        return self.zun.containers.logs(instance.id, stdout=True,
                                        stderr=True)

    def wait_exited(self, instance, timeout):
        """Return the container once its command ended (status Stopped)."""
        def exited():
            container = self._get(instance)
            if container.status == "Error":
                raise base.DriverError("container %s went to Error: %s"
                                       % (instance.name,
                                          container.status_reason))
            return container if container.status == "Stopped" else None
        return base.wait_until(exited, timeout, self.conf.nova_poll_interval,
                               "container %s Stopped" % instance.name)

    def record_engine_times(self, instance):
        if instance.engine_times:
            return
        container = self._get(instance)
        times = {"created": timestamps.epoch(
            getattr(container, "created_at", None))}
        try:
            actions = api.settled_actions(lambda: self._actions(instance),
                                          self.conf.nova_poll_interval)
            times.update(action_event_times(actions))
        except Exception as e:  # a policy may refuse them
            times["container_actions_unreadable"] = None
            instance.private["actions_error"] = str(e)
        instance.engine_times = times

    def _actions(self, instance):
        return [self.zun.actions.get(instance.id, a.request_id).to_dict()
                for a in self.zun.actions.list(instance.id)]

    def delete(self, instance):
        """Ask Zun to delete the container, also one still in Creating.

        "stop": a running container is stopped, then deleted (its owner
        may; "force" is admin-only under the default policy). Zun refuses
        that while the container is Creating, e.g. loading its image
        (HTTP 409): with the admin's client it is then force-deleted
        (zun-compute runs the delete right after the create it waits
        behind); without, it is waited out of Creating for at most
        delete_timeout, then deleted. wait_deleted gives it
        delete_timeout more.
        """
        from zunclient import exceptions as zun_exceptions
        try:
            self.zun.containers.delete(instance.id, stop=True)
            return
        except zun_exceptions.Conflict:
            pass
        if self.admin is not None:
            self.admin.containers.delete(instance.id, force=True,
                                         all_projects=True)
            return
        seen = []

        def created():
            container = self._poll(instance, seen)
            return container is not None and container.status != "Creating"
        base.wait_until(created, self.conf.delete_timeout,
                        self.conf.nova_poll_interval,
                        "container %s out of Creating, to be deleted "
                        "(force-deleting it needs the admin)" % instance.name,
                        last=lambda: seen and _seen(seen[0]))
        self.zun.containers.delete(instance.id, stop=True)

    def wait_deleted(self, instance, timeout):
        from zunclient import exceptions as zun_exceptions

        seen = []

        def gone():
            try:
                container = self._poll(instance, seen)
            except zun_exceptions.NotFound:
                return True
            if container is None:
                return False
            if container.status == "Error" and \
                    "delet" in str(container.status_reason).lower():
                raise base.DriverError("container %s went to Error while "
                                       "being deleted: %s"
                                       % (instance.name,
                                          container.status_reason))
            return False
        base.wait_until(gone, timeout, self.conf.nova_poll_interval,
                        "container %s gone" % instance.name,
                        last=lambda: seen and _seen(seen[0]))

    def where(self, instance):
        """Host and runtime of the container ({} without the admin)."""
        if self.admin is None:
            return {}
        container = self.admin.containers.get(instance.id,
                                              all_projects=True)
        return {"compute_host": getattr(container, "host", None),
                "runtime": getattr(container, "runtime", None)}

    def host_pid_command(self, instance):
        """The argv that prints the container's process id on its host.

        Zun's Docker driver names the container zun-<uuid>.
        """
        return ["docker", "inspect", "--format", "{{.State.Pid}}",
                "zun-%s" % instance.id]

    def describe(self):
        return {"driver": self.name, "zun_image": self.request.image,
                "image_driver": self.request.image_driver,
                "image_pull_policy": self.request.image_pull_policy
                or ZUN_DEFAULT_PULL_POLICY,
                "runtime_requested": self.request.runtime or "",
                "cpu": self.request.cpu, "memory_mb": self.request.memory}

    @classmethod
    def check(cls, conf):
        return True, "reached through the Rally environment's credentials"


def placement_claim(cpu, memory, default_memory=512):
    """(VCPU, MEMORY_MB) Zun claims in Placement for one container.

    Zun rounds the cpu up to whole cores, at least 1 (Zun 18's
    scheduler.utils.resources_from_request_spec).
    """
    vcpu = max(1, int(-(-float(cpu or 1) // 1)))
    return vcpu, max(1, int(memory or default_memory))


def compute_hosts(zun):
    """The Zun compute hosts' names, sorted (admin)."""
    return sorted({h.hostname for h in zun.hosts.list()})
