"""A Rally killed mid-workload on the real all-in-one cloud: the flavor
its workload made (rally-openstack's flavors context, deleted only at the
workload's end) is found by ``rcbench cleanup --env --task`` and deleted.

The workload is rally-openstack's Dummy.openstack, sleeping: what is
tested is the contexts' setup, the kill and the cleanup, not a boot.
Before, each killed run left an ``rcbench-kek-XXXXXX`` flavor that
nothing named, and the project and user of Rally's users context (seen
at the cloud's next start: ``c_rally_82836a93_*``, 2026-11-29): both go.
Skips without the cloud.
"""

import os
import random
import re
import subprocess
import time
import unittest

from keystoneclient.v3 import client as keystone_client
import yaml

from rally_container_bench.core import processes
from rally_container_bench.task.contexts import flavor_owner
from tests.functional_openstack import cloud as aio

FLAVOR = "rcbench-kek-%06x" % random.randrange(16 ** 6)
TASK = {"version": 2, "title": "killed while its flavor exists",
        "subtasks": [{"title": "a sleep", "workloads": [{
            "scenario": {"Dummy.openstack": {"sleep": 600}},
            "runner": {"constant": {"times": 1, "concurrency": 1}},
            "contexts": {
                "flavors": [{"name": FLAVOR, "ram": 256, "vcpus": 1,
                             "disk": 1}],
                "rcbench_flavor_owner": {"names": [FLAVOR]}}}]}]}


class KilledRallyTestCase(unittest.TestCase):

    def setUp(self):
        from novaclient import client as nova_client
        self.nova = nova_client.Client("2.1", session=aio.admin_session())
        self.home = aio.aio_rally_home()
        self.addCleanup(self.home.close)
        self.addCleanup(self._delete_flavor)

    def _flavor(self):
        return next((f for f in self.nova.flavors.list(is_public=None)
                     if f.name == FLAVOR), None)

    def _delete_flavor(self):
        flavor = self._flavor()
        if flavor is not None:
            flavor.delete()

    def _marked_by(self):
        """The task uuid the flavor is marked with, once it is."""
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            flavor = self._flavor()
            if flavor is not None:
                task = flavor.get_keys().get(flavor_owner.TASK_SPEC)
                if task:
                    return task
            time.sleep(1)
        self.fail("flavor %s not made and marked within 120 s" % FLAVOR)

    def test_cleanup_env_deletes_the_flavor_of_a_killed_task(self):
        path = os.path.join(self.home.path, "sleep.yaml")
        with open(path, "w") as f:
            yaml.safe_dump(TASK, f)
        rally = self.home.popen("task", "start", path,
                                stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL)
        try:
            task = self._marked_by()
        finally:
            processes.end_group(rally)  # SIGKILL
        # killed: its workload's end never ran, the flavor is left
        self.assertIsNotNone(self._flavor())
        out = aio.cleanup_env(self.home, task)
        self.assertIn("deleted flavor %s (" % FLAVOR, out.stdout)
        self.assertIn("of task %s)" % task, out.stdout)
        self.assertIsNone(self._flavor())
        # the users context's project and user, named after the workload
        # (c_rally_<owner part>_<random>): deleted, and none of its left
        deleted = re.findall(r"deleted (project|user) (c_rally_\w{8})_\w+ \(",
                             out.stdout)
        self.assertEqual({"project", "user"}, {kind for kind, _ in deleted})
        prefixes = tuple({prefix + "_" for _, prefix in deleted})
        keystone = keystone_client.Client(session=aio.admin_session())
        self.assertEqual([], [thing.name for thing in keystone.users.list()
                              + keystone.projects.list()
                              if thing.name.startswith(prefixes)])
