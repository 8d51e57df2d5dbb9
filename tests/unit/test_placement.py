"""The arithmetic of the capacity validators (rcbench_nova_capacity,
rcbench_zun_capacity) on Placement's figures; their API calls run against
the test cloud in tests/functional_openstack/test_kvm_vs_docker.py."""

import unittest

from rally_container_bench.engines.openstack import placement
from rally_container_bench.engines.openstack import zun


def _provider(vcpus, ratio, memory_mb, reserved_mb, used_vcpu, used_mb):
    inventories = {
        "VCPU": {"total": vcpus, "reserved": 0, "allocation_ratio": ratio,
                 "max_unit": vcpus},
        "MEMORY_MB": {"total": memory_mb, "reserved": reserved_mb,
                      "allocation_ratio": 1.5, "max_unit": memory_mb}}
    return {"inventories": inventories,
            "usages": {"VCPU": used_vcpu, "MEMORY_MB": used_mb}}


class PlacementCapacityTestCase(unittest.TestCase):
    """Figures of the test cloud's Zun host as Placement reported them."""

    def test_claims_round_cpu_up_to_whole_cores(self):
        self.assertEqual((1, 512), zun.placement_claim(0.1, 512))
        self.assertEqual((1, 512), zun.placement_claim(1.0, 512))
        self.assertEqual((2, 1024), zun.placement_claim(1.5, 1024))
        self.assertEqual((1, 512), zun.placement_claim(None, None))

    def test_leftover_allocations_leave_room_for_23_of_32(self):
        # 2 cores x 16 = 32 VCPU; 9 allocations of gone containers.
        providers = {"vm": _provider(2, 16.0, 24105, 512, 9, 9216)}
        fit, free = placement.instances_that_fit(
            providers, *zun.placement_claim(1.0, 512))
        self.assertEqual(23, fit)
        self.assertEqual({"VCPU": 23, "MEMORY_MB": 35389 - 9216},
                         free["vm"])
        fit, _free = placement.instances_that_fit(
            {"vm": _provider(2, 16.0, 24105, 512, 0, 0)}, 1, 512)
        self.assertEqual(32, fit)

    def test_memory_bounds_it_and_hosts_add_up(self):
        # (24105 - 512) x 1.5 = 35389 MiB: 17 of 2048 MiB each.
        providers = {"a": _provider(2, 16.0, 24105, 512, 0, 0),
                     "b": _provider(4, 1.0, 24105, 512, 3, 0)}
        fit, _free = placement.instances_that_fit(providers, 1, 2048)
        self.assertEqual(17 + 1, fit)

    def test_shortfall_says_how_many_fit_and_what_is_free(self):
        providers = {"vm": _provider(2, 16.0, 24105, 512, 9, 9216)}
        self.assertIsNone(placement.shortfall(providers, 1, 512, 23))
        self.assertEqual((23, "vm: MEMORY_MB 26173, VCPU 23"),
                         placement.shortfall(providers, 1, 512, 32))
        self.assertIsNone(placement.shortfall({}, 1, 512, 32))

    def test_a_container_larger_than_max_unit_fits_nowhere(self):
        fit, _free = placement.instances_that_fit(
            {"a": _provider(2, 16.0, 24105, 512, 0, 0)}, 3, 512)
        self.assertEqual(0, fit)
