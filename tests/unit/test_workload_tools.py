"""The workload-tool registry: what the rest of the package asks it."""

import unittest

from rally_container_bench.core import base
from rally_container_bench.engines.libvirt import instance as libvirt
from rally_container_bench.images import guest
from rally_container_bench.report import results
from rally_container_bench.task import output_tables as tables
from rally_container_bench.workloads import common
from rally_container_bench.workloads import tests as tests_lib
from rally_container_bench.workloads import tools


class ToolRegistryTestCase(unittest.TestCase):

    def test_every_preset_resolves_to_its_own_tool(self):
        for tool in tools.all_tools():
            self.assertTrue(tool.presets, tool.name)
            for name in tool.presets:
                self.assertIs(tool, tools.of(tests_lib.resolve(name)), name)

    def test_an_unknown_preset_is_refused_by_the_tool_it_names(self):
        with self.assertRaisesRegex(tests_lib.TestsError,
                                    "tests\\[0\\]: unknown fio preset"):
            tests_lib.resolve_all(["fio-quick-nothing"])
        with self.assertRaisesRegex(tests_lib.TestsError,
                                    "unknown sysbench preset"):
            tests_lib.resolve_all(["quick-nothing"])

    def test_the_guest_image_carries_what_every_tool_runs_inside(self):
        # images/ sits below the tools (engines load images), so the guest
        # image lists its packages itself: this keeps the two in step.
        self.assertLessEqual(set(tools.guest_packages()),
                             set(guest.PACKAGES))

    def test_versions_are_recorded_under_the_program_that_answered(self):
        self.assertEqual("nginx_version", tools.get("http").version_key)
        self.assertEqual("sysbench_version",
                         tools.get("sysbench").version_key)
        with self.assertRaisesRegex(KeyError, "known: sysbench, fio"):
            tools.get("stress-ng")

    def test_servers_listen_on_the_ports_engines_forward(self):
        self.assertEqual((5201, 8080), tools.server_ports())
        forwards = libvirt.hostfwd_option(2222, {5201: 40001, 8080: 40002})
        self.assertEqual("hostfwd=tcp:127.0.0.1:2222-:22,"
                         "hostfwd=tcp:127.0.0.1:40001-:5201,"
                         "hostfwd=tcp:127.0.0.1:40002-:8080", forwards)
        self.assertEqual((), base.Driver.server_ports)

    def test_a_network_test_without_a_way_in_says_so(self):
        job = common.Job(executor=None, workdir="/root", timeout=5)
        spec = tests_lib.resolve("iperf3-quick")
        with self.assertRaisesRegex(common.WorkloadError,
                                    "iperf3 tests need the Rally host"):
            tools.of(spec).run(spec, job)

    def test_the_report_reads_the_titles_the_scenarios_write(self):
        title = tables.workload("fio", "randread")
        self.assertEqual(("fio", "randread"), tables.split_workload(title))
        iteration = {"output": {"additive": [{
            "title": title, "data": [["iops (IO/s)", 120.0]]}]}}
        self.assertEqual(
            [("fio.randread.iops", "IO/s", True, 120.0)],
            list(results._values_of_stats_tables(iteration)))

    def test_paired_tools_are_the_ones_native_can_run_alike(self):
        self.assertEqual(["fio", "sysbench"], sorted(
            t.name for t in tools.all_tools() if t.paired))
