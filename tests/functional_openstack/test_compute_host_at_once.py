"""The cloud's A/A at once, on a compute host of two cores.

The test cloud's compute hosts give their instances one CPU each, so every
pair there runs in sequence (test_cloud_verdicts checks that each says
so). Here Nova's two QEMU hosts are reached, through compute_hosts, at a
login of this machine that is no host's cpuset: an sshd on loopback with
the test cloud's keys, started by this test. That login is a stand-in
for a compute host of two cores (this machine's); the rest is the real
path of a cloud's A/A: ComputeHosts.against_twin from Nova's list of
hosts, the host's CPUs read over SSH, both sides pinned there, released
at one instant with each side's clock read over its login, the skew
measured on both sides. Skips without the cloud or with one core here.

Why ~1 min: four A/A iterations (no instance boots), each the quick cpu
and memory tests twice at once.
"""

import json
import os
import socket
import subprocess
import tempfile
import unittest

from rally_container_bench.validity import cpu_pairs
from tests.functional import helpers
from tests.functional import test_decide_at_once
from tests.functional_openstack import cloud as aio

KEYS = os.path.join(aio.AIO, "hosts")


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class ComputeHostAtOnceTestCase(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        usable, siblings = cpu_pairs.host_cpus()
        if len(cpu_pairs.one_per_core(usable, siblings)) < 2:
            raise unittest.SkipTest("one core: every pair runs in sequence")
        cls.tmp = tempfile.TemporaryDirectory(prefix="rcbench-at-once-")
        port = _free_port()
        config = os.path.join(cls.tmp.name, "sshd.conf")
        with open(config, "w") as f:
            f.write("ListenAddress 127.0.0.1:%d\n"
                    "HostKey %s/ssh_host_ed25519_key\n"
                    "AuthorizedKeysFile %s/authorized_keys\n"
                    "PermitRootLogin prohibit-password\n"
                    "PasswordAuthentication no\nUsePAM no\nPidFile none\n"
                    "StrictModes no\nMaxSessions 100\n" % (port, KEYS, KEYS))
        os.makedirs("/run/sshd", exist_ok=True)
        cls.sshd = subprocess.Popen(["/usr/sbin/sshd", "-D", "-e", "-f",
                                     config], stderr=subprocess.DEVNULL)
        hosts = {"user": "root", "port": port,
                 "key_file": os.path.join(KEYS, "id_ed25519"),
                 "hosts": {name: {"address": "127.0.0.1"}
                           for name in ("aio-qemu", "aio-qemu-2")}}
        task = os.path.join(cls.tmp.name, "task.json")
        workload = {
            "scenario": {"ComputeHosts.against_twin": {
                "service": "nova", "hypervisor_type": "qemu",
                "tests": ["quick-cpu", "quick-memory-read"],
                "pairing": "at-once", "compute_hosts": hosts}},
            "runner": {"constant": {"times": 4, "concurrency": 1}},
            "sla": {"failure_rate": {"max": 0}}}
        with open(task, "w") as f:
            json.dump({"version": 2, "title": "A/A at once on a compute host",
                       "subtasks": [{"title": "A/A at once",
                                     "workloads": [workload]}]}, f)
        cls.home = None
        try:
            cls.home = aio.aio_rally_home()
            cls.uuid, _ = cls.home.start(task)
            cls.report = cls.home.results(cls.uuid)
        except Exception:
            cls.tearDownClass()
            raise

    @classmethod
    def tearDownClass(cls):
        cls.sshd.terminate()
        cls.sshd.wait(30)
        if cls.home is not None:
            cls.home.close()
        cls.tmp.cleanup()

    def test_native_and_its_twin_start_together_on_two_cores(self):
        workload, = helpers.workloads(self.report)
        placed = {}
        for iteration in workload["data"]:
            self.assertFalse(iteration["error"], iteration["error"])
            env = helpers.environment(iteration)
            self.assertIn("native-aa-on-qemu", env["driver"])
            self.assertIn("; at once (cpu, memory)", env["pairing"])
            placed.setdefault(env["compute_host"], set()).add(
                env["pinning"])
            kept = [r for r in test_decide_at_once._records(iteration)
                    if r.metadata.get("final")]
            self.assertTrue(kept)
            for record in kept:
                facts = record.metadata
                self.assertEqual("at once", facts["pairing"], facts)
                mine, twin = [int(w.rstrip(",")) for w in
                              facts["cpus"].split()
                              if w.rstrip(",").isdigit()]
                self.assertNotEqual(mine, twin)
                # measured on both sides, each on its own login's clock
                self.assertIn("skew_ms", facts)
        # on each host the sides took turns on the two CPUs
        self.assertEqual({"aio-qemu": 2, "aio-qemu-2": 2},
                         {h: len(p) for h, p in placed.items()}, placed)
