"""Docker and Podman through their CLIs: the same verbs, as ptcr drives them.

Instances carry the label rcbench=lifecycle (engines.labels); cleanup lists
by the key, so the instance view's containers go too.
Docker and Podman run an OCI runtime of engines.runtimes (``--runtime``);
Podman, on hybrid-cgroup hosts, inside the mount namespace ``rcbench
engines start podman`` holds.
"""

import json
import os
import shutil

from rally_container_bench.drivers import base as drivers_base
from rally_container_bench.drivers import docker as docker_driver
from rally_container_bench.engines import catalog
from rally_container_bench.engines import labels
from rally_container_bench.engines import runtimes
from rally_container_bench.lifecycle import base


class CliEngine(base.LifecycleDriver):
    """An engine whose CLI has docker's verbs."""

    def _cli(self, *args, timeout=120):
        """CompletedProcess of one CLI call."""
        raise NotImplementedError

    def _checked(self, *args):
        proc = self._cli(*args)
        if proc.returncode != 0:
            raise base.DriverError("%s %s failed: %s" % (
                self.name, args[0], (proc.stderr or proc.stdout)
                .strip()[-1500:]))
        return proc.stdout

    def prepare(self):
        if self._cli("image", "inspect", self.image.tag).returncode != 0:
            self._checked("load", "-i", self.image.archive)

    def _create_args(self, name):
        return (["--name", name] + labels.label_args(labels.LIFECYCLE)
                + ["--network", "none"] + self.runtime_args()
                + [self.image.tag])

    def runtime_args(self):
        """create/run options that choose the OCI runtime, if any."""
        return []

    def create(self, name):
        self._checked("create", *self._create_args(name))

    def start(self, name):
        self._checked("start", name)

    def stop(self, name):
        self._checked("stop", "-t", "0", name)

    def remove(self, name):
        self._checked("rm", name)

    def run(self, name):
        self._checked("run", "-d", *self._create_args(name))

    #: rm -f flags that kill at once (podman's rm -f waits 10 s for the
    #: shell loop, which ignores SIGTERM, before it kills)
    force_flags = ("-f", "-v")

    def force_remove(self, name):
        proc = self._cli("rm", *self.force_flags, name)
        if proc.returncode != 0 and "such container" not in proc.stderr:
            raise base.DriverError("%s rm -f %s failed: %s"
                                   % (self.name, name, proc.stderr.strip()))

    def list_names(self):
        return self._checked("ps", "-a", "--filter", "label=" + labels.KEY,
                             "--format", "{{.Names}}").split()

    def workload_pid(self, name):
        return int(self._checked("inspect", "--format", "{{.State.Pid}}",
                                 name).strip())


class RuntimeCli(CliEngine):
    """An engine's CLI with one OCI runtime of engines.runtimes."""
    oci = runtimes.RUNTIMES["runc"]
    runtime = oci.binary

    def __init__(self, image, conf):
        super().__init__(image, conf)
        # a sandbox's memory is all the instance's, as a VM's
        self.workload_separate = not self.oci.sandbox

    @classmethod
    def instance_driver(cls):
        """The instance view of the same engine (its checks, its flags)."""
        return catalog.view_class(catalog.INSTANCE, cls.name)

    def registered_flags(self):
        """The runtime's flags as the engine runs it."""
        raise NotImplementedError

    def describe(self):
        return dict(super().describe(), runtime=self.runtime,
                    **self.oci.facts(self.registered_flags()))

    @classmethod
    def check(cls, conf):
        return cls.instance_driver().check(conf)


class DockerCli(RuntimeCli):
    name = "docker"

    def runtime_args(self):
        return ["--runtime", self.runtime]

    def _cli(self, *args, timeout=120):
        return drivers_base.run_cli(
            ["docker", "-H", self.conf.docker_url] + list(args), timeout)

    def daemon_pids(self):
        pids = [base.pid_from_file(path) for path in (
            os.path.join(os.path.dirname(
                self.conf.docker_url.replace("unix://", "", 1)),
                "docker.pid"),
            "/var/run/docker/containerd/containerd.pid")]
        return [pid for pid in pids if pid]

    def registered_flags(self):
        if self.oci.docker_builtin:
            return []
        info = self._checked("info", "--format", "{{json .Runtimes}}")
        return docker_driver.registered_flags(
            {"Runtimes": json.loads(info)}, self.runtime) or []

    def describe(self):
        version = self._checked("version", "--format",
                                "{{.Server.Version}}").strip()
        return dict(super().describe(), engine_version="docker " + version)

    @classmethod
    def check(cls, conf):
        if shutil.which("docker") is None:
            return False, "docker is not installed (apt: docker.io)"
        proc = drivers_base.run_cli(
            ["docker", "-H", conf.docker_url, "version"], 30)
        if proc.returncode != 0:
            return False, ("dockerd does not answer at %s (rcbench engines "
                           "start docker)" % conf.docker_url)
        if not cls.oci.docker_builtin:
            return super().check(conf)
        return True, "docker CLI, %s" % cls.runtime


class PodmanCli(RuntimeCli):
    name = "podman-runc"
    force_flags = ("-f", "-v", "-t", "0")

    def __init__(self, image, conf):
        super().__init__(image, conf)
        self._podman = self.instance_driver()(None, conf)

    def _cli(self, *args, timeout=120):
        return self._podman.command(*args, timeout=timeout)

    def registered_flags(self):
        return self._podman.runtime_flags()

    def describe(self):
        version = self._checked("version", "--format",
                                "{{.Client.Version}}").strip()
        return dict(super().describe(), engine_version="podman " + version)
