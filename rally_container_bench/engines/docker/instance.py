"""Docker Engine, through the docker SDK.

Each container publishes its sshd on 127.0.0.1 only (a port Docker picks),
so every probe of the network phase stays on loopback. Containers carry
the label rcbench=instance (core.labels) and the Rally resource name,
which cleanup uses. The OCI runtime is an entry of engines.oci.runtimes:
runc is dockerd's own; others (runsc) are registered in dockerd's config
by ``rcbench engines start docker`` with the flags of the configuration,
and the flags recorded with each result are those dockerd really has.
"""

import contextlib
import json
import os
import shutil
import threading

import docker
from docker import errors as docker_errors
import requests

from rally_container_bench.core import base
from rally_container_bench.core import labels
from rally_container_bench.core import ssh
from rally_container_bench.core import tuning as tuning_lib
from rally_container_bench.engines.docker import deadlock
from rally_container_bench.engines.oci import containers as oci_containers
from rally_container_bench.engines.oci import runtimes


@contextlib.contextmanager
def _daemon_reachable(url, what):
    """A dead or restarting dockerd becomes a DriverError that says so.

    The SDK raises requests' ConnectionError from its calls, and a
    DockerException when a new client cannot read the daemon's version.
    """
    deadlock.refuse_if_known(url, what)
    try:
        yield
    except requests.exceptions.Timeout as e:
        hint = deadlock.after_timeout(url)
        raise base.DriverError("docker %s: dockerd did not answer at %s "
                               "within engine_call_timeout: %s%s"
                               % (what, url, e, "; " + hint if hint else ""))
    except (requests.exceptions.ConnectionError,
            docker_errors.DockerException) as e:
        if isinstance(e, docker_errors.APIError):
            raise  # the daemon answered: the caller says what it refused
        raise base.DriverError("docker %s: dockerd does not answer at %s: "
                               "%s" % (what, url, e))


def registered_flags(info, runtime):
    """runtime's flags as dockerd registered it (``docker info``), or None."""
    registered = (info.get("Runtimes") or {}).get(runtime)
    if registered is None:
        return None
    return list(registered.get("runtimeArgs") or [])


class DockerDriver(oci_containers.InspectedContainer, ssh.SshDriver):
    name = "docker"
    #: The OCI runtime dockerd starts containers with (its name there).
    oci = runtimes.RUNTIMES["runc"]
    runtime = oci.name

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
                    base_url=self.conf.docker_url,
                    timeout=self.conf.engine_call_timeout)
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
            changes=['CMD ["%s"]' % '", "'.join(oci_containers.SSHD)])
        self.client.images.get(self.image.tag)

    def create(self, name):
        instance = base.Instance(name=name)
        options = self._tuned_options(instance)
        if self.conf.container_cpus:
            options["nano_cpus"] = int(self.conf.container_cpus * 1e9)
        try:
            with self._api("create " + name):
                container = self.client.containers.create(
                    self.image.tag, name=name, detach=True,
                    labels=labels.label(labels.INSTANCE),
                    runtime=self.runtime, **options)
                container.start()
        except docker_errors.DockerException as e:
            raise base.DriverError("docker could not start %s: %s"
                                   % (name, e))
        instance.id = container.id
        return instance

    @property
    def default_workdir(self):
        return oci_containers.volume_or_root(self.tuning)

    def _tuned_options(self, instance):
        tuning = self.tuning or tuning_lib.ContainerTuning()
        options = {}
        if tuning.network == "host":
            instance.ssh_port, options["command"] = \
                oci_containers.host_network_sshd(self.conf)
            instance.private["host_network"] = True
            options["network_mode"] = "host"
        else:
            options.update(ports={"22/tcp": ("127.0.0.1", None)},
                           network=self.conf.docker_network)
        if self.cpuset is not None:
            options["cpuset_cpus"] = self.cpuset
        if tuning.workdir_volume:
            # An anonymous volume: removed with the container (v=True).
            options["mounts"] = [docker.types.Mount(
                target=tuning_lib.VOLUME_MOUNT, source=None, type="volume")]
        return options

    def wait_running(self, instance, timeout):
        base.wait_until(lambda: oci_containers.running(
            instance, self._inspect(instance)),
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
                    instance.id or instance.name, force=True, v=True)
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

    @classmethod
    def check(cls, conf):
        if shutil.which("dockerd") is None:
            return False, "dockerd is not installed (apt: docker.io)"
        if not cls.oci.docker_builtin and not cls.oci.installed():
            return False, cls.oci.missing()
        try:
            client = docker.DockerClient(base_url=conf.docker_url, timeout=5)
            version = client.version()["Version"]
        except Exception as e:
            return False, ("dockerd does not answer at %s (rcbench engines "
                           "start docker): %s" % (conf.docker_url, e))
        try:
            client.networks.get(conf.docker_network)
            info = {} if cls.oci.docker_builtin else client.info()
        except docker_errors.NotFound:
            return False, ("docker network %r does not exist (option "
                           "docker_network in [container_bench]; see docker "
                           "network ls)" % conf.docker_network)
        finally:
            client.close()
        why = "docker %s at %s" % (version, conf.docker_url)
        if cls.oci.docker_builtin:
            return True, why
        flags = registered_flags(info, cls.runtime)
        if flags is None:
            return False, cls._unregistered(conf)
        return True, "%s; %s registered as %s %s" % (
            why, cls.runtime, cls.runtime, " ".join(flags))

    @classmethod
    def _unregistered(cls, conf):
        entry = runtimes.docker_runtimes(conf).get(cls.runtime) or {}
        return ("dockerd at %s has no runtime named %s: restart it with "
                "rcbench engines stop docker && rcbench engines start "
                "docker (which registers it), or add to its daemon.json: "
                '"runtimes": {"%s": %s}'
                % (conf.docker_url, cls.runtime, cls.runtime,
                   json.dumps(entry)))

    def describe(self):
        with self._api("version"):
            version = self.client.version()
        facts = dict(super().describe(), runtime=self.runtime,
                     engine_version="docker " + version.get("Version", "?"),
                     acceleration="none (container)",
                     cpu_limit=self.conf.container_cpus or "none",
                     **oci_containers.tuning_facts(
                         self.tuning, "docker network %s, sshd published on "
                         "127.0.0.1" % self.conf.docker_network))
        if self.oci.docker_builtin:
            return facts
        with self._api("info"):
            flags = registered_flags(self.client.info(), self.runtime)
        return self.oci.instance_facts(facts, flags or [])
