"""Podman's lifecycle view: the podman CLI, as ptcr drives it.

On hybrid-cgroup hosts inside the mount namespace ``rcbench engines start
podman`` holds (core.mounts), as the instance view.
"""

from rally_container_bench.engines.oci import cli
from rally_container_bench.engines.podman import instance


class PodmanCli(cli.RuntimeCli):
    name = "podman-runc"
    instance_class = instance.PodmanDriver
    cli_name = "podman"
    force_flags = ("-f", "-v", "-t", "0")

    def __init__(self, image, conf):
        super().__init__(image, conf)
        self._podman = self.instance_driver()(None, conf)

    def _cli(self, *args, timeout=None):
        return self._podman.command(*args, timeout=timeout)

    def registered_flags(self):
        return self._podman.runtime_flags()

    def describe(self):
        version = self._checked("version", "--format",
                                "{{.Client.Version}}").strip()
        return dict(super().describe(), engine_version="podman " + version)
