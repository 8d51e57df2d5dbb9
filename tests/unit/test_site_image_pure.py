"""A site's own image without a cloud: its Glance fields against the
hypervisor and flavor, the key pair made for it, which key a workload's
rcbench_guest logs in with, and the stand-in build's host tools.

The image records are Glance v2's fields as dicts (no Glance here);
tests/functional_openstack/test_site_image.py checks the same against
the test cloud's Glance and boots the image for real.
"""

import os
import shutil
import stat
import tempfile
import unittest
from unittest import mock

import paramiko

from rally_container_bench.core import ssh_keys
from rally_container_bench.engines.openstack import image_props
from rally_container_bench.images import cloud_image
from rally_container_bench.images import guest
from rally_container_bench.task import cloud_validators
from rally_container_bench.task.contexts import openstack_guest

# What an operator uploads: a whole disk, qcow2, bare, for QEMU hosts.
SITE_IMAGE = {"id": "5f0c", "name": "debian-12-genericcloud",
              "status": "active", "disk_format": "qcow2",
              "container_format": "bare", "hypervisor_type": "qemu",
              "architecture": "x86_64", "virtual_size": 2 << 30,
              "min_disk": 0, "min_ram": 0}


class ImageFieldsTestCase(unittest.TestCase):

    def problems(self, on="qemu", machine="x86_64", **fields):
        """The image's problems on hosts of type ``on``, fields changed."""
        return image_props.problems(dict(SITE_IMAGE, **fields), on, machine)

    def test_a_cloud_disk_boots_on_qemu_and_kvm_hosts(self):
        self.assertEqual([], self.problems())
        self.assertEqual([], self.problems("kvm"))
        self.assertEqual([], self.problems(hypervisor_type="kvm"))
        self.assertEqual([], self.problems(hypervisor_type=None,
                                           architecture=None))
        self.assertEqual([], self.problems(machine=None))

    def test_each_field_that_cannot_boot_is_named(self):
        cases = {
            "status is queued": {"status": "queued"},
            "hypervisor_type is lxc": {"hypervisor_type": "lxc"},
            "disk_format is aki": {"disk_format": "aki"},
            "disk_format is ami": {"disk_format": "ami"},
            "an ami without kernel_id": {"disk_format": "ami",
                                         "container_format": "ami"},
            "container_format is docker": {"container_format": "docker"},
            "hw_vm_mode is exe": {"hw_vm_mode": "exe"},
            "architecture is aarch64": {"architecture": "aarch64"},
        }
        for expected, fields in cases.items():
            with self.subTest(fields=fields):
                found = self.problems(**fields)
                self.assertEqual(1, len(found), found)
                self.assertIn(expected, found[0])

    def test_an_ami_boots_with_its_kernel(self):
        self.assertEqual([], self.problems(
            disk_format="ami", container_format="ami", kernel_id="k1",
            ramdisk_id="r1"))

    def test_the_architecture_is_free_where_the_image_runs_its_own(self):
        self.assertEqual([], self.problems(machine=None,
                                           architecture="aarch64"))
        self.assertEqual([], self.problems(architecture="amd64"))

    def test_libvirt_lxc_and_docker_hosts_take_their_own_forms(self):
        self.assertEqual([], self.problems(
            "lxc", hypervisor_type="lxc", hw_vm_mode="exe"))
        found = self.problems("lxc", hypervisor_type="lxc",
                              hw_vm_mode="hvm", container_format="ovf")
        self.assertEqual(2, len(found), found)
        self.assertEqual([], self.problems(
            "docker", hypervisor_type="docker", disk_format="raw",
            container_format="docker"))
        self.assertIn("docker archives", self.problems(
            "docker", hypervisor_type="docker")[0])

    def test_the_flavor_must_hold_the_image(self):
        image = dict(SITE_IMAGE, min_ram=2048, min_disk=10)
        found = image_props.flavor_problems(image, 1024, 5)
        self.assertEqual(2, len(found), found)
        self.assertIn("min_ram 2048", found[0])
        self.assertIn("min_disk 10", found[1])
        self.assertEqual([], image_props.flavor_problems(SITE_IMAGE, 1024,
                                                         3))
        self.assertIn("FlavorDiskSmallerThanImage",
                      image_props.flavor_problems(SITE_IMAGE, 1024, 1)[0])
        # disk 0: the root disk takes the image's size
        self.assertEqual([], image_props.flavor_problems(SITE_IMAGE, 1024,
                                                         0))


