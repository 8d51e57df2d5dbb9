"""Which sysbench build runs where: read, bundled, placed.

The bundles are made of this host's own executables (/bin/true: libc and
the loader) and run for real. The "remote" side is a stand-in: commands
run here through a subprocess, as an SSH executor would run them on a
guest (put_archive unpacks with tar). tests/functional/test_sysbench_
build.py pushes to a real guest over SSH.
"""

import io
import os
import shutil
import subprocess
import tarfile
import tempfile
import unittest
from unittest import mock

from oslo_config import cfg

from rally_container_bench.core import base
from rally_container_bench.images import sysbench_build as build
from rally_container_bench.images import sysbench_bundle as bundle
from rally_container_bench import opts
from rally_container_bench.task.scenarios import sysbench_builds

FIXTURES = os.path.join(os.path.dirname(__file__), "..", "fixtures",
                        "sysbench", "ldd")
SHA = {c: c * 64 for c in "abcdef"}


def fixture(name):
    with open(os.path.join(FIXTURES, name)) as f:
        return f.read()


class ReadTestCase(unittest.TestCase):

    def test_a_build_is_its_files_by_name_not_by_directory(self):
        one = build.read("%s  /usr/bin/sysbench\n%s  /lib/x/libc.so.6\n"
                         "%s  /lib64/ld-linux-x86-64.so.2\n"
                         % (SHA["a"], SHA["b"], SHA["c"]))
        other = build.read("%s  bin/sysbench\n%s  lib/ld-linux-x86-64.so.2"
                           "\n%s  lib/libc.so.6\n"
                           % (SHA["a"], SHA["c"], SHA["b"]))
        self.assertEqual(one.id, other.id)
        self.assertEqual(SHA["a"], one.binary_sha256)
        self.assertEqual(3, len(one.files))

    def test_another_library_is_another_build(self):
        one = build.read("%s  sysbench\n%s  libc.so.6\n"
                         % (SHA["a"], SHA["b"]))
        other = build.read("%s  sysbench\n%s  libc.so.6\n"
                           % (SHA["a"], SHA["d"]))
        self.assertNotEqual(one.id, other.id)
        self.assertEqual(one.binary_sha256, other.binary_sha256)

    def test_the_executable_is_named_sysbench_whatever_its_file(self):
        self.assertEqual(build.read("%s  /opt/sb-1.0/sysbench-1.0\n"
                                    % SHA["a"]).id,
                         build.read("%s  sysbench\n" % SHA["a"]).id)

    def test_what_is_no_sha256sum_line_is_refused(self):
        for text in ("", "sha256sum: x: No such file or directory\n"):
            with self.assertRaises(build.BuildError):
                build.read(text)


class LddTestCase(unittest.TestCase):

    def test_debians_sysbench_loads_thirty_libraries_and_a_loader(self):
        libraries, loader = build.parse_ldd(
            fixture("sysbench-1.0.20-bookworm.txt"))
        names = [name for name, _ in libraries]
        self.assertEqual(30, len(libraries))
        self.assertIn("libluajit-5.1.so.2", names)
        self.assertNotIn("linux-vdso.so.1", names)
        self.assertEqual("/lib64/ld-linux-x86-64.so.2", loader)

    def test_a_static_executable_loads_nothing(self):
        self.assertEqual(([], None), build.parse_ldd(fixture("static.txt")))

    def test_a_library_not_found_is_an_error(self):
        with self.assertRaisesRegex(build.BuildError, "libluajit"):
            build.parse_ldd("\tlibluajit-5.1.so.2 => not found\n")


def _conf(cache, **overrides):
    conf = cfg.ConfigOpts()
    opts.register(conf)
    conf([], project="rcbench-test")
    for name, value in dict(overrides, image_cache_dir=cache).items():
        conf.set_override(name, value, opts.GROUP)
    return conf[opts.GROUP]


class BundleTestCase(unittest.TestCase):

    def setUp(self):
        self.cache = tempfile.mkdtemp(prefix="rcbench-bundle-test-")
        self.addCleanup(shutil.rmtree, self.cache)

    def test_the_bundle_runs_and_is_the_build_it_was_made_of(self):
        made = bundle.of_executable("/bin/true", _conf(self.cache))
        self.assertEqual(0, subprocess.call([made.wrapper]))
        inside = subprocess.run(build.bundle_argv(made.dir),
                                capture_output=True, text=True)
        here = subprocess.run(build.own_argv("/bin/true"),
                              capture_output=True, text=True)
        self.assertEqual(made.build.id, build.read(inside.stdout).id)
        self.assertEqual(made.build.id, build.read(here.stdout).id)
        self.assertTrue(any(name.startswith("libc.so")
                            for name, _ in made.build.files))

    def test_the_archive_is_the_same_bytes_each_time(self):
        first = bundle.of_executable("/bin/true", _conf(self.cache))
        data = first.read_archive()
        shutil.rmtree(first.dir)
        bundle._made.cache_clear()
        again = bundle.of_executable("/bin/true", _conf(self.cache))
        self.assertEqual(data, again.read_archive())
        with tarfile.open(fileobj=io.BytesIO(data)) as tar:
            self.assertIn(build.BINARY, tar.getnames())
            self.assertNotIn(bundle.ARCHIVE, tar.getnames())

    def test_no_such_executable_says_what_to_install(self):
        with self.assertRaisesRegex(bundle.BundleError, "apt-get install"):
            bundle.of_executable("no-such-sysbench-here",
                                 _conf(self.cache))


