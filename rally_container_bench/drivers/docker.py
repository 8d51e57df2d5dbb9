"""Docker Engine, through the docker SDK.

Each container publishes its sshd on 127.0.0.1 only (a port Docker picks),
so every probe of the network phase stays on loopback. Containers carry
the label ``rcbench=1`` and the Rally resource name, which cleanup uses.
"""

import contextlib
import datetime
import os
import shutil
import threading

import docker
from docker import errors as docker_errors
import requests

from rally_container_bench.drivers import base
from rally_container_bench.images import guest

LABEL = "rcbench"
SSHD = list(guest.SSHD)


def parse_timestamp(text):
    """Docker's RFC 3339 with nanoseconds -> epoch seconds (float)."""
    if not text or text.startswith("0001-"):
        return None
    head, _, rest = text.rstrip("Z").partition(".")
    fraction = float("0." + rest) if rest else 0.0
    moment = datetime.datetime.strptime(head, "%Y-%m-%dT%H:%M:%S")
    return moment.replace(tzinfo=datetime.timezone.utc).timestamp() + fraction


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
    instance.engine_times = {
        "created": parse_timestamp(attrs["Created"]),
        "started": parse_timestamp(state.get("StartedAt")),
    }
    bindings = (attrs["NetworkSettings"]["Ports"] or {}).get("22/tcp")
    if not bindings:
        raise base.DriverError("container %s has no published SSH port"
                               % instance.name)
    instance.ssh_host = bindings[0]["HostIp"] or "127.0.0.1"
    instance.ssh_port = int(bindings[0]["HostPort"])
    return True


@contextlib.contextmanager
def _daemon_reachable(url, what):
    """A dead or restarting dockerd becomes a DriverError that says so.

    The SDK raises requests' ConnectionError from its calls, and a
    DockerException when a new client cannot read the daemon's version.
    """
    try:
        yield
    except (requests.exceptions.ConnectionError,
            docker_errors.DockerException) as e:
        if isinstance(e, docker_errors.APIError):
            raise  # the daemon answered: the caller says what it refused
        raise base.DriverError("docker %s: dockerd does not answer at %s: "
                               "%s" % (what, url, e))


class DockerDriver(base.Driver):
    name = "docker"

    def __init__(self, image, conf):
        super().__init__(image, conf)
        self._local = threading.local()

    @property
    def client(self):
        # One client per process and thread: Rally forks its runner
        # processes after setup, and an HTTP session must not cross them.
        key = (os.getpid(), threading.get_ident())
        if getattr(self._local, "key", None) != key:
            with self._api("connect"):
                self._local.client = docker.DockerClient(
                    base_url=self.conf.docker_url, timeout=120)
            self._local.key = key
        return self._local.client

    def prepare(self):
        try:
            self.client.images.get(self.image.tag)
            return
        except docker_errors.ImageNotFound:
            pass
        repository, tag = self.image.tag.rsplit(":", 1)
        self.client.api.import_image_from_file(
            self.image.tarball, repository=repository, tag=tag,
            changes=['CMD ["%s"]' % '", "'.join(SSHD)])
        self.client.images.get(self.image.tag)

    def create(self, name):
        try:
            with self._api("create " + name):
                limits = ({"nano_cpus": int(self.conf.container_cpus * 1e9)}
                          if self.conf.container_cpus else {})
                container = self.client.containers.create(
                    self.image.tag, name=name, detach=True,
                    labels={LABEL: "1"},
                    ports={"22/tcp": ("127.0.0.1", None)},
                    network=self.conf.docker_network, **limits)
                container.start()
        except docker_errors.DockerException as e:
            raise base.DriverError("docker could not start %s: %s"
                                   % (name, e))
        return base.Instance(name=name, id=container.id)

    def wait_running(self, instance, timeout):
        base.wait_until(lambda: running(instance, self._inspect(instance)),
                        timeout, self.conf.poll_interval,
                        "container %s running" % instance.name)

    def _api(self, what):
        return _daemon_reachable(self.conf.docker_url, what)

    def _inspect(self, instance):
        try:
            with self._api("inspect " + instance.name):
                return self.client.api.inspect_container(instance.id)
        except docker_errors.NotFound:
            raise base.DriverError("container %s is gone" % instance.name)

    def delete(self, instance):
        try:
            with self._api("remove " + instance.name):
                self.client.api.remove_container(
                    instance.id or instance.name, force=True)
        except docker_errors.NotFound:
            pass
        except docker_errors.DockerException as e:
            raise base.DriverError("docker could not remove %s: %s"
                                   % (instance.name, e))

    def wait_deleted(self, instance, timeout):
        base.wait_until(lambda: self._gone(instance), timeout,
                        self.conf.poll_interval,
                        "container %s gone" % instance.name)

    def _gone(self, instance):
        try:
            with self._api("inspect " + instance.name):
                self.client.api.inspect_container(
                    instance.id or instance.name)
        except docker_errors.NotFound:
            return True
        return False

    def list_names(self, prefix):
        with self._api("list containers"):
            containers = self.client.api.containers(
                all=True, filters={"label": LABEL})
        names = [name.lstrip("/") for c in containers for name in c["Names"]]
        return sorted(name for name in names if name.startswith(prefix))

    @classmethod
    def check(cls, conf):
        if shutil.which("dockerd") is None:
            return False, "dockerd is not installed (apt: docker.io)"
        try:
            client = docker.DockerClient(base_url=conf.docker_url, timeout=5)
            version = client.version()["Version"]
        except Exception as e:
            return False, ("dockerd does not answer at %s (rcbench engines "
                           "start docker): %s" % (conf.docker_url, e))
        try:
            client.networks.get(conf.docker_network)
        except docker_errors.NotFound:
            return False, ("docker network %r does not exist (option "
                           "docker_network in [container_bench]; see docker "
                           "network ls)" % conf.docker_network)
        finally:
            client.close()
        return True, "docker %s at %s" % (version, conf.docker_url)

    def describe(self):
        with self._api("version"):
            version = self.client.version()
        return dict(super().describe(), runtime="runc",
                    engine_version="docker " + version.get("Version", "?"),
                    acceleration="none (container)",
                    network="docker network %s, sshd published on "
                            "127.0.0.1" % self.conf.docker_network,
                    cpu_limit=self.conf.container_cpus or "none")
