"""The guest image as engines keep it, for a second user of the host.

Every build of the guest image makes its own key pair. A second HOME (an
operator, a CI user) builds the same inputs with another key; Docker and
Podman must not hand it the first one's image, whose sshd refuses its key
(that cost a quickstart 10 minutes per iteration). A guest that refuses
the key fails the network phase within seconds, saying so. And a cache
under a symlinked directory works (runc refuses a symlinked rootfs).

The second HOME's cache is the real one with a new key: hard links of
every file but the key and the Docker/Podman tarball, whose authorized
key is replaced, as a build under that HOME would make them.
"""

import io
import os
import shutil
import subprocess
import tarfile
import tempfile
import time
import unittest

from rally_container_bench.core import base
from rally_container_bench.engines import registry
from rally_container_bench.images import guest
from rally_container_bench import opts
from tests.functional import helpers
from tests.unit.test_drivers_pure import conf as conf_with

AUTHORIZED_KEYS = "./root/.ssh/authorized_keys"


def _link_or_copy(source, target):
    try:
        os.link(source, target)
    except OSError:
        shutil.copy2(source, target)


def second_cache(image, parent, authorize_new_key=True):
    """A cache dir holding image's build with a key of its own.

    authorize_new_key=False: the tarball still authorizes the old key (an
    engine image that does not match its cache).
    """
    cache = tempfile.mkdtemp(prefix="rcbench-second-home-", dir=parent)
    copy = guest.GuestImage(os.path.join(cache, os.path.basename(image.dir)),
                            image.id)
    os.makedirs(copy.dir)
    for name in os.listdir(image.dir):
        source = os.path.join(image.dir, name)
        if os.path.isfile(source) and not name.startswith(guest.KEY_NAME) \
                and name != os.path.basename(image.tarball):
            _link_or_copy(source, os.path.join(copy.dir, name))
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C",
                    "second home", "-f", copy.private_key], check=True)
    if not authorize_new_key:
        _link_or_copy(image.tarball, copy.tarball)
        return cache, copy
    with open(copy.private_key + ".pub", "rb") as f:
        new_key = f.read()
    with tarfile.open(image.tarball) as old, \
            tarfile.open(copy.tarball, "w", format=old.format) as new:
        for member in old:
            if member.name == AUTHORIZED_KEYS:
                member.size = len(new_key)
                new.addfile(member, io.BytesIO(new_key))
            elif member.isfile():
                new.addfile(member, old.extractfile(member))
            else:
                new.addfile(member)
    return cache, copy


class SecondHomeTestCase(unittest.TestCase):
    """Docker and Podman under a second HOME on the same host."""

    @classmethod
    def setUpClass(cls):
        cls.conf = opts.register()
        cls.image = registry.guest_image(cls.conf)
        parent = os.path.dirname(opts.resolved_dir(cls.conf.image_cache_dir))
        cls.cache, cls.copy = second_cache(cls.image, parent)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.cache, ignore_errors=True)

    def boot_and_login(self, driver_name):
        conf = conf_with(image_cache_dir=self.cache)
        helpers.usable_conf(self, driver_name)
        driver = registry.instance_class(driver_name)(
            registry.guest_image(conf), conf)
        self.assertNotEqual(self.image.tag, driver.image.tag)
        driver.prepare()
        self.addCleanup(self.forget_image, driver_name, driver.image.tag)
        instance = driver.create("rcbench-second-home-%d" % time.time_ns())
        self.addCleanup(helpers.discard_if_left, driver.name, instance.name,
                        driver.conf)
        driver.wait_running(instance, 120)
        driver.wait_reachable(instance, 120)
        result = driver.executor(instance).run(
            ["cat", "/root/.ssh/authorized_keys"], 60)
        with open(self.copy.private_key + ".pub") as f:
            self.assertEqual(f.read(), result.stdout)

    @staticmethod
    def forget_image(driver_name, tag):
        engine = "docker" if driver_name == "docker" else "podman"
        if engine == "docker":
            subprocess.run(["docker", "rmi", tag], capture_output=True)
        else:
            registry.instance_class(driver_name)(None, opts.register()) \
                .command("rmi", tag)

    def test_docker_gives_the_second_home_its_own_image(self):
        self.boot_and_login("docker")

    def test_podman_gives_the_second_home_its_own_image(self):
        self.boot_and_login("podman-runc")


class RefusedKeyTestCase(unittest.TestCase):
    """A guest whose image does not authorize the key of its cache."""

    def test_a_refused_key_fails_the_network_phase_within_seconds(self):
        conf = helpers.usable_conf(self, "docker")
        image = registry.guest_image(conf)
        parent = os.path.dirname(opts.resolved_dir(conf.image_cache_dir))
        cache, copy = second_cache(image, parent, authorize_new_key=False)
        self.addCleanup(shutil.rmtree, cache, True)
        mismatched = conf_with(image_cache_dir=cache)
        driver = registry.instance_class("docker")(copy, mismatched)
        driver.prepare()
        self.addCleanup(subprocess.run, ["docker", "rmi", copy.tag],
                        capture_output=True)
        instance = driver.create("rcbench-refused-%d" % time.time_ns())
        self.addCleanup(helpers.discard_if_left, driver.name, instance.name,
                        driver.conf)
        driver.wait_running(instance, 120)
        started = time.monotonic()
        with self.assertRaises(base.DriverError) as raised:
            driver.wait_reachable(instance, 600)
        self.assertLess(time.monotonic() - started, 10)
        self.assertIn("refused the key of the guest image in %s" % copy.dir,
                      str(raised.exception))
        self.assertIn("rcbench images build --force", str(raised.exception))


class SymlinkedCacheTestCase(unittest.TestCase):
    """image_cache_dir under a symlink: paths reach runtimes resolved."""

    def test_runc_runs_from_a_symlinked_cache(self):
        real = opts.resolved_dir(opts.register().image_cache_dir)
        scratch = tempfile.mkdtemp(prefix="rcbench-symlinked-")
        self.addCleanup(shutil.rmtree, scratch, True)
        link = os.path.join(scratch, "cache")
        os.symlink(real, link)
        conf = conf_with(image_cache_dir=link)
        usable, why = registry.lifecycle_class("runc").check(conf)
        if not usable:
            self.skipTest(why)
        driver = registry.lifecycle_class("runc")(
            registry.busybox_image(conf), conf)
        driver.prepare()
        name = "rcbench-symlinked-%d" % time.time_ns()
        driver.create(name)
        self.addCleanup(driver.discard, name)
        driver.start(name)
        self.assertGreater(driver.workload_pid(name), 1)
        driver.stop(name)
        driver.remove(name)
        self.assertNotIn(name, driver.list_ours())
