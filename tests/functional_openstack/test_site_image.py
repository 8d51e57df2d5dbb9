"""A server from a site's own cloud image on the test cloud, for real.

The stand-in for a site's image (images/cloud_image.py: a whole disk with
extlinux and cloud-init, no sysbench, no key) goes to Glance as an
operator would upload one (qcow2, bare, hypervisor_type qemu, no kernel
of its own); NovaInstances.boot_sysbench_delete boots it on a QEMU
compute host with rcbench_guest's key pair (upload: false) handed to
cloud-init on a config drive (the test cloud has no metadata service),
logs in as cloud-init's user, waits for cloud-init (its own phase),
pushes this host's sysbench build and pairs each test with the compute
host's twin: one build on both sides. In the same task a second server
of the image gets no config drive: the key never reaches it (the test
cloud has no metadata service), and its iteration must fail within a
bound with the reason; a third boots an image without cloud-init (this
project's guest image, which authorizes only its own key), which must
fail likewise. Then validation against Glance.
"""

import glob
import io
import json
import os
import tempfile
import unittest

from rally_container_bench.engines import registry
from rally_container_bench.images import cloud_image
from rally_container_bench import opts
from rally_container_bench.task.contexts import openstack_guest
from tests.functional import helpers
from tests.functional_openstack import cloud

# A login within this (ssh_timeout) or the reason: the key never taken.
BOUND_S = 300
KEY_DIRS = os.path.join(tempfile.gettempdir(), "rcbench-keypair-*")
SITE_ARGS = os.path.join(helpers.TOP, "tasks", "args",
                         "aio-site-image.yaml")


def _workload(image_name, hosts, config_drive):
    return {
        "scenario": {"NovaInstances.boot_sysbench_delete": {
            "flavor": {"name": "rcbench-site-image"},
            "image": {"name": image_name},
            "network": "rcbench-provider",
            "tests": ["quick-cpu"],
            "hypervisor_type": "qemu",
            "ssh_user": cloud_image.USER,
            "compute_hosts": hosts}},
        "contexts": {
            "users": {"tenants": 1, "users_per_tenant": 1},
            "flavors": [{"name": "rcbench-site-image", "ram": 1024,
                         "vcpus": 1, "disk": 5}],
            "allow_ssh": None,
            "rcbench_guest": {"hypervisor_type": "qemu", "upload": False,
                              "key": "generated",
                              "config_drive": config_drive}},
        "runner": {"constant": {"times": 1, "concurrency": 1}},
        "sla": {"failure_rate": {"max": 0}}}


def _task(image_name, hosts, without_cloud_init):
    return {
        "version": 2, "title": "a site's cloud image (stand-in)",
        "subtasks": [
            {"title": "QEMU server from the cloud image stand-in",
             "workloads": [_workload(image_name, hosts, True)]},
            {"title": "the same without a config drive: no key",
             "workloads": [_workload(image_name, hosts, False)]},
            {"title": "an image without cloud-init",
             "workloads": [_workload(without_cloud_init, hosts, True)]}]}


def _upload_guest_image(testcase, glance):
    """This project's guest image as a site's image without cloud-init.

    Its QEMU form (kernel, ramdisk, disk linked to them), under a name of
    its own: it authorizes only its own key and has no cloud-init.
    """
    guest = registry.guest_image(opts.register())
    name = "rcbench-no-cloud-init-%s" % guest.id
    uploaded = {}
    for role, disk, container, path, props in \
            openstack_guest.image_forms("qemu", guest):
        for old in glance.images.list(filters={"name": name + "-" + role}):
            glance.images.delete(old["id"])
        created = glance.images.create(
            name="%s-%s" % (name, role), disk_format=disk,
            container_format=container, visibility="public",
            **openstack_guest._resolved(props, uploaded))
        testcase.addClassCleanup(glance.images.delete, created["id"])
        with open(path, "rb") as f:
            glance.images.upload(created["id"], f)
        uploaded[role] = created["id"]
    return name + "-disk"


def _upload_standin(testcase, glance, name, **fields):
    """The stand-in in Glance under name (replacing one of that name)."""
    for old in glance.images.list(filters={"name": name}):
        glance.images.delete(old["id"])
    created = glance.images.create(
        name=name, disk_format="qcow2", container_format="bare",
        visibility="public", hypervisor_type="qemu", **fields)
    testcase.addClassCleanup(glance.images.delete, created["id"])
    return created


