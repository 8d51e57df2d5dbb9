"""One sysbench build natively and inside the guest image, for real.

The guest image built here holds this host's sysbench bundle; a bundle
pushed over SSH to a running guest (as to a site's own image) runs there
too. Both sides' checksums and their outputs' form are compared on a
Docker guest of the guest image (reached over SSH like every guest).
"""

import time
import unittest
import uuid

from rally_container_bench.engines.native import instance as native
from rally_container_bench.engines import registry
from rally_container_bench.images import sysbench_build
from rally_container_bench.images import sysbench_bundle
from rally_container_bench.task.scenarios import sysbench_builds
from rally_container_bench.workloads.sysbench import presets
from rally_container_bench.workloads.sysbench import run as sysbench_run
from tests.functional import helpers


class OneBuildTestCase(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.conf = helpers.docker_conf()
        cls.image = registry.guest_image(cls.conf)
        cls.driver = registry.prepared_instance("docker", cls.conf)
        cls.bundle = sysbench_bundle.of_executable(None, cls.conf)
        name = "rcbench_functest_%s" % uuid.uuid4().hex[:8]
        cls.addClassCleanup(helpers.discard_if_left, "docker", name,
                            cls.conf)
        cls.instance = cls.driver.create(name)
        cls.driver.wait_running(cls.instance, cls.conf.boot_timeout)
        cls.driver.wait_reachable(cls.instance, cls.conf.ssh_timeout)
        cls.executor = cls.driver.executor(cls.instance)
        cls.addClassCleanup(cls.executor.close)

    def run_cpu(self, executor, executable):
        version = sysbench_run.detect_version(executor, executable, 60)
        return version, sysbench_run.run_test(
            executor, presets.get("quick-cpu").with_threads(1), version,
            executable, "/tmp", timeout=300)

    def test_the_guest_runs_the_build_its_native_twin_runs(self):
        placed, twin = sysbench_builds.place(
            (self.executor, "sysbench"),
            (native.NativeExecutor(), self.conf.sysbench_path),
            sysbench_builds.PUSHED, 120)
        self.assertEqual(self.bundle.build.id, twin.build.id)
        self.assertEqual(twin.build.id, placed.build.id)
        self.assertEqual(twin.build.binary_sha256,
                         placed.build.binary_sha256)
        # built with this host's sysbench: the image holds it, no push
        self.assertEqual(self.bundle.build.id,
                         self.image.describe().get("sysbench_bundle"))
        self.assertIn("baked into its image", placed.how)
        self.assertEqual(sysbench_build.baked_dir(self.bundle.build.id)
                         + "/sysbench", placed.executable)
        inside_version, inside = self.run_cpu(self.executor,
                                              placed.executable)
        here_version, here = self.run_cpu(native.NativeExecutor(),
                                          twin.executable)
        self.assertEqual(here_version, inside_version)
        self.assertEqual(sorted(here.result.metrics),
                         sorted(inside.result.metrics))
        self.assertGreater(inside.result.metrics["events_per_s"].value, 0)

    def test_a_bundle_pushed_over_ssh_runs_inside(self):
        directory = "/tmp/rcbench-push-test-%d" % time.time_ns()
        started = time.monotonic()
        self.executor.put_archive(self.bundle.read_archive(), directory, 120)
        took = time.monotonic() - started
        read = self.executor.run(sysbench_build.bundle_argv(directory), 60)
        self.assertEqual(0, read.exit_code, read.stderr)
        self.assertEqual(self.bundle.build.id,
                         sysbench_build.read(read.stdout).id)
        version, run = self.run_cpu(self.executor, directory + "/sysbench")
        self.assertEqual("1.0.20", version)
        self.assertGreater(run.result.metrics["events_per_s"].value, 0)
        # the image's own sysbench is Debian's too, its libraries may not
        # be this host's: either way its build is read, and named
        own = sysbench_builds.own(self.executor, "sysbench", 60)
        self.assertEqual(self.bundle.build.binary_sha256,
                         own.build.binary_sha256)
        print("pushed %d bytes in %.2f s" % (
            len(self.bundle.read_archive()), took))
