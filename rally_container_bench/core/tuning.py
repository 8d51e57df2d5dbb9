"""Tuning knobs of a local container or VM, validated. Pure: no I/O.

    tuning: {network: host, cpuset: "1", workdir_volume: true}   containers
    tuning: {disk_cache: writeback, disk_bus: scsi, cpuset: "1",
             hugepages: true}                                     kvm

network host: the container shares the host's network namespace (no bridge, no
NAT); its sshd then listens on a free loopback port of the host. cpuset: the
host CPUs it may run on (Docker's/Podman's --cpuset-cpus). workdir_volume: the
work directory of the tests is an anonymous volume (a directory of the host's
filesystem) instead of the container's overlay, the difference the NetAdmin
tuning article measures for fileio. What was set goes into the iteration's
environment and the platform's label, so the comparison report separates tuned
from untuned runs.

VMs (the NetAdmin tuning article, the KEK talk's "tuned KVM"): disk_cache is
the QEMU cache mode of the disk (none by default, as Nova's default for local
disks), disk_bus virtio (virtio-blk) or scsi (virtio-scsi), cpuset pins every
vCPU to those host CPUs, hugepages backs the guest's memory with the host's
huge pages (reserved beforehand: /proc/sys/vm/nr_hugepages).
"""

import dataclasses
import re

NETWORKS = ("bridge", "host")
VOLUME_MOUNT = "/rcbench-volume"
CONTAINER_DRIVERS = ("docker", "podman-runc", "podman-crun")
VM_DRIVERS = ("kvm",)
SUPPORTED_DRIVERS = CONTAINER_DRIVERS + VM_DRIVERS
DISK_CACHES = ("none", "writeback", "writethrough", "directsync", "unsafe")
DISK_BUSES = ("virtio", "scsi")
_CPUSET_RE = re.compile(r"^[0-9]+(-[0-9]+)?(,[0-9]+(-[0-9]+)?)*$")


class TuningError(ValueError):
    """The tuning mapping is invalid; the text says how."""


class _Tuning:
    """What both kinds share: cpuset, defaults, the label's parts."""

    def _check_cpuset(self):
        if self.cpuset is not None and (
                not isinstance(self.cpuset, str)
                or not _CPUSET_RE.match(self.cpuset)):
            raise TuningError("tuning.cpuset must be host CPUs such as "
                              "\"0\", \"0-1\" or \"0,2\", not %r"
                              % (self.cpuset,))

    @property
    def is_default(self):
        return self == type(self)()

    def label(self):
        """"" untuned; else its parts joined by "+"."""
        return "+".join(self._label_parts())

    def cpus(self):
        """The set of CPU numbers of cpuset (empty without one)."""
        found = set()
        for part in (self.cpuset or "").split(","):
            if part:
                first, _, last = part.partition("-")
                found.update(range(int(first), int(last or first) + 1))
        return found


@dataclasses.dataclass(frozen=True)
class ContainerTuning(_Tuning):
    network: str = "bridge"
    cpuset: str | None = None
    workdir_volume: bool = False

    def __post_init__(self):
        _check_choice("network", self.network, NETWORKS)
        self._check_cpuset()
        if not isinstance(self.workdir_volume, bool):
            raise TuningError("tuning.workdir_volume must be true or "
                              "false, not %r" % (self.workdir_volume,))

    def _label_parts(self):
        """e.g. hostnet, cpuset1, volume."""
        if self.network == "host":
            yield "hostnet"
        if self.cpuset is not None:
            yield "cpuset" + self.cpuset
        if self.workdir_volume:
            yield "volume"

    def describe(self):
        return {"tuning": self.label() or "none",
                "network_mode": self.network,
                "cpuset": self.cpuset or "",
                "workdir_storage": ("volume" if self.workdir_volume
                                    else "overlay")}


@dataclasses.dataclass(frozen=True)
class VmTuning(_Tuning):
    disk_cache: str = "none"
    disk_bus: str = "virtio"
    cpuset: str | None = None
    hugepages: bool = False

    def __post_init__(self):
        _check_choice("disk_cache", self.disk_cache, DISK_CACHES)
        _check_choice("disk_bus", self.disk_bus, DISK_BUSES)
        self._check_cpuset()
        if not isinstance(self.hugepages, bool):
            raise TuningError("tuning.hugepages must be true or false, "
                              "not %r" % (self.hugepages,))

    def _label_parts(self):
        """e.g. cache-writeback, scsi, cpuset1, hugepages."""
        if self.disk_cache != "none":
            yield "cache-" + self.disk_cache
        if self.disk_bus != "virtio":
            yield self.disk_bus
        if self.cpuset is not None:
            yield "cpuset" + self.cpuset
        if self.hugepages:
            yield "hugepages"

    def describe(self):
        return {"tuning": self.label() or "none",
                "disk_cache": self.disk_cache,
                "disk_bus": ("virtio-scsi" if self.disk_bus == "scsi"
                             else "virtio-blk"),
                "cpuset": self.cpuset or "",
                "memory_backing": ("hugepages" if self.hugepages
                                   else "anonymous")}


def kind_for(driver):
    return VmTuning if driver in VM_DRIVERS else ContainerTuning


def from_dict(fields, driver=None):
    """The tuning of a driver (kvm: VM knobs; else container knobs)."""
    kind = kind_for(driver)
    if fields is None:
        return kind()
    if not isinstance(fields, dict):
        raise TuningError("tuning must be a mapping, not %r" % (fields,))
    known = {f.name for f in dataclasses.fields(kind)}
    unknown = sorted(set(fields) - known)
    if unknown:
        raise TuningError("unknown tuning knob(s) %s for %s; known: %s"
                          % (", ".join(unknown), driver or "containers",
                             ", ".join(sorted(known))))
    return kind(**fields)


def _check_choice(field, value, choices):
    if value not in choices:
        raise TuningError("tuning.%s must be one of %s, not %r"
                          % (field, ", ".join(choices), value))
