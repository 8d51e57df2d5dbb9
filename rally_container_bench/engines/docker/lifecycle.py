"""Docker's lifecycle view: the docker CLI, as ptcr drives it."""

import json
import os
import shutil

from rally_container_bench.core import base
from rally_container_bench.core import lifecycle
from rally_container_bench.engines.docker import deadlock
from rally_container_bench.engines.docker import instance
from rally_container_bench.engines.oci import cli


class DockerCli(cli.RuntimeCli):
    name = "docker"
    instance_class = instance.DockerDriver

    def runtime_args(self):
        return ["--runtime", self.runtime]

    def _cli(self, *args, timeout=None):
        url = self.conf.docker_url
        deadlock.refuse_if_known(url, args[0])
        try:
            return base.run_cli(["docker", "-H", url] + list(args),
                                timeout or self.conf.engine_call_timeout)
        except base.CommandTimeout as e:
            hint = deadlock.after_timeout(url)
            if hint:
                raise base.CommandTimeout("%s; %s" % (e, hint))
            raise

    def daemon_pids(self):
        pids = [lifecycle.pid_from_file(path) for path in (
            os.path.join(os.path.dirname(
                self.conf.docker_url.replace("unix://", "", 1)),
                "docker.pid"),
            "/var/run/docker/containerd/containerd.pid")]
        return [pid for pid in pids if pid]

    def registered_flags(self):
        if self.oci.docker_builtin:
            return []
        info = self._checked("info", "--format", "{{json .Runtimes}}")
        return instance.registered_flags(
            {"Runtimes": json.loads(info)}, self.runtime) or []

    def describe(self):
        version = self._checked("version", "--format",
                                "{{.Server.Version}}").strip()
        return dict(super().describe(), engine_version="docker " + version)

    @classmethod
    def check(cls, conf):
        if shutil.which("docker") is None:
            return False, "docker is not installed (apt: docker.io)"
        proc = base.run_cli(
            ["docker", "-H", conf.docker_url, "version"], 30)
        if proc.returncode != 0:
            return False, ("dockerd does not answer at %s (rcbench engines "
                           "start docker)" % conf.docker_url)
        if not cls.oci.docker_builtin:
            return super().check(conf)
        return True, "docker CLI, %s" % cls.runtime
