"""sysbench as an instance's own command (ZunContainers' "via: logs"), for
real: the script runs in a Docker container of the guest image with its
own sysbench, and its log, replayed, gives the same kind of metrics the
SSH path gives. No cloud needed: Zun reads a container's log the same way
(tests/functional_openstack/test_zun_sample.py runs it through Zun).
"""

import unittest
import uuid

from rally_container_bench.engines import registry
from rally_container_bench import opts
from rally_container_bench.workloads.sysbench import run as sysbench_run
from rally_container_bench.workloads.sysbench import script as sysbench_script


class ScriptInAContainerTestCase(unittest.TestCase):

    def setUp(self):
        conf = opts.register()
        usable, why = registry.instance_class("docker").check(conf)
        if not usable:
            self.skipTest(why)
        self.driver = registry.prepared_instance("docker", conf)
        self.client = self.driver.client

    def run_script(self, plan):
        name = "rcbench_functest_script_%s" % uuid.uuid4().hex[:8]
        container = self.client.containers.run(
            self.driver.image.tag, list(plan.command()), name=name,
            network_mode="none", detach=True, labels={"rcbench": "1"})
        try:
            status = container.wait(timeout=300)
            return status["StatusCode"], container.logs(stdout=True,
                                                        stderr=True)
        finally:
            container.remove(force=True)

    def test_every_step_replays_through_the_ordinary_path(self):
        plan = sysbench_script.Plan.of(
            ["quick-cpu", "quick-fileio-seqrd", "quick-memory-read"],
            "/root/rcbench work")
        code, log = self.run_script(plan)
        self.assertEqual(0, code, log[-2000:])
        replay = plan.replay(log)
        version = sysbench_run.detect_version(replay, "sysbench", 60)
        self.assertTrue(version.startswith("1."), version)
        timings = []
        results = {}
        for spec in plan.specs:
            run = sysbench_run.run_test(
                replay, spec, version, "sysbench", plan.workdir, 60,
                timed=lambda label: replay.timed(
                    lambda s, f, label=label: timings.append(
                        (label, f - s))))
            results[spec.label] = run.result.metrics
        self.assertGreater(results["cpu"]["events_per_s"].value, 0)
        self.assertGreater(results["memory.read"]["mib_per_s"].value, 0)
        self.assertGreater(results["fileio.seqrd"]["read_mib_per_s"].value,
                           0)
        self.assertEqual(["cpu", "fileio.seqrd", "memory.read"],
                         [label for label, _ in timings])
        # The container's clock timed the run, and it agrees with the
        # time sysbench itself reports (within the shell's overhead).
        cpu_seconds = dict(timings)["cpu"]
        reported = results["cpu"]["total_time_s"].value
        self.assertGreaterEqual(cpu_seconds, reported)
        self.assertLess(cpu_seconds, reported + 5)

    def test_a_missing_sysbench_leaves_no_step_to_replay(self):
        plan = sysbench_script.Plan.of(["quick-cpu"], "/tmp",
                                       executable="/no/such/sysbench")
        code, log = self.run_script(plan)
        replay = plan.replay(log)
        with self.assertRaisesRegex(sysbench_run.SysbenchError,
                                    "--version exited 127"):
            sysbench_run.detect_version(replay, "/no/such/sysbench", 60)
