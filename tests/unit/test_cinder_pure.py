"""The parts of the Cinder volume support that need no cloud.

The volumes themselves are created, attached to a real server, formatted
and measured on the all-in-one cloud's Ceph in
tests/functional_openstack/test_qemu_flavor_and_volume.py; the cinderclient
below is a stand-in only for the error paths a healthy cloud never takes.
"""

import subprocess
import unittest
from unittest import mock

from cinderclient import exceptions as cinder_exceptions

from rally_container_bench.core import base
from rally_container_bench.engines.openstack import cinder
from rally_container_bench.engines.openstack import guest_disk
from rally_container_bench.report import results
from tests.unit.test_drivers_pure import conf

VOLUME_ID = "0c8e2f3a-1b2c-4d5e-8f90-123456789abc"


class GuestDiskTestCase(unittest.TestCase):

    def test_the_guest_knows_a_virtio_disk_by_20_characters(self):
        self.assertEqual("0c8e2f3a-1b2c-4d5e-8",
                         guest_disk.serial_of(VOLUME_ID))

    def test_find_device_prints_nothing_for_an_absent_volume(self):
        # The real script on this host: no disk has that serial.
        argv = guest_disk.find_device_argv(VOLUME_ID)
        out = subprocess.run(argv, capture_output=True, text=True, check=True)
        self.assertEqual("", out.stdout)
        self.assertIsNone(guest_disk.parse_device(out.stdout))

    def test_a_serial_cannot_break_out_of_the_script(self):
        argv = guest_disk.find_device_argv("x'; reboot; '")
        self.assertIn("'x'\"'\"'; reboot; '\"'\"''", argv[2])

    def test_parse_device_takes_exactly_one_disk(self):
        self.assertEqual("/dev/vdb", guest_disk.parse_device("/dev/vdb\n"))
        self.assertIsNone(guest_disk.parse_device("/dev/vdb\n/dev/vdc\n"))
        self.assertIsNone(guest_disk.parse_device("sh: cat: not found\n"))

    def test_format_writes_inode_tables_now_and_mounts(self):
        script = guest_disk.format_and_mount_argv("/dev/vdb")[2]
        self.assertIn("lazy_itable_init=0,lazy_journal_init=0 /dev/vdb",
                      script)
        self.assertTrue(script.endswith(
            "mount /dev/vdb %s" % guest_disk.MOUNTPOINT))


class VolumeFactsTestCase(unittest.TestCase):

    def test_backend_of_cinder_host(self):
        self.assertEqual("ceph", cinder.backend_of("vm@ceph#ceph"))
        self.assertEqual("lvm-1", cinder.backend_of("node2@lvm-1"))
        self.assertIsNone(cinder.backend_of("vm"))
        self.assertIsNone(cinder.backend_of(None))

    def test_facts_fall_back_to_the_type_without_admin(self):
        request = cinder.VolumeRequest(size_gb=2)
        admin = cinder.volume_facts({"os-vol-host-attr:host": "vm@ceph#ceph",
                                     "volume_type": "__DEFAULT__"}, request)
        self.assertEqual("cinder volume (ceph, 2 GiB)",
                         admin["workdir_storage"])
        user = cinder.volume_facts({"volume_type": "fast"}, request)
        self.assertEqual("fast", user["volume_backend"])

    def test_volume_rows_stand_apart_in_the_report(self):
        self.assertEqual("volume-ceph", cinder.with_volume("none", "ceph"))
        tuning = cinder.with_volume("mem_page_size-large", "ceph")
        self.assertEqual("mem_page_size-large+volume-ceph", tuning)
        platform = results.platform_of(
            {"driver": "nova", "runtime": "qemu", "acceleration": "tcg",
             "tuning": tuning},
            "NovaInstances.boot_volume_sysbench_delete", {})
        self.assertEqual("nova-qemu-tcg+mem_page_size-large+volume-ceph",
                         platform.label)


def _volume(status):
    return mock.Mock(id=VOLUME_ID, status=status)


class VolumeErrorsTestCase(unittest.TestCase):
    """Stand-in cinderclient: the error states Cinder reports."""

    def setUp(self):
        self.cinder = mock.Mock()
        self.volumes = cinder.CinderVolumes(self.cinder, mock.Mock(), conf())

    def test_an_unknown_type_is_refused_with_the_known_ones(self):
        known = mock.Mock(id="t1")
        known.name = "ceph"
        self.cinder.volume_types.list.return_value = [known]
        with self.assertRaisesRegex(base.DriverError,
                                    r"'gold' does not exist .*has: ceph"):
            self.volumes.check_type("gold")
        self.volumes.check_type("ceph")
        self.volumes.check_type("t1")

    def test_a_volume_in_error_fails_at_once_with_its_state(self):
        self.cinder.volumes.create.return_value = _volume("creating")
        self.cinder.volumes.get.return_value = _volume("error")
        with self.assertRaisesRegex(base.DriverError, "went to error"):
            self.volumes.create("v1", cinder.VolumeRequest(), timeout=30)

    def test_delete_waits_until_cinder_no_longer_has_it(self):
        self.cinder.volumes.get.side_effect = [
            _volume("deleting"), cinder_exceptions.NotFound(404)]
        self.volumes.delete(VOLUME_ID, timeout=30)
        self.cinder.volumes.delete.assert_called_once_with(VOLUME_ID)
        self.assertEqual(2, self.cinder.volumes.get.call_count)
