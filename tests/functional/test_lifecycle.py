"""ContainerLifecycle on every local runtime, for real, through Rally's CLI.

One run of tasks/local_lifecycle.yaml with tasks/args/lifecycle-quick.yaml
(every runtime: 3 parallel (VMs 2), footprint at N = 1), then
its results, the comparison report, and each engine asked for leftovers.

Why ~4 min in CI (~2.7 alone): 12 runtimes x 3 workloads, each a Rally
workload with its own contexts, two QEMU guests booting under TCG, and the
other stestr worker's tests on the same two cores. One task for all: a
runtime's wiring is only proven through Rally's own runner.
"""

import os
import unittest

import yaml

from rally_container_bench.decide import rally_tasks
from rally_container_bench.engines.libvirt import acceleration
from rally_container_bench.engines import registry
from rally_container_bench import opts
from rally_container_bench.report import comparison
from rally_container_bench.report import render
from tests.functional import helpers

TASK = os.path.join("tasks", "local_lifecycle.yaml")
ARGS = os.path.join("tasks", "args", "lifecycle-quick.yaml")
# Runtimes with a process between the engine and the workload (shim,
# conmon, lxc monitor, CRI's pause; QEMU), and with a daemon.
WITH_OVERHEAD = {"docker", "docker-runsc", "podman-runc", "podman-crun",
                 "podman-runsc", "runsc", "containerd", "cri-containerd",
                 "lxc", "kvm"}
WITH_DAEMON = {"docker", "docker-runsc", "containerd", "cri-containerd",
               "kvm"}
# The workload runs inside a kernel of the instance's own (QEMU's guest,
# gVisor's Sentry): all of the instance is overhead.
OWN_KERNEL = {"kvm", "runsc", "docker-runsc", "podman-runsc"}


def by_runtime(report):
    """{runtime: [(scenario name, args, workload)]}."""
    found = {}
    for workload in helpers.workloads(report):
        name, args = next(iter(workload["scenario"].items()))
        found.setdefault(args["runtime"], []).append((name, args, workload))
    return found


