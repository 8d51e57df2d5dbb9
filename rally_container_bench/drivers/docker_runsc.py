"""Docker with gVisor's runsc: the sandboxed container.

The same containers, network and SSH publishing as the docker driver;
dockerd starts them with the runtime registered as ``runsc``
(``rcbench engines start docker`` registers it with the flags of
[container_bench] runsc_platform / runsc_network). The flags recorded
with each result are the ones dockerd really has, read back from it.
"""

import docker

from rally_container_bench.drivers import docker as docker_driver
from rally_container_bench.drivers import gvisor


def registered_flags(info):
    """runsc's flags as dockerd registered them (``docker info``), or None."""
    runtime = (info.get("Runtimes") or {}).get(gvisor.RUNTIME)
    if runtime is None:
        return None
    return list(runtime.get("runtimeArgs") or [])


class DockerRunscDriver(docker_driver.DockerDriver):
    name = "docker-runsc"
    runtime = gvisor.RUNTIME

    @classmethod
    def check(cls, conf):
        if not gvisor.installed():
            return False, "runsc is not installed (apt: runsc)"
        ok, why = super().check(conf)
        if not ok:
            return ok, why
        client = docker.DockerClient(base_url=conf.docker_url, timeout=5)
        try:
            flags = registered_flags(client.info())
        finally:
            client.close()
        if flags is None:
            return False, (
                "dockerd at %s has no runtime named runsc: restart it with "
                "rcbench engines stop docker && rcbench engines start docker"
                " (which registers it), or add to its daemon.json: "
                '"runtimes": {"runsc": {"path": "/usr/bin/runsc", '
                '"runtimeArgs": ["%s"]}}'
                % (conf.docker_url, '", "'.join(gvisor.runtime_flags(conf))))
        return True, "%s; %s registered as runsc %s" % (
            why, gvisor.version() or "runsc", " ".join(flags))

    def describe(self):
        with self._api("info"):
            flags = registered_flags(self.client.info()) or []
        return gvisor.described(super().describe(), flags)
