"""What a task left in a cloud (rcbench cleanup --env).

Zun containers Rally named: the rcbench_zun context cleans only at the
end of a workload: a Rally that was killed, or a container whose delete
Zun refused in its iteration, leaves some. They go through this plugin's
Zun resource of rally-openstack's cleanup (task/zun_resource): with the
environment's admin, listed in every project and force-deleted (Zun's
default policy); with a user only, the user's own, deleted with stop.

The tasks' shared guest images (task/contexts/guest_share.py), which the
task's last workload deletes, and the flavors each workload makes
(marked by task/contexts/flavor_owner.py), which its end deletes: a
Rally killed before that leaves them. With the admin, those of tasks
that no longer run are listed and deleted.

The projects and users of Rally's ``users`` context (``c_rally_<the
workload's uuid>_…``), which its cleanup deletes at the workload's end:
with the admin and a task named (``--task``), its workloads' are deleted
too; without one nothing tells a killed task's from a running one's.
"""

from rally_container_bench.core import base

POLL_INTERVAL = 1.0


class Cloud:
    """The Zun client of a Rally environment, as its admin or first user."""

    def __init__(self, clients, as_admin):
        self.clients = clients
        self.as_admin = as_admin

    @property
    def zun(self):
        return self.clients.zun()

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
                data["admin"], api_info=api_info)), True)
        if not data.get("users"):
            raise ValueError("Rally environment %s has no credentials"
                             % env_name)
        return cls(osclients.Clients(dict(
            data["users"][0], api_info=api_info)), False)

    def compute_hosts(self):
        """The compute hosts the env's credentials see, by service.

        {"nova": [...], "zun": [...]}; a service that cannot list them
        (no admin, not deployed) says why instead.
        """
        found = {}
        for service, listing in (
                ("nova", lambda: [h.service["host"] for h in
                                  self.clients.nova().hypervisors.list()]),
                ("zun", lambda: [h.hostname for h in self.zun.hosts.list()])):
            try:
                found[service] = sorted(set(listing()))
            except Exception as e:
                found[service] = "not listed (%s)" % (
                    str(e).splitlines() or [type(e).__name__])[0][:160]
        return found

    def _zun_view(self):
        from rally_container_bench.task import zun_resource

        if self.as_admin:
            return zun_resource.ZunContainer(admin=self.clients)
        return zun_resource.ZunContainer(user=self.clients)

    def leftovers(self, matches):
        """The containers whose names ``matches`` (Rally generated them)."""
        return [c for c in self._zun_view().list()
                if c.name and matches(c.name)]

    def delete(self, container, timeout):
        """Delete one, in any state the policy allows; wait it gone."""
        resource = self._zun_view().of(container)
        resource.delete()
        base.wait_until(resource.is_deleted, timeout, POLL_INTERVAL,
                        "Zun container %s (%s) gone"
                        % (container.name, container.uuid))

    def shared_images(self, task_ids=None):
        """The tasks' shared guest images left: [(image, why)].

        task_ids: those of these tasks; else those of every task this
        Rally knows that no longer runs (an unknown task's are left: it
        may be another Rally's, running).
        """
        from rally_container_bench.task.contexts import guest_share

        def find(running):
            return [(image, image[guest_share.TASK_PROPERTY])
                    for image in guest_share.leftovers(
                        self.clients.glance("2"), running)]
        return self._of_tasks(find, task_ids)

    def delete_image(self, image):
        self.clients.glance("2").images.delete(image["id"])

    def flavors(self, task_ids=None):
        """The tasks' own flavors left: [(flavor, why)], as shared_images."""
        from rally_container_bench.task.contexts import flavor_owner

        return self._of_tasks(
            lambda running: flavor_owner.leftovers(self.clients.nova(),
                                                   running), task_ids)

    def rally_users(self, owners):
        """[(kind, thing, delete)] of the projects and users of owners.

        owners: the uuids of the task's workloads (Rally names a
        context's resources after them); admin only.
        """
        from rally.task import context

        if not self.as_admin or not owners:
            return []

        def made_for_owners(name):
            return any(context.Context.name_matches_object(name, task_id=o)
                       for o in owners)
        keystone = self.clients.keystone("3")
        return [(kind, thing, manager.delete)
                for kind, manager in (("user", keystone.users),
                                      ("project", keystone.projects))
                for thing in manager.list() if made_for_owners(thing.name)]

    def _of_tasks(self, find, task_ids):
        """[(thing, why)] of find(running) -> [(thing, its task)].

        Admin only (find is not called otherwise): a user sees no other
        project's images and cannot delete flavors.
        """
        if not self.as_admin:
            return []
        if task_ids is not None:
            wanted = set(task_ids)
            return [(thing, "of task %s" % task)
                    for thing, task in find(lambda t: t not in wanted)]
        return [(thing, "of task %s, which no longer runs" % task)
                for thing, task in find(_still_runs)]


def _still_runs(task_id):
    """True unless this Rally knows the task and it ended."""
    from rally.common import objects
    from rally import consts

    try:
        status = objects.Task.get_status(task_id)
    except Exception:
        return True  # not this Rally's: perhaps another's, running
    return status not in (consts.TaskStatus.FINISHED,
                          consts.TaskStatus.ABORTED,
                          consts.TaskStatus.CRASHED,
                          consts.TaskStatus.VALIDATION_FAILED)