class LifecycleTaskTestCase(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.conf = opts.register()
        cls.home = helpers.RallyHome()
        cls.uuid, _ = cls.home.start(TASK, "--task-args-file", ARGS)
        cls.report = cls.home.results(cls.uuid)
        cls.runs = by_runtime(cls.report)
        with open(os.path.join(helpers.TOP, ARGS)) as f:
            cls.args = yaml.safe_load(f)

    @classmethod
    def tearDownClass(cls):
        cls.home.close()

    def test_every_runtime_every_profile_without_failures(self):
        self.assertEqual(set(registry.LIFECYCLE_NAMES), set(self.runs))
        for runtime, runs in self.runs.items():
            with self.subTest(runtime=runtime):
                kinds = sorted({(name.split(".")[1],
                                 w["runner"]["constant"]["concurrency"])
                                for name, _, w in runs})
                steps = {self.args["vm_parallel" if runtime == "kvm"
                                   else "parallel"]}
                if self.args["serial"]:
                    steps.add(1)
                self.assertEqual(sorted(
                    [("footprint", 1)] +
                    [(verbs, step) for step in steps
                     for verbs in ("create_start_stop_remove",
                                   "run_and_remove")]), kinds)
                for name, _, workload in runs:
                    self.assertEqual(0, workload["failed_iteration_count"],
                                     "%s %s" % (runtime, name))

    def test_verbs_are_atomic_actions_with_durations(self):
        expected = {"ContainerLifecycle.create_start_stop_remove":
                    ["create", "start", "stop", "remove"],
                    "ContainerLifecycle.run_and_remove": ["run"],
                    "ContainerLifecycle.footprint": []}
        for runtime, runs in self.runs.items():
            for name, _, workload in runs:
                for iteration in workload["data"]:
                    self.assertEqual(expected[name],
                                     helpers.atomic_names(iteration))
                    for action in iteration["atomic_actions"]:
                        self.assertGreater(
                            action["finished_at"], action["started_at"],
                            "%s %s" % (runtime, action["name"]))

    def footprints(self, runtime):
        """{N: {metric: KiB}} of a runtime."""
        found = {}
        for name, args, workload in self.runs[runtime]:
            if name == "ContainerLifecycle.footprint":
                (iteration,) = workload["data"]
                found[args["instances"]] = {
                    key.split("@")[0]: value for key, value in
                    helpers.additive(iteration)["footprint"].items()}
        return found

    def test_footprint_per_runtime(self):
        sizes = {}
        for runtime in registry.LIFECYCLE_NAMES:
            with self.subTest(runtime=runtime):
                found = self.footprints(runtime)
                self.assertEqual(sorted(self.args["footprint"]),
                                 sorted(found))
                for n, values in found.items():
                    self.assertGreater(values["instance"], 100, n)
                    self.assertLessEqual(values["overhead"],
                                         values["instance"])
                    if runtime in WITH_OVERHEAD:
                        self.assertGreater(values["overhead"], 0, n)
                    else:
                        self.assertEqual(0, values["overhead"], n)
                    self.assertAlmostEqual(values["daemon"] / n,
                                           values["daemon_share"])
                    if runtime in WITH_DAEMON:
                        self.assertGreater(values["daemon"], 1000, n)
                    else:
                        self.assertEqual(0, values["daemon"], n)
                sizes[runtime] = found[1]["instance"]
        # A VM carries a whole guest kernel: more than any container.
        self.assertEqual("kvm", max(sizes, key=sizes.get), sizes)
        for runtime in OWN_KERNEL:
            own = self.footprints(runtime)[1]
            self.assertEqual(own["instance"], own["overhead"], runtime)
        # gVisor's Sentry costs more than a runc container's processes.
        self.assertGreater(sizes["docker-runsc"], sizes["docker"], sizes)

    def test_footprint_by_host_memory_drop(self):
        # gVisor's method, beside PSS. Only its presence is checked here:
        # the test beside this one on the other stestr worker moves the
        # host's free memory by more than a busybox instance costs.
        for runtime in registry.LIFECYCLE_NAMES:
            for n, values in self.footprints(runtime).items():
                self.assertIsInstance(values.get("host_drop"), float,
                                      (runtime, n))

    def test_runsc_records_gvisor_platform(self):
        for runtime in ("runsc", "docker-runsc", "podman-runsc"):
            for _, _, workload in self.runs[runtime]:
                env = helpers.environment(workload["data"][0])
                self.assertEqual("runsc", env["runtime"])
                self.assertEqual("gvisor-" + self.conf.runsc_platform,
                                 env["acceleration"], runtime)

    def test_vm_records_the_acceleration_used(self):
        accel, _ = acceleration.detect(self.conf.vm_acceleration)
        for _, _, workload in self.runs["kvm"]:
            env = helpers.environment(workload["data"][0])
            self.assertEqual(accel, env["acceleration"])
            self.assertEqual("qemu", env["runtime"])

    def test_comparison_report_has_lifecycle_and_footprint(self):
        report = comparison.build([self.report])
        labels = {p["label"] for p in report["platforms"]}
        accel, _ = acceleration.detect(self.conf.vm_acceleration)
        self.assertIn("qemu-" + accel, labels)
        self.assertIn("docker-runsc-" + self.conf.runsc_platform, labels)
        self.assertEqual(len(registry.LIFECYCLE_NAMES), len(labels))
        most = max(self.args["footprint"])
        for metric in ("create", "start", "stop", "remove", "run",
                       "footprint.instance@1", "footprint.overhead@%d" % most):
            rows = comparison.rows_for(report, metric)
            self.assertEqual(labels, {r["platform"] for r in rows}, metric)
            for row in rows:
                self.assertGreater(row["n"], 0)
        headline = [m["name"] for m in report["metrics"] if m["headline"]]
        self.assertIn("create", headline)
        self.assertIn("footprint.instance@%d" % most, headline)
        markdown = render.to_markdown(report)
        self.assertIn("footprint.instance@1", markdown)

    def test_engines_hold_nothing_of_the_task(self):
        owners = [w["uuid"] for w in helpers.workloads(self.report)]
        matches = rally_tasks.name_matcher(owners)
        for runtime in registry.LIFECYCLE_NAMES:
            driver = registry.lifecycle_class(runtime)(None, self.conf)
            self.assertEqual([], [n for n in driver.list_ours()
                                  if matches(n)], runtime)
