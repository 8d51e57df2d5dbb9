"""A pair at once on a compute host: its CPUs read there, the twin's chosen.

The host's CPUs are read by running cpu_pairs.HOST_CPUS_SCRIPT for real,
this machine standing for the compute host (its login's cpuset and its
topology). libvirt's pinning output is a stand-in (no Nova domain runs
here): the test cloud runs the whole path (test_cloud_verdicts).
"""

import os
import unittest

from rally.common import validation

from rally_container_bench.core import base
from rally_container_bench.engines.native import instance as native
from rally_container_bench.task import pairing_validators
from rally_container_bench.task.scenarios import cloud
from rally_container_bench.validity import compute_host
from rally_container_bench.validity import cpu_pairs

SMT = {0: {0, 2}, 1: {1, 3}, 2: {0, 2}, 3: {1, 3}}

VCPUPIN = """ VCPU   CPU Affinity
----------------------
 0      2
 1      3
"""
EMULATORPIN = """ emulator: CPU Affinity
----------------------------------
       *: 2-3
"""


class _View:
    """This machine as the compute host; libvirt's answer a stand-in."""

    name = "compute-1"
    cpus = compute_host.ComputeHost.cpus  # read here, as there

    def __init__(self, pinning):
        self.executor = self
        self.pinning = pinning

    def run(self, argv, timeout):
        if argv[-1] == "pinning":
            return base.CommandResult("virsh", 0, self.pinning, "", 0.0)
        return native.NativeExecutor().run(argv, timeout)


class _Nova:
    @staticmethod
    def host_pinning_command():
        return ["pinning"]


class HostCpusTestCase(unittest.TestCase):

    def test_the_script_reads_this_hosts_cpus_and_cores(self):
        result = native.NativeExecutor().run(
            ["sh", "-c", cpu_pairs.HOST_CPUS_SCRIPT], 60)
        usable, siblings = cpu_pairs.parse_host_cpus(result.stdout)
        self.assertEqual(sorted(os.sched_getaffinity(0)), usable)
        self.assertEqual(cpu_pairs.host_cpus(), (usable, siblings))

    def test_nothing_read_is_an_error(self):
        self.assertRaises(ValueError, cpu_pairs.parse_host_cpus, "\n")

    def test_a_one_core_host_says_so(self):
        why = cpu_pairs.one_core([1], {1: {1}}, "aio-lxc-2")
        self.assertIn("compute host aio-lxc-2 gives its instances and their "
                      "twins one core (CPUs 1)", why)
        # two threads of one core are one core
        self.assertIsNotNone(cpu_pairs.one_core([0, 2], SMT, "h"))
        self.assertIsNone(cpu_pairs.one_core([0, 1], SMT, "h"))

    def test_the_twin_takes_a_free_core_never_the_instances(self):
        cpus = [0, 1, 2, 3]
        self.assertEqual((1, None),
                         cpu_pairs.twin_beside(0, cpus, SMT, {0}, "h"))
        # CPU 3 is on the core of 1, which an instance floats over
        cpu, why = cpu_pairs.twin_beside(0, cpus, SMT, {0, 3}, "h")
        self.assertIsNone(cpu)
        self.assertIn("runs an instance's vCPUs or emulator threads "
                      "(CPUs 0,3)", why)


class PinnedCpusTestCase(unittest.TestCase):

    def test_vcpupin_and_emulatorpin_are_read(self):
        self.assertEqual({2, 3}, cloud.parse_pinned_cpus(VCPUPIN))
        self.assertEqual({2, 3}, cloud.parse_pinned_cpus(EMULATORPIN))
        self.assertEqual({0, 1, 5}, cloud.parse_pinned_cpus(
            " 0: 0-1\n 1: 5\nerror: failed to get domain\n"))


class TwinPlacementTestCase(unittest.TestCase):
    """cloud._twin_placement on this machine as the compute host."""

    def place(self, cpu, pinning="", driver=_Nova, pairing="at-once"):
        return cloud.CloudInstanceMixin._twin_placement(
            driver, _View(pinning), "compute-1", cpu, pairing)

    def test_in_sequence_the_twin_shares_the_instances_cpu(self):
        twin, placed = self.place(0, pairing="sequential")
        self.assertEqual(0, twin)
        self.assertIsNone(placed.asked)

    @unittest.skipIf(len(os.sched_getaffinity(0)) < 2, "one CPU here")
    def test_at_once_the_twin_takes_another_core(self):
        usable, siblings = cpu_pairs.host_cpus()
        if len(cpu_pairs.one_per_core(usable, siblings)) < 2:
            self.skipTest("one core here")
        mine = usable[0]
        twin, placed = self.place(mine, " 0      %d\n" % mine)
        self.assertNotIn(twin, siblings[mine])
        self.assertIsNone(placed.in_sequence_why)
        self.assertEqual("instance on CPU %d of compute-1 (its flavor's), "
                         "twin on CPU %d" % (mine, twin), placed.cpus)
        # every other core taken by an instance: in sequence, and why
        taken = ",".join(str(c) for c in usable)
        twin, placed = self.place(mine, "       *: %s\n" % taken)
        self.assertEqual(mine, twin)
        self.assertIn("no free CPU for a twin at once",
                      placed.in_sequence_why)

    def test_an_unpinned_instance_pairs_in_sequence_and_says_why(self):
        twin, placed = self.place(None)
        self.assertIsNone(twin)
        self.assertTrue(placed.in_sequence_why)
        self.assertEqual("at-once", placed.asked)

    def test_a_container_pairs_in_sequence_and_says_why(self):
        usable, siblings = cpu_pairs.host_cpus()
        _, placed = self.place(None, driver=object())
        if len(cpu_pairs.one_per_core(usable, siblings)) >= 2:
            self.assertIn("a container's CPUs on compute-1 are not read",
                          placed.in_sequence_why)


class ValidatorTestCase(unittest.TestCase):

    def validate(self, args):
        validator = pairing_validators.PairingValidator(
            "pairing", twin_param="compute_hosts")
        return validator.validate({}, {"args": args}, None, None)

    def test_at_once_needs_the_compute_hosts(self):
        self.assertRaises(validation.ValidationError, self.validate,
                          {"pairing": "at-once"})
        self.assertIsNone(self.validate({"pairing": "at-once",
                                         "compute_hosts": {}}))
        self.assertIsNone(self.validate({"pairing": "sequential"}))
