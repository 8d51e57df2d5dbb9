"""Cinder volumes for Nova servers: create, attach, detach, delete.

The driver gets a cinderclient and a novaclient from the scenario (the
Rally environment's credentials); no Rally import here. Every wait polls
every [container_bench] nova_poll_interval s and fails on the volume's
error states with Cinder's own status.
"""

import dataclasses

from rally_container_bench.core import base

_ERROR_STATES = ("error", "error_deleting", "error_extending",
                 "error_restoring", "error_managing")


@dataclasses.dataclass(frozen=True)
class VolumeRequest:
    size_gb: int = 1
    volume_type: str | None = None


def backend_of(host):
    """Cinder's "host@backend#pool" -> "backend" (None if unknown)."""
    if not host or "@" not in host:
        return None
    return host.split("@", 1)[1].split("#", 1)[0] or None


def with_volume(tuning, backend):
    """The tuning label with "volume-<backend>" appended.

    It keeps the rows of servers whose tests ran on a volume apart from
    those on their root disk: "none" -> "volume-ceph",
    "mem_page_size-large" -> "mem_page_size-large+volume-ceph".
    """
    part = "volume-%s" % backend
    return part if tuning in (None, "", "none") else "%s+%s" % (tuning, part)


def volume_facts(volume, request):
    """Facts for the report: what the work directory is on."""
    backend = (backend_of(volume.get("os-vol-host-attr:host"))
               or volume.get("volume_type") or "cinder")
    return {"workdir_storage": "cinder volume (%s, %d GiB)"
            % (backend, request.size_gb),
            "volume_backend": backend,
            "volume_type": volume.get("volume_type")}


class CinderVolumes:
    """Volumes of one project, attached to servers of the same project."""

    def __init__(self, cinder, nova, conf, admin_cinder=None):
        self.cinder = cinder
        self.nova = nova
        # os-vol-host-attr:host (the backend) is admin-only by default.
        self.admin_cinder = admin_cinder
        self.conf = conf

    def check_type(self, volume_type):
        """DriverError naming the known types for an unknown one."""
        if volume_type is None:
            return
        types = self.cinder.volume_types.list()
        names = [t.name for t in types]
        if volume_type not in names + [t.id for t in types]:
            raise base.DriverError(
                "volume type %r does not exist (the cloud has: %s)"
                % (volume_type, ", ".join(sorted(names)) or "none"))

    def create(self, name, request, timeout):
        volume = self.cinder.volumes.create(
            request.size_gb, name=name, volume_type=request.volume_type)
        self._wait_status(volume.id, ("available",), timeout,
                          "volume %s available" % name)
        return volume.id

    def attach(self, server_id, volume_id, timeout):
        self.nova.volumes.create_server_volume(server_id, volume_id)
        self._wait_status(volume_id, ("in-use",), timeout,
                          "volume %s attached" % volume_id)

    def detach(self, server_id, volume_id, timeout):
        self.nova.volumes.delete_server_volume(server_id, volume_id)
        self._wait_status(volume_id, ("available",), timeout,
                          "volume %s detached" % volume_id)

    def delete(self, volume_id, timeout):
        from cinderclient import exceptions as cinder_exceptions

        self.cinder.volumes.delete(volume_id)

        def gone():
            try:
                status = self.cinder.volumes.get(volume_id).status
            except cinder_exceptions.NotFound:
                return True
            if status in _ERROR_STATES:
                raise base.DriverError("volume %s went to %s while being "
                                       "deleted" % (volume_id, status))
            return False
        base.wait_until(gone, timeout, self.conf.nova_poll_interval,
                        "volume %s gone" % volume_id)

    def describe(self, volume_id):
        cinder = self.admin_cinder or self.cinder
        return cinder.volumes.get(volume_id).to_dict()

    def _wait_status(self, volume_id, wanted, timeout, what):
        def reached():
            status = self.cinder.volumes.get(volume_id).status
            if status in _ERROR_STATES:
                raise base.DriverError("%s: the volume went to %s"
                                       % (what, status))
            return status in wanted
        base.wait_until(reached, timeout, self.conf.nova_poll_interval, what)
