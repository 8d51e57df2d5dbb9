"""Tuning knobs of a local container, validated. Pure: no I/O.

    tuning: {network: host, cpuset: "1", workdir_volume: true}

network host: the container shares the host's network namespace (no
bridge, no NAT); its sshd then listens on a free loopback port of the
host. cpuset: the host CPUs it may run on (Docker's/Podman's
--cpuset-cpus). workdir_volume: the work directory of the tests is an
anonymous volume (a directory of the host's filesystem) instead of the
container's overlay, the difference seed 002 measures for fileio. What was
set goes into the iteration's environment and the platform's label, so the
comparison report separates tuned from untuned runs.
"""

import dataclasses
import re

NETWORKS = ("bridge", "host")
VOLUME_MOUNT = "/rcbench-volume"
SUPPORTED_DRIVERS = ("docker", "podman-runc", "podman-crun")
_CPUSET_RE = re.compile(r"^[0-9]+(-[0-9]+)?(,[0-9]+(-[0-9]+)?)*$")


class TuningError(ValueError):
    """The tuning mapping is invalid; the text says how."""


@dataclasses.dataclass(frozen=True)
class ContainerTuning:
    network: str = "bridge"
    cpuset: str | None = None
    workdir_volume: bool = False

    def __post_init__(self):
        if self.network not in NETWORKS:
            raise TuningError("tuning.network must be one of %s, not %r"
                              % (", ".join(NETWORKS), self.network))
        if self.cpuset is not None and (
                not isinstance(self.cpuset, str)
                or not _CPUSET_RE.match(self.cpuset)):
            raise TuningError("tuning.cpuset must be host CPUs such as "
                              "\"0\", \"0-1\" or \"0,2\", not %r"
                              % (self.cpuset,))
        if not isinstance(self.workdir_volume, bool):
            raise TuningError("tuning.workdir_volume must be true or "
                              "false, not %r" % (self.workdir_volume,))

    @property
    def is_default(self):
        return self == ContainerTuning()

    def cpus(self):
        """The set of CPU numbers of cpuset (empty without one)."""
        found = set()
        for part in (self.cpuset or "").split(","):
            if part:
                first, _, last = part.partition("-")
                found.update(range(int(first), int(last or first) + 1))
        return found

    def label(self):
        """"" untuned; else e.g. "hostnet+cpuset1+volume"."""
        parts = []
        if self.network == "host":
            parts.append("hostnet")
        if self.cpuset is not None:
            parts.append("cpuset" + self.cpuset)
        if self.workdir_volume:
            parts.append("volume")
        return "+".join(parts)

    def describe(self):
        return {"tuning": self.label() or "none",
                "network_mode": self.network,
                "cpuset": self.cpuset or "",
                "workdir_storage": ("volume" if self.workdir_volume
                                    else "overlay")}


def from_dict(fields):
    if fields is None:
        return ContainerTuning()
    if not isinstance(fields, dict):
        raise TuningError("tuning must be a mapping, not %r" % (fields,))
    known = {f.name for f in dataclasses.fields(ContainerTuning)}
    unknown = sorted(set(fields) - known)
    if unknown:
        raise TuningError("unknown tuning knob(s) %s; known: %s"
                          % (", ".join(unknown), ", ".join(sorted(known))))
    return ContainerTuning(**fields)
