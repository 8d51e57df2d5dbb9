"""Zun's containers as a rally-openstack cleanup resource (it has none).

Registered with rally-openstack's cleanup manager as ``zun.containers``,
so a task may name it (``cleanup@openstack: [zun]``); the rcbench_zun
context and ``rcbench cleanup --env`` list, delete and wait through it.

As a user: that user's containers, deleted with stop. As the admin (no
user): every project's, force-deleted, since Zun's default policy lets
only an admin force a delete (of a container still Creating, say).
"""

from rally.common import opts as rally_opts
from rally_openstack.common.cfg import cleanup as cleanup_opts

# cleanup.base reads two of these as it is imported; Rally registers them
# when it loads plugins, this module may be imported before (the rcbench
# CLI). The same option objects: registering them again is a no-op.
rally_opts.register_opts(cleanup_opts.OPTS.items())

from rally_openstack.task.cleanup import base as cleanup_base  # noqa: E402


# after Magnum's clusters, before Nova's servers and Neutron's ports:
# kuryr frees a container's port only once Zun deleted the container
@cleanup_base.resource("zun", "containers", order=150, tenant_resource=True)
class ZunContainer(cleanup_base.ResourceManager):
    """One Zun container; ``admin``, ``user``: Rally's OpenStack clients."""

    def _as_admin(self):
        return self.user is None

    def _scope(self):
        return {"all_projects": True} if self._as_admin() else {}

    def _manager(self):
        return (self.user or self.admin).zun().containers

    def id(self):
        return self.raw_resource.uuid

    def list(self):
        return self._manager().list(**self._scope())

    def delete(self):
        if self._as_admin():
            self._manager().delete(self.id(), force=True, all_projects=True)
        else:
            self._manager().delete(self.id(), stop=True)

    def is_deleted(self):
        return self.gone(self.id())

    def gone(self, uuid):
        """True when Zun no longer knows the container uuid (in view)."""
        from zunclient import exceptions as zun_exceptions
        try:
            self._manager().get(uuid, **self._scope())
        except zun_exceptions.NotFound:
            return True
        return False

    def of(self, raw_resource):
        """The same view (admin or user) of another container."""
        return type(self)(resource=raw_resource, admin=self.admin,
                          user=self.user)