class ElsewhereExecutor(base.Executor):
    """Stand-in for an SSH executor: runs here, but not as this host."""

    kind = "elsewhere"

    def __init__(self):
        self.pushed = []
        self.runs = 0

    def run(self, argv, timeout, cwd=None):
        self.runs += 1
        proc = subprocess.run([str(a) for a in argv], capture_output=True,
                              text=True, timeout=timeout, cwd=cwd)
        return base.CommandResult(" ".join(argv), proc.returncode,
                                  proc.stdout, proc.stderr, 0.1)

    def put_archive(self, data, directory, timeout):
        self.pushed.append(directory)
        os.makedirs(directory, exist_ok=True)
        with tarfile.open(fileobj=io.BytesIO(data)) as tar:
            tar.extractall(directory)


class PlaceTestCase(unittest.TestCase):
    """Each mode, with /bin/true and /bin/false as two builds."""

    def setUp(self):
        self.cache = tempfile.mkdtemp(prefix="rcbench-bundle-test-")
        self.addCleanup(shutil.rmtree, self.cache)
        self.conf = _conf(self.cache, sysbench_path="/bin/true")
        self.instance = ElsewhereExecutor()
        self.twin = base.pinned(ElsewhereExecutor(), None)
        self.here = HereExecutor()
        made = bundle.of_executable("/bin/true", self.conf)
        self.addCleanup(shutil.rmtree, build.remote_dir(made.build.id),
                        True)

    def place(self, instance, twin, mode):
        with mock.patch.object(opts, "register", return_value=self.conf):
            return sysbench_builds.place(instance, twin, mode, 30)

    def test_auto_keeps_one_build_on_both_sides(self):
        placed, twin = self.place((self.instance, "/bin/true"),
                                  (self.here, "/bin/true"), "auto")
        self.assertEqual(("/bin/true", "/bin/true"),
                         (placed.executable, twin.executable))
        self.assertEqual(placed.build.id, twin.build.id)
        self.assertEqual([], self.instance.pushed)
        self.assertNotIn("sysbench_builds",
                         sysbench_builds.environment(placed, twin))

    def test_auto_pushes_the_twins_build_where_the_instance_differs(self):
        placed, twin = self.place((self.instance, "/bin/false"),
                                  (self.here, "/bin/true"), "auto")
        self.assertEqual("/bin/true", twin.executable)
        self.assertEqual(twin.build.id, placed.build.id)
        self.assertEqual(1, len(self.instance.pushed))
        self.assertEqual(0, subprocess.call([placed.executable]))
        self.assertIn("pushed", sysbench_builds.environment(
            placed, twin)["sysbench_build"])
        # a second instance on that host finds the bundle there
        again, _ = self.place((self.instance, "/bin/false"),
                              (self.here, "/bin/true"), "auto")
        self.assertEqual(1, len(self.instance.pushed))
        self.assertEqual(placed.executable, again.executable)

    def test_what_an_image_holds_is_read_once(self):
        image = "image-%s" % self.id()
        for _ in range(3):
            placed, twin = sysbench_builds.place(
                (self.instance, "/bin/true"), (self.here, "/bin/true"),
                "auto", 30, image=image)
            self.assertEqual(twin.build.id, placed.build.id)
        self.assertEqual(1, self.instance.runs)
        # an instance of no known image is read each time
        sysbench_builds.place((self.instance, "/bin/true"),
                              (self.here, "/bin/true"), "auto", 30)
        self.assertEqual(2, self.instance.runs)

    def test_image_keeps_two_builds_and_says_so(self):
        placed, twin = self.place((self.instance, "/bin/false"),
                                  (self.here, "/bin/true"), "image")
        self.assertEqual("/bin/false", placed.executable)
        self.assertEqual([], self.instance.pushed)
        self.assertIn("two builds", sysbench_builds.environment(
            placed, twin)["sysbench_builds"])

    def test_pushed_reaches_a_twin_elsewhere_through_its_wrapper(self):
        placed, twin = self.place((self.instance, "/bin/true"),
                                  (self.twin, "/bin/true"), "pushed")
        # both already are the bundle's build: they keep their own
        self.assertEqual(("/bin/true", "/bin/true"),
                         (placed.executable, twin.executable))
        placed, twin = self.place((self.instance, "/bin/false"),
                                  (self.twin, "/bin/false"), "pushed")
        self.assertEqual(placed.executable, twin.executable)
        self.assertTrue(placed.executable.endswith("/sysbench"))


class HereExecutor(ElsewhereExecutor):
    """This host (a native twin): read through sysbench_builds' cache."""

    on_host = True
    kind = "native"


if __name__ == "__main__":
    unittest.main()
