"""A server from a site's own cloud image on the test cloud, for real.

The stand-in for a site's image (images/cloud_image.py: a whole disk with
extlinux and cloud-init, no sysbench, no key) goes to Glance as an
operator would upload one (qcow2, bare, hypervisor_type qemu, no kernel
of its own); NovaInstances.boot_sysbench_delete boots it on a QEMU
compute host with rcbench_guest's key pair (upload: false) handed to
cloud-init on a config drive (the test cloud has no metadata service),
logs in as cloud-init's user, waits for cloud-init (its own phase),
pushes this host's sysbench build and pairs each test with the compute
host's twin: one build on both sides.
"""

import json
import os
import unittest

from rally_container_bench.images import cloud_image
from rally_container_bench import opts
from tests.functional import helpers
from tests.functional_openstack import cloud

TIMES = 2


def _task(image_name, hosts):
    return {
        "version": 2, "title": "a site's cloud image (stand-in)",
        "subtasks": [{
            "title": "QEMU server from the cloud image stand-in",
            "workloads": [{
                "scenario": {"NovaInstances.boot_sysbench_delete": {
                    "flavor": {"name": "rcbench-site-image"},
                    "image": {"name": image_name},
                    "network": "rcbench-provider",
                    "tests": ["quick-cpu"],
                    "hypervisor_type": "qemu",
                    "ssh_user": cloud_image.USER,
                    "workdir": "/tmp",
                    "compute_hosts": hosts}},
                "contexts": {
                    "users": {"tenants": 1, "users_per_tenant": 1},
                    "flavors": [{"name": "rcbench-site-image", "ram": 1024,
                                 "vcpus": 1, "disk": 3}],
                    "allow_ssh": None,
                    "rcbench_guest": {"hypervisor_type": "qemu",
                                      "upload": False,
                                      "config_drive": True}},
                "runner": {"constant": {"times": TIMES,
                                        "concurrency": 1}},
                "sla": {"failure_rate": {"max": 0}}}]}]}


class SiteImageTestCase(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.home = cloud.aio_rally_home(helpers.QUIET_OPTIONS)
        cls.addClassCleanup(cls.home.close)
        image = cloud_image.build(opts.register().image_cache_dir)
        from glanceclient import client as glance_client
        glance = glance_client.Client("2", session=cloud.admin_session())
        name = "rcbench-cloud-standin-%s" % image.id
        for old in glance.images.list(filters={"name": name}):
            glance.images.delete(old["id"])
        created = glance.images.create(
            name=name, disk_format="qcow2", container_format="bare",
            visibility="public", hypervisor_type="qemu")
        cls.addClassCleanup(glance.images.delete, created["id"])
        with open(image.disk, "rb") as f:
            glance.images.upload(created["id"], f)
        task = os.path.join(cls.home.path, "site-image.json")
        with open(task, "w") as f:
            json.dump(_task(name, cloud.compute_hosts()), f)
        uuid, cls.output = cls.home.start(task)
        cls.report = cls.home.results(uuid)

    def test_each_server_boots_takes_the_key_and_runs_one_build(self):
        (workload,) = helpers.workloads(self.report)
        self.assertEqual(0, workload["failed_iteration_count"],
                         [i["error"] for i in workload["data"]])
        self.assertEqual(TIMES, workload["total_iteration_count"])
        for iteration in workload["data"]:
            # cloud-init's own phase, after the login, before the tests
            self.assertEqual(
                ["build", "network", "cloud_init", "sysbench.cpu",
                 "delete"],
                [n for n in helpers.atomic_names(iteration)
                 if not n.startswith("native")], iteration)
            print("phases: %s" % ", ".join(
                "%s %.1f s" % (a["name"], a["finished_at"] - a["started_at"])
                for a in iteration["atomic_actions"]))
            env = helpers.environment(iteration)
            self.assertIn("pushed", env["sysbench_build"])
            self.assertEqual(
                helpers.sysbench_build_id(env["sysbench_build"]),
                helpers.sysbench_build_id(env["twin_sysbench_build"]))
            self.assertEqual(env["compute_host"], env["twin_host"])
