"""The OCI runtimes: one entry each; every engine that runs one follows it.

An entry says what is specific to a runtime: its binary and package, its
global flags (chosen by the configuration), how it spells run --detach,
list --quiet and delete --force, whether it needs podman's mount namespace
on hybrid-cgroup hosts, whether it is a sandbox (the workload runs inside
the runtime's own kernel, so all of its memory is the instance's), the
facts recorded with each result, and which engines offer it:

- ``docker``: dockerd starts containers with it (registered in dockerd's
  config by ``rcbench engines start docker`` unless dockerd has it built
  in); engine ``docker-<runtime>``, and plain ``docker`` for runc;
- ``podman``: ``podman --runtime <binary>``; engine ``podman-<runtime>``;
- ``bare``: the runtime on an OCI bundle, no engine above it (lifecycle
  view only); engine ``<runtime>``.

engines.catalog turns each entry into those engines, for the instance view
(a Debian guest with sshd) and the lifecycle view (busybox) alike. Adding a
runtime is one entry here plus a sample (the guide: "Adding an engine").
"""

import dataclasses
import functools
import json
import shutil
import typing

from rally_container_bench.engines.oci import gvisor

DOCKER, PODMAN, BARE = "docker", "podman", "bare"


def _no_flags(conf):
    return []


def _no_facts(flags):
    return {}


@dataclasses.dataclass(frozen=True)
class Runtime:
    name: str
    #: the engines that offer it (DOCKER, PODMAN, BARE)
    engines: tuple = (DOCKER, PODMAN, BARE)
    #: its Debian package, for "not installed" messages
    package: str = ""
    #: global flags under docker and podman, from the configuration
    flags: typing.Callable = _no_flags
    #: global flags on a bare bundle (no network there); default: flags
    bare_flags: typing.Callable = None
    #: its spelling of run --detach, list --quiet, delete --force
    detach_flag: str = "-d"
    quiet_flag: str = "-q"
    force_flag: str = "-f"
    #: crun 1.8 refuses hybrid cgroups: run in podman's mount namespace
    needs_cgroup_namespace: bool = False
    #: the workload runs in the runtime's own kernel (gVisor's Sentry)
    sandbox: bool = False
    #: environment entries of an instance started with these flags
    facts: typing.Callable = _no_facts
    #: dockerd knows it without a daemon.json entry
    docker_builtin: bool = False
    #: (a container driver's describe() facts, flags) -> those of this
    #: runtime; default: the facts added
    described: typing.Callable = None

    @property
    def binary(self):
        return self.name

    def installed(self):
        return shutil.which(self.binary) is not None

    def missing(self):
        """'runsc is not installed (apt: runsc)'."""
        return "%s is not installed (apt: %s)" % (
            self.binary, self.package or self.binary)

    def bare_global_flags(self, conf):
        return (self.bare_flags or self.flags)(conf)

    def instance_facts(self, facts, flags):
        """An instance driver's describe() facts, with this runtime's."""
        if self.described is not None:
            return self.described(facts, flags)
        return dict(facts, **self.facts(flags))


def _runsc_bare_flags(conf):
    # The busybox loop of the lifecycle view needs no network.
    return ["--platform=" + conf.runsc_platform, "--network=none"]


RUNTIMES = {
    "runc": Runtime("runc", docker_builtin=True),
    # crun under dockerd: Debian's dockerd has no way into podman's mount
    # namespace, and crun 1.8 refuses this host's hybrid cgroups without it.
    "crun": Runtime("crun", engines=(PODMAN, BARE),
                    needs_cgroup_namespace=True),
    "runsc": Runtime(gvisor.RUNTIME, flags=gvisor.runtime_flags,
                     bare_flags=_runsc_bare_flags, detach_flag="--detach",
                     quiet_flag="--quiet", force_flag="--force",
                     sandbox=True, facts=gvisor.facts_of,
                     described=gvisor.described),
}


def engine_name(engine, runtime):
    """The name task files use: docker, docker-runsc, podman-crun, runc."""
    if engine == BARE:
        return runtime
    if engine == DOCKER and RUNTIMES[runtime].docker_builtin:
        return DOCKER
    return "%s-%s" % (engine, runtime)


def offered():
    """[(engine name, engine, runtime name)] of every entry, sorted."""
    return sorted((engine_name(engine, name), engine, name)
                  for name, runtime in RUNTIMES.items()
                  for engine in runtime.engines)


def docker_runtimes(conf):
    """dockerd's ``runtimes`` entries for the installed runtimes it lacks."""
    return {runtime.name: {"path": shutil.which(runtime.binary),
                           "runtimeArgs": runtime.flags(conf)}
            for runtime in RUNTIMES.values()
            if DOCKER in runtime.engines and not runtime.docker_builtin
            and runtime.installed()}


def dockerd_config(conf, host_config_text=None):
    """dockerd's config: the host's own (if any) plus our runtimes.

    Keys given on dockerd's command line by ``rcbench engines start``
    are left out: dockerd refuses a directive set both ways. ValueError
    where the host's text is not JSON.
    """
    config = json.loads(host_config_text) if host_config_text else {}
    for key in ("hosts", "pidfile"):
        config.pop(key, None)
    ours = docker_runtimes(conf)
    if ours:
        config["runtimes"] = dict(config.get("runtimes") or {}, **ours)
    return config


@functools.lru_cache(maxsize=None)
def with_runtime(cls, name, runtime):
    """The engine class ``cls`` running entry ``runtime``, named ``name``.

    What task files call ``name`` (docker-runsc, podman-crun, runc): one
    class per (class, name), so both views and the catalog share it.
    """
    oci = RUNTIMES[runtime]
    return type("%s_%s" % (cls.__name__, name.replace("-", "_")), (cls,),
                {"name": name, "oci": oci, "runtime": oci.binary,
                 "__module__": cls.__module__})