class GeneratedKeyTestCase(unittest.TestCase):

    def test_a_private_key_only_root_reads_that_paramiko_loads(self):
        pair = ssh_keys.generate()
        self.addCleanup(ssh_keys.remove, pair.dir)
        self.assertEqual(0o700, stat.S_IMODE(os.stat(pair.dir).st_mode))
        self.assertEqual(0o600, stat.S_IMODE(
            os.stat(pair.private_key_file).st_mode))
        loaded = paramiko.Ed25519Key.from_private_key_file(
            pair.private_key_file)
        kind, body, comment = pair.public_key.split(" ", 2)
        self.assertEqual(("ssh-ed25519", loaded.get_base64()), (kind, body))
        self.assertEqual(ssh_keys.COMMENT, comment)
        other = ssh_keys.generate()
        self.addCleanup(ssh_keys.remove, other.dir)
        self.assertNotEqual(pair.public_key, other.public_key)
        ssh_keys.remove(pair.dir)
        self.assertFalse(os.path.exists(pair.dir))
        ssh_keys.remove(pair.dir)  # gone already: nothing


class KeySourceTestCase(unittest.TestCase):

    def built(self, is_built):
        image = mock.Mock()
        image.is_built.return_value = is_built
        return mock.patch.object(openstack_guest.guest_lib.GuestImage,
                                 "in_cache", return_value=image)

    def test_auto_uses_the_guest_images_key_where_it_is_here(self):
        source = openstack_guest.key_source
        with self.built(False):
            self.assertEqual("image", source({}))
            self.assertEqual("generated", source({"upload": False}))
            self.assertEqual("image", source({"upload": False,
                                              "key": "image"}))
        with self.built(True):
            self.assertEqual("image", source({"upload": False}))
            self.assertEqual("generated", source({"upload": False,
                                                  "key": "generated"}))

    def validate(self, guest, image=None):
        config = {"args": {"image": image} if image else {},
                  "contexts": {"rcbench_guest": guest}}
        cloud_validators.NovaImageValidator("image").validate(
            {}, config, None, None)

    def test_a_generated_key_only_for_a_site_image(self):
        from rally.common import validation
        with mock.patch.object(cloud_validators.registry, "guest_image"):
            with self.assertRaisesRegex(validation.ValidationError,
                                        "key: generated needs upload"):
                self.validate({"key": "generated"})
        missing = mock.Mock(side_effect=cloud_validators.base.DriverError(
            "the guest image is not built"))
        with mock.patch.object(cloud_validators.registry, "guest_image",
                               missing):
            # no build needed: the site's image takes a generated key
            self.validate({"upload": False, "key": "generated"},
                          {"name": "debian-12"})
            self.validate({"upload": False}, {"name": "debian-12"})
            with self.assertRaisesRegex(validation.ValidationError,
                                        "logs in with the key of"):
                self.validate({"upload": False, "key": "image"},
                              {"name": "debian-12"})


class StandInToolsTestCase(unittest.TestCase):

    def test_a_missing_host_tool_is_named_before_the_bootstrap(self):
        # Debian's fdisk is not essential: a fresh machine lacked sfdisk
        # and failed after minutes of mmdebstrap (CI 2026-12-08)
        real = shutil.which
        with tempfile.TemporaryDirectory() as cache, \
                mock.patch("os.geteuid", return_value=0), \
                mock.patch.object(guest, "bootstrap") as bootstrap, \
                mock.patch("shutil.which", side_effect=lambda tool: None
                           if tool == "sfdisk" else real(tool) or tool):
            with self.assertRaisesRegex(guest.ImageError,
                                        "sfdisk is missing: apt-get "
                                        "install fdisk"):
                cloud_image.build(cache)
        bootstrap.assert_not_called()
