"""A Zun container stuck in Creating, on the real all-in-one cloud.

Zun's default pull policy, always, has the container download the guest
image from Glance and load it into Docker (tens of seconds here): with a
boot timeout of 2 s its iteration fails while the container is still
Creating. The iteration's error must say so (Zun's status and task
state), and the iteration must delete it, within the delete timeout
(Zun refuses a plain delete in Creating; the admin's force-delete is
queued behind the create). Then ``rcbench cleanup --env`` on a container
named as Rally names them, and on the shared guest image of a task whose
Rally DB is gone (a killed run's). Skips without the cloud.

Why ~3.5 min in CI (200 s, 2026-11-28): a whole cloud task; its delete
is queued behind the container's image download and load (tens of
seconds), and each cleanup runs Rally and the cloud's APIs again;
beside two other cloud tests on the same two cores.
"""

import os
import unittest
import uuid

import yaml

from rally_container_bench.core import base
from tests.functional import helpers
from tests.functional_openstack import cloud as aio

BOOT_TIMEOUT = 2
DELETE_TIMEOUT = 300
TASK = {"version": 2, "title": "a Zun container stuck in Creating",
        "subtasks": [{"title": "Zun, pull policy always, 2 s to boot",
                      "workloads": [{
                          "scenario": {"ZunContainers.run_and_delete": {
                              "network": "rcbench-provider",
                              "image_pull_policy": "always",
                              "cpu": 0.5, "memory": 256}},
                          "runner": {"constant": {"times": 1,
                                                  "concurrency": 1}},
                          "contexts": {
                              "users": {"tenants": 1, "users_per_tenant": 1},
                              "allow_ssh": None,
                              "rcbench_guest": {"hypervisor_type": "docker"},
                              "rcbench_zun_networks": {
                                  "networks": ["rcbench-provider"]}}}]}]}


class ZunCreatingTestCase(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        # The pull-policy validator would refuse loads that do not fit
        # half of a 2 s boot timeout: the rate here lets this one through.
        cls.home = aio.aio_rally_home(options={
            "boot_timeout": BOOT_TIMEOUT, "delete_timeout": DELETE_TIMEOUT,
            "zun_image_load_mb_per_s": 100000})
        path = os.path.join(cls.home.path, "creating.yaml")
        with open(path, "w") as f:
            yaml.safe_dump(TASK, f)
        try:
            cls.uuid, _ = cls.home.start(path)
            cls.report = cls.home.results(cls.uuid)
        finally:
            # Zun's own leak (cloud.remove_zun_orphans): the other cloud
            # tests beside this one look for what their tasks left
            cls.orphans = aio.remove_zun_orphans()

    @classmethod
    def tearDownClass(cls):
        if cls.orphans:
            print("removed what Zun left running after the delete: %s"
                  % ", ".join(cls.orphans))
        cls.home.close()

    def test_the_error_says_creating_and_the_iteration_deleted_it(self):
        (workload,) = helpers.workloads(self.report)
        self.assertEqual(1, workload["failed_iteration_count"])
        (iteration,) = workload["data"]
        error = " ".join(iteration["error"])
        self.assertIn("Running: not within %s s" % float(BOOT_TIMEOUT),
                      error)
        self.assertIn("last seen: status Creating", error)
        actions = {a["name"]: a for a in iteration["atomic_actions"]}
        delete = actions["delete"]
        self.assertFalse(delete.get("failed"), delete)
        took = delete["finished_at"] - delete["started_at"]
        print("deleted from Creating in %.1f s" % took)
        self.assertLess(took, 2 * DELETE_TIMEOUT)

    def test_cleanup_env_deletes_and_names_a_leftover(self):
        from rally_container_bench.decide import rally_tasks
        zun = aio.admin_zun()
        # Named as this task's workload names its containers: the cleanup
        # of --task touches nothing of the tests beside it.
        (owner,) = rally_tasks.owner_ids(self.uuid, self.home.conf)
        name = "s_rally_%s_leftover" % owner[:8]
        container = zun.containers.run(
            name=name, image="busybox-not-pulled", image_driver="docker",
            image_pull_policy="never", command=["true"])
        self.addCleanup(self._force_delete, zun, container.uuid)
        out = aio.cleanup_env(self.home, self.uuid, 2 * DELETE_TIMEOUT)
        self.assertIn("deleted Zun container %s (%s"
                      % (name, container.uuid), out.stdout)
        self.assertEqual([], [c for c in zun.containers.list(
            all_projects=True) if c.uuid == container.uuid])

    def test_cleanup_env_deletes_the_image_of_a_task_it_does_not_know(self):
        from glanceclient import client as glance_client

        from rally_container_bench.task.contexts import guest_share
        glance = glance_client.Client("2", session=aio.admin_session())
        lost = str(uuid.uuid4())  # a task of a Rally DB that is gone
        image = glance.images.create(
            name=guest_share.name_of(lost, "docker", "disk"),
            disk_format="raw", container_format="docker",
            visibility="shared", **{guest_share.TASK_PROPERTY: lost,
                                    guest_share.FORM_PROPERTY: "docker",
                                    guest_share.ROLE_PROPERTY: "disk"})
        self.addCleanup(self._delete_image, glance, image["id"])
        out = aio.cleanup_env(self.home, lost)
        self.assertIn("no task %s: only its shared guest images and "
                      "flavors" % lost,
                      out.stderr)
        self.assertIn("deleted shared guest image %s (%s"
                      % (image["name"], image["id"]), out.stdout)
        self.assertEqual([], list(glance.images.list(
            filters={guest_share.TASK_PROPERTY: lost})))

    @staticmethod
    def _delete_image(glance, image_id):
        from glanceclient import exc
        try:
            glance.images.delete(image_id)
        except exc.HTTPNotFound:
            pass

    @staticmethod
    def _force_delete(zun, uuid):
        """Gone before the next test (the Zun sample deletes the network)."""
        from zunclient import exceptions as zun_exceptions

        def gone():
            try:
                zun.containers.get(uuid, all_projects=True)
            except zun_exceptions.NotFound:
                return True
            return False
        if gone():
            return
        zun.containers.delete(uuid, force=True, all_projects=True)
        base.wait_until(gone, DELETE_TIMEOUT, 1, "Zun container %s gone"
                        % uuid)


if __name__ == "__main__":
    unittest.main()