class SiteImageTestCase(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        # the bound of the key never taken: ssh_timeout (cloud-init's
        # wait for a metadata service that never answers is in it)
        cls.home = cloud.aio_rally_home(dict(helpers.QUIET_OPTIONS,
                                             ssh_timeout=BOUND_S))
        cls.addClassCleanup(cls.home.close)
        image = cloud_image.build(opts.register().image_cache_dir)
        from glanceclient import client as glance_client
        glance = glance_client.Client("2", session=cloud.admin_session())
        name = "rcbench-cloud-standin-%s" % image.id
        created = _upload_standin(cls, glance, name)
        with open(image.disk, "rb") as f:
            glance.images.upload(created["id"], f)
        without = _upload_guest_image(cls, glance)
        cls.keys_before = set(glob.glob(KEY_DIRS))
        task = os.path.join(cls.home.path, "site-image.json")
        with open(task, "w") as f:
            json.dump(_task(name, cloud.compute_hosts(), without), f)
        uuid, cls.output = cls.home.start(task)
        cls.taken, cls.never, cls.without = helpers.workloads(
            cls.home.results(uuid))

    def test_the_server_boots_takes_the_key_and_runs_one_build(self):
        workload = self.taken
        self.assertEqual(0, workload["failed_iteration_count"],
                         [i["error"] for i in workload["data"]])
        (iteration,) = workload["data"]
        # cloud-init's own phase, after the login, before the tests
        self.assertEqual(
            ["build", "network", "cloud_init", "sysbench.cpu", "delete"],
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

    def test_no_generated_private_key_is_left(self):
        # each workload's key pair: in Nova and in a directory here,
        # both gone at cleanup (the failed workloads' too)
        self.assertEqual(set(), set(glob.glob(KEY_DIRS)) - self.keys_before)

    def refusal(self, workload):
        """The one failed iteration's error; its network phase bounded."""
        self.assertEqual(1, workload["failed_iteration_count"])
        (iteration,) = workload["data"]
        error = " ".join(iteration["error"])
        print("error: %s" % error[:800])
        (network,) = [a for a in iteration["atomic_actions"]
                      if a["name"] == "network"]
        took = network["finished_at"] - network["started_at"]
        print("network phase until the refusal: %.0f s" % took)
        self.assertLess(took, BOUND_S)
        self.assertIn("refused the key", error)
        self.assertNotIn("images build --force", error)
        return error

    def test_a_key_never_taken_fails_with_the_reason_within_the_bound(self):
        error = self.refusal(self.never)
        self.assertRegex(error, r"cloud-init \S+ ran and found no datasource")
        self.assertIn("config_drive: true", error)

    def test_an_image_without_cloud_init_fails_with_the_reason(self):
        self.assertIn("console log shows no cloud-init",
                      self.refusal(self.without))


class SiteImageValidationTestCase(unittest.TestCase):
    """A site image Nova could not boot as asked is refused at validation.

    rally task validate says why, before anything boots; the stand-in
    itself passes (no guest image version is asked of its twins).
    """

    @classmethod
    def setUpClass(cls):
        cls.home = cloud.aio_rally_home()
        cls.addClassCleanup(cls.home.close)
        from glanceclient import client as glance_client
        glance = glance_client.Client("2", session=cloud.admin_session())
        # a kernel (aki), of another hypervisor (image_exists refuses an
        # image with no data: it lists active ones only)
        cls.broken = "rcbench-site-image-broken"
        for old in glance.images.list(filters={"name": cls.broken}):
            glance.images.delete(old["id"])
        created = glance.images.create(
            name=cls.broken, disk_format="aki", container_format="aki",
            visibility="public", hypervisor_type="lxc")
        cls.addClassCleanup(glance.images.delete, created["id"])
        glance.images.upload(created["id"], io.BytesIO(b"\0" * 512))
        image = cloud_image.build(opts.register().image_cache_dir)
        cls.good = "rcbench-cloud-standin-valid-%s" % image.id
        good = _upload_standin(cls, glance, cls.good)
        with open(image.disk, "rb") as f:
            glance.images.upload(good["id"], f)

    def test_what_cannot_boot_is_refused_and_the_stand_in_passes(self):
        cases = (({"kvm_image": "rcbench-no-such-image"},
                  "rcbench-no-such-image"),
                 ({"kvm_image": self.broken},
                  "cannot boot as asked: its hypervisor_type is lxc"),
                 ({"kvm_image": self.good, "flavor_disk": 1},
                  "FlavorDiskSmallerThanImage"),
                 ({"kvm_image": self.good}, None))
        procs = self.home.validate_each(
            cloud.TASK, [dict(args, concurrency=[1],
                              compute_hosts=cloud.compute_hosts())
                         for args, _ in cases], SITE_ARGS)
        for (args, message), proc in zip(cases, procs):
            with self.subTest(args=args):
                if message is None:
                    self.assertEqual(0, proc.returncode, proc.stderr)
                    continue
                self.assertNotEqual(0, proc.returncode)
                self.assertIn(message, proc.stdout + proc.stderr)
