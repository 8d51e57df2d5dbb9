"""The stand-in for a site's cloud image, booted for real under QEMU.

images/cloud_image.py builds a whole disk with extlinux and cloud-init,
no sysbench and no key. Here QEMU boots it from its own boot loader (no
-kernel) with a NoCloud seed (an ISO labelled cidata) that gives
cloud-init this test's fresh key, as a config drive would on a cloud;
the harness logs in as cloud-init's default user, waits for cloud-init
(timed apart), finds no sysbench there, pushes this host's build and runs
the same test natively and inside, and both name one build.
QEMU's user network is restricted: the guest reaches nothing but its
forwarded SSH port on 127.0.0.1.
"""

import os
import shutil
import socket
import subprocess
import tempfile
import time
import unittest

from rally_container_bench.core import base
from rally_container_bench.core import cloud_init
from rally_container_bench.core import processes
from rally_container_bench.core import ssh
from rally_container_bench.engines.native import instance as native
from rally_container_bench.images import cloud_image
from rally_container_bench import opts
from rally_container_bench.task.scenarios import sysbench_builds
from rally_container_bench.workloads.sysbench import presets
from rally_container_bench.workloads.sysbench import run as sysbench_run

BOOT_TIMEOUT = 900  # s: a Debian kernel, systemd and cloud-init under TCG


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class CloudStandInTestCase(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        for tool in ("qemu-system-x86_64", "genisoimage", "qemu-img",
                     "mmdebstrap"):
            if shutil.which(tool) is None:
                raise unittest.SkipTest("%s is missing (tools/install-"
                                        "deps.sh installs it)" % tool)
        conf = opts.register()
        cls.image = cloud_image.build(conf.image_cache_dir)
        cls.tmp = tempfile.mkdtemp(prefix="rcbench-cloud-standin-")
        cls.addClassCleanup(shutil.rmtree, cls.tmp, True)
        key = os.path.join(cls.tmp, "id_ed25519")
        subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f",
                        key], check=True)
        with open(key + ".pub") as f:
            public = f.read().strip()
        seed = os.path.join(cls.tmp, "seed")
        os.makedirs(seed)
        with open(os.path.join(seed, "meta-data"), "w") as f:
            f.write("instance-id: rcbench-standin-%d\n"
                    "local-hostname: standin\n" % time.time_ns())
        with open(os.path.join(seed, "user-data"), "w") as f:
            f.write("#cloud-config\nssh_authorized_keys:\n  - %s\n" % public)
        iso = os.path.join(cls.tmp, "seed.iso")
        subprocess.run(["genisoimage", "-quiet", "-output", iso, "-volid",
                        "cidata", "-joliet", "-rock",
                        os.path.join(seed, "user-data"),
                        os.path.join(seed, "meta-data")], check=True)
        overlay = os.path.join(cls.tmp, "disk.qcow2")
        subprocess.run(["qemu-img", "create", "-q", "-f", "qcow2", "-b",
                        cls.image.disk, "-F", "qcow2", overlay], check=True)
        port = _free_port()
        cls.console = os.path.join(cls.tmp, "console.log")
        cls.started = time.monotonic()
        cls.qemu = subprocess.Popen(
            ["qemu-system-x86_64", "-machine", "accel=tcg", "-m", "1024",
             "-smp", "1", "-display", "none", "-monitor", "none",
             "-serial", "file:" + cls.console,
             "-drive", "file=%s,if=virtio,format=qcow2" % overlay,
             "-drive", "file=%s,media=cdrom,readonly=on" % iso,
             "-netdev", "user,id=n0,restrict=on,hostfwd=tcp:127.0.0.1:%d-:22"
             % port, "-device", "virtio-net-pci,netdev=n0"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL, start_new_session=True)
        cls.addClassCleanup(cls._stop)
        with open(key) as f:
            target = base.Instance(name="cloud-standin", id="standin",
                                   ssh_host="127.0.0.1", ssh_port=port,
                                   ssh_user=cloud_image.USER)
            cls.executor = ssh.SSHExecutor(target, f.read(),
                                           kind="cloud-standin")
        cls.addClassCleanup(cls.executor.close)
        try:
            ssh.wait_for_login(cls.executor, BOOT_TIMEOUT, 3, 300)
        except base.DriverError as e:
            raise AssertionError("%s; console: %s" % (e, cls._console()))
        cls.login_s = time.monotonic() - cls.started
        waited = time.monotonic()
        cls.status = cloud_init.wait(cls.executor, BOOT_TIMEOUT)
        cls.cloud_init_s = time.monotonic() - waited

    @classmethod
    def _stop(cls):
        processes.end_group(cls.qemu, 30)

    @classmethod
    def _console(cls):
        try:
            with open(cls.console, errors="replace") as f:
                return f.read()[-2000:]
        except OSError:
            return "(none)"

    def test_it_boots_by_itself_and_takes_the_key_through_cloud_init(self):
        print("login after %.0f s, cloud-init done %.1f s later: %s"
              % (self.login_s, self.cloud_init_s, self.status))
        self.assertIsNotNone(self.status, "no cloud-init in the stand-in")
        self.assertIn("done", self.status)
        whoami = self.executor.run(["id", "-un"], 60)
        self.assertEqual(cloud_image.USER, whoami.stdout.strip())
        # a whole disk: the root is a partition of the boot disk
        root = self.executor.run(["findmnt", "-no", "SOURCE", "/"], 60)
        self.assertEqual("/dev/vda1", root.stdout.strip())
        nothing = self.executor.run(["sh", "-c", "command -v sysbench"], 60)
        self.assertNotEqual(0, nothing.exit_code, "sysbench in the image")

    def test_this_hosts_build_is_pushed_and_runs_on_both_sides(self):
        started = time.monotonic()
        placed, twin = sysbench_builds.place(
            (self.executor, "sysbench"),
            (native.NativeExecutor(), opts.register().sysbench_path),
            sysbench_builds.AUTO, 300)
        print("placed in %.1f s: %s" % (time.monotonic() - started,
                                        placed.describe()))
        self.assertIn("pushed", placed.how)
        self.assertEqual(twin.build.id, placed.build.id)
        spec = presets.get("quick-cpu").with_threads(1)
        outputs = []
        for executor, executable in ((self.executor, placed.executable),
                                     (native.NativeExecutor(),
                                      twin.executable)):
            version = sysbench_run.detect_version(executor, executable, 60)
            outputs.append(sysbench_run.run_test(
                executor, spec, version, executable, "/tmp", timeout=600))
        inside, here = outputs
        self.assertEqual(sorted(here.result.metrics),
                         sorted(inside.result.metrics))
        self.assertGreater(inside.result.metrics["events_per_s"].value, 0)
