"""rcbench_zun: what ZunContainers scenarios need besides Rally's contexts.

A default context of every ZunContainers scenario.

Setup: where the environment has admin credentials, a security group in
the admin's project that lets ICMP and SSH in. A container created with a
runtime belongs to the admin's project (choosing a runtime is admin-only in
Zun's default policy), and Zun looks its security groups up in that
project, so the users' group (Rally's allow_ssh) cannot be used there.

Quotas: with admin credentials, Zun's quotas (containers, cpu, memory,
disk) of every project that creates the workload's containers (the
users', and the admin's) are lifted for the workload and put back after:
Zun's defaults (40 containers, 20 vCPUs) stop KEK's 32-at-once ladder,
and rally-openstack's quotas context knows no Zun.

Cleanup (also after failures and aborts): through this plugin's Zun
resource of rally-openstack's cleanup (task/zun_resource), the containers
of the task's users and the admin's whose names the workload's scenario
generated are deleted and waited gone; then the admin's group. Its order
puts it before rcbench_guest's cleanup: the image goes after the
containers that use it.
"""

import time

from rally.common import logging
from rally.task import context
from rally.task import scenario

from rally_container_bench.core import abort
from rally_container_bench.core import base
from rally_container_bench import opts
from rally_container_bench.task import zun_resource

LOG = logging.getLogger(__name__)
QUOTAS = ("containers", "cpu", "memory", "disk")
RULES = ({"protocol": "icmp"},
         {"protocol": "tcp", "port_range_min": 22, "port_range_max": 22})


@context.configure(name="rcbench_zun", platform="openstack", order=420,
                   hidden=True)
class ZunContext(context.Context):
    """What ZunContainers scenarios need besides Rally's own contexts.

    With admin credentials: a security group in the admin's project that
    lets ICMP and SSH in, and Zun's quotas of the workload's projects
    lifted; at the end, the workload's containers deleted. A default of
    every ZunContainers scenario.
    """

    CONFIG_SCHEMA = {"type": "object", "additionalProperties": False}

    def setup(self):
        self.context["rcbench_zun"] = {}
        admin = self.context.get("admin")
        if not admin:
            return
        self._lift_quotas(admin["credential"].clients().zun())
        neutron = admin["credential"].clients().neutron()
        group = neutron.create_security_group({"security_group": {
            "name": self.generate_random_name(),
            "description": "rally-container-bench: ICMP and SSH in, for "
                           "Zun containers owned by the admin"}})
        group_id = group["security_group"]["id"]
        self.context["rcbench_zun"]["admin_secgroup_id"] = group_id
        for rule in RULES:
            neutron.create_security_group_rule({"security_group_rule": dict(
                rule, direction="ingress", ethertype="IPv4",
                remote_ip_prefix="0.0.0.0/0", security_group_id=group_id)})

    def _projects(self):
        projects = {user["tenant_id"] for user in self.context.get("users",
                                                                   [])}
        admin = self.context["admin"]["credential"]
        projects.add(admin.clients().keystone.auth_ref.project_id)
        return sorted(projects)

    def _lift_quotas(self, zun):
        """No Zun quota limits the workload's projects (put back after)."""
        saved = self.context["rcbench_zun"]["saved_quotas"] = {}
        for project in self._projects():
            before = zun.quotas.get(project)
            saved[project] = {key: getattr(before, key)
                              for key in QUOTAS if hasattr(before, key)}
            zun.quotas.update(project, **{key: -1 for key in QUOTAS})

    def _restore_quotas(self, zun):
        for project, values in self.context.get("rcbench_zun", {}).get(
                "saved_quotas", {}).items():
            try:
                zun.quotas.update(project, **values)
            except Exception as e:
                LOG.warning("rcbench_zun cleanup: Zun quotas of project %s "
                            "not put back to %s: %s" % (project, values, e))

    def _views(self):
        """Zun resource views: each user's, then the admin's.

        Only an admin may force a delete under Zun's default policy.
        """
        for user in self.context.get("users", []):
            yield zun_resource.ZunContainer(
                user=user["credential"].clients())
        if self.context.get("admin"):
            yield zun_resource.ZunContainer(
                admin=self.context["admin"]["credential"].clients())

    def cleanup(self):
        owner = scenario.Scenario.get(self.context["scenario_name"])
        owner_id = self.get_owner_id()
        for view in self._views():
            try:
                found = [c for c in view.list()
                         if c.name and owner.name_matches_object(
                             c.name, task_id=owner_id)]
            except Exception as e:
                LOG.warning("rcbench_zun cleanup: cannot list containers: "
                            "%s" % e)
                continue
            for container in found:
                self._delete(view.of(container))
        if self.context.get("admin"):
            self._restore_quotas(
                self.context["admin"]["credential"].clients().zun())
        group_id = self.context.get("rcbench_zun", {}).get(
            "admin_secgroup_id")
        if group_id:
            try:
                with abort.shielded():
                    clients = self.context["admin"]["credential"].clients()
                    _delete_security_group(
                        clients.neutron(), group_id,
                        zun_resource.ZunContainer(admin=clients))
            except Exception as e:
                LOG.warning("rcbench_zun cleanup: security group %s not "
                            "deleted: %s" % (group_id, e))

    @staticmethod
    def _delete(container):
        LOG.warning("cleanup: deleting leftover Zun container %s"
                    % container.name())
        try:
            container.delete()
            with abort.shielded():  # an aborted task's leftovers go too
                base.wait_until(container.is_deleted,
                                opts.register().delete_timeout, 1,
                                "Zun container %s gone" % container.name())
        except Exception as e:
            LOG.warning("cleanup: Zun container %s not deleted: %s"
                        % (container.name(), e))


def _delete_security_group(neutron, group_id, zun=None, interval=2,
                           grace=20):
    """Delete the admin's group once no port holds it any more.

    Zun has forgotten a deleted container before its Neutron port is gone
    (kuryr removes it afterwards): deleted at once, the group was "in use"
    (HTTP 409) and stayed, one per workload, until Neutron's quota of 10
    groups refused every later Zun workload with admin rights (seen on the
    test cloud). A port still holding it after grace seconds whose
    container Zun does not know is Zun's orphan (zun (Zed) starts a
    container force-deleted in Creating later anyway): deleted, and named.
    """
    from neutronclient.common import exceptions as neutron_exceptions
    started = time.monotonic()

    def deleted():
        try:
            neutron.delete_security_group(group_id)
        except neutron_exceptions.NotFound:
            return True
        except neutron_exceptions.Conflict:
            if zun is not None and time.monotonic() - started > grace:
                _delete_orphan_ports(neutron, zun, group_id)
            return False
        return True
    base.wait_until(deleted, opts.register().delete_timeout, interval,
                    "security group %s deleted (its ports gone)" % group_id)


def _delete_orphan_ports(neutron, zun, group_id):
    for port in neutron.list_ports()["ports"]:
        if group_id not in port.get("security_groups", ()):
            continue
        if not zun.gone(port["device_id"]):
            continue
        LOG.warning("rcbench_zun cleanup: port %s of container %s, which "
                    "Zun no longer knows, held the security group: deleted "
                    "(Zun's orphan: its Docker container zun-%s may still "
                    "run on its compute host)"
                    % (port["id"], port["device_id"], port["device_id"]))
        neutron.delete_port(port["id"])
