"""task/zun_resource: Zun's containers in rally-openstack's cleanup.

The Zun API is a stand-in here (no Zun runs in the unit tests); the real
one is driven by tests/functional_openstack (test_zun_creating: rcbench
cleanup --env; test_killed_rally; every Zun task's rcbench_zun cleanup).
"""

import types
import unittest
from unittest import mock

from zunclient import exceptions as zun_exceptions

from rally_container_bench.task import zun_resource


def _clients(known=("c1",)):
    containers = mock.Mock()
    containers.list.return_value = [types.SimpleNamespace(
        uuid=u, name="s_rally_%s" % u) for u in known]

    def get(uuid, **kwargs):
        if uuid not in known:
            raise zun_exceptions.NotFound("gone")
        return mock.Mock()
    containers.get.side_effect = get
    return mock.Mock(zun=lambda: types.SimpleNamespace(
        containers=containers)), containers


class ZunContainerTestCase(unittest.TestCase):

    def test_rally_openstacks_cleanup_finds_it_by_name(self):
        from rally_openstack.task.cleanup import manager
        found = manager.find_resource_managers(["zun"])
        self.assertIn(zun_resource.ZunContainer, found)
        self.assertIn("zun.containers", manager.list_resource_names())

    def test_a_user_sees_and_stops_its_own(self):
        clients, containers = _clients()
        view = zun_resource.ZunContainer(user=clients)
        (one,) = view.list()
        containers.list.assert_called_once_with()
        resource = view.of(one)
        self.assertEqual(("c1", "s_rally_c1"),
                         (resource.id(), resource.name()))
        resource.delete()
        containers.delete.assert_called_once_with("c1", stop=True)
        self.assertFalse(resource.is_deleted())

    def test_the_admin_sees_every_project_and_forces(self):
        clients, containers = _clients()
        view = zun_resource.ZunContainer(admin=clients)
        (one,) = view.list()
        containers.list.assert_called_once_with(all_projects=True)
        view.of(one).delete()
        containers.delete.assert_called_once_with(
            "c1", force=True, all_projects=True)
        self.assertTrue(view.gone("c2"))
        containers.get.assert_called_with("c2", all_projects=True)
