"""Zun containers Rally named, left in a cloud (rcbench cleanup --env).

rally-openstack's resource cleanup knows no Zun, and the rcbench_zun
context cleans only at the end of a workload: a Rally that was killed, or
a container whose delete Zun refused in its iteration, leaves some. With
the environment's admin they are listed in every project and
force-deleted (Zun's default policy); with a user only, the user's own,
deleted with stop.
"""

from rally_container_bench.core import base

POLL_INTERVAL = 1.0


class Cloud:
    """The Zun client of a Rally environment, as its admin or first user."""

    def __init__(self, zun, as_admin):
        self.zun = zun
        self.as_admin = as_admin

    @classmethod
    def of_env(cls, env_name, config_file=None):
        from rally import api as rally_api
        from rally.env import env_mgr
        from rally import plugins
        from rally_openstack.common import osclients

        # the "zun" client (rally-openstack has none)
        from rally_container_bench.task import zun_client  # noqa: F401

        rally_api.API(config_file=config_file)  # Rally's DB, configured
        plugins.load()  # rally-openstack's options (its clients read them)
        platforms = env_mgr.EnvManager.get(env_name).data["platforms"]
        data = (platforms.get("openstack") or {}).get("platform_data")
        if not data:
            raise ValueError("Rally environment %s has no OpenStack "
                             "platform" % env_name)
        api_info = data.get("api_info") or {}
        if data.get("admin"):
            return cls(osclients.Clients(dict(
                data["admin"], api_info=api_info)).zun(), True)
        if not data.get("users"):
            raise ValueError("Rally environment %s has no credentials"
                             % env_name)
        return cls(osclients.Clients(dict(
            data["users"][0], api_info=api_info)).zun(), False)

    def leftovers(self, matches):
        """The containers whose names ``matches`` (Rally generated them)."""
        kwargs = {"all_projects": True} if self.as_admin else {}
        return [c for c in self.zun.containers.list(**kwargs)
                if c.name and matches(c.name)]

    def delete(self, container, timeout):
        """Delete one, in any state the policy allows; wait it gone."""
        from zunclient import exceptions as zun_exceptions

        if self.as_admin:
            self.zun.containers.delete(container.uuid, force=True,
                                       all_projects=True)
        else:
            self.zun.containers.delete(container.uuid, stop=True)
        kwargs = {"all_projects": True} if self.as_admin else {}

        def gone():
            try:
                self.zun.containers.get(container.uuid, **kwargs)
            except zun_exceptions.NotFound:
                return True
            return False
        base.wait_until(gone, timeout, POLL_INTERVAL,
                        "Zun container %s (%s) gone"
                        % (container.name, container.uuid))
