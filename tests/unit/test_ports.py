"""Loopback ports leased across processes (Rally's runner forks them)."""

import multiprocessing
import os
import shutil
import tempfile
import time
import types
import unittest
from unittest import mock

from rally_container_bench.core import ports


def _conf(directory):
    return types.SimpleNamespace(daemon_state_dir=directory)


def _reserve_many(directory, count, colliding, queue):
    probe = None
    if colliding:
        # A stand-in for the kernel handing every process the same ports
        # in the same order: the worst case of the probe-then-bind race.
        sequence = iter(range(40000, 40000 + 10 * count))
        probe = lambda: next(sequence)  # noqa: E731
    got = [ports.reserve(_conf(directory), probe=probe or ports._probe)
           for _ in range(count)]
    queue.put(got)


class LeaseTestCase(unittest.TestCase):

    def setUp(self):
        self.dir = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.dir)

    def _in_processes(self, processes, count, colliding):
        queue = multiprocessing.Queue()
        workers = [multiprocessing.Process(
            target=_reserve_many, args=(self.dir, count, colliding, queue))
            for _ in range(processes)]
        for worker in workers:
            worker.start()
        got = [queue.get(timeout=60) for _ in workers]
        for worker in workers:
            worker.join(60)
            self.assertEqual(0, worker.exitcode)
        return [port for each in got for port in each]

    def test_processes_given_the_same_probes_get_different_ports(self):
        got = self._in_processes(processes=4, count=8, colliding=True)
        self.assertEqual(32, len(got))
        self.assertEqual(32, len(set(got)), sorted(got))

    def test_real_probes_in_processes_never_share_a_port(self):
        got = self._in_processes(processes=4, count=16, colliding=False)
        self.assertEqual(len(got), len(set(got)))
        self.assertTrue(all(1024 < port < 65536 for port in got))

    def test_an_old_lease_is_taken_over_a_fresh_one_is_not(self):
        conf = _conf(self.dir)
        first = ports.reserve(conf, probe=lambda: 40100)
        with self.assertRaises(OSError) as raised:
            ports.reserve(conf, probe=lambda: 40100)
        self.assertIn("no free loopback port", str(raised.exception))
        old = time.time() - ports.LEASE_S - 1
        os.utime(os.path.join(ports.lease_dir(conf), str(first)),
                 (old, old))
        self.assertEqual(40100, ports.reserve(conf, probe=lambda: 40100))

    def test_prune_removes_old_leases_only(self):
        conf = _conf(self.dir)
        for port in (40200, 40201):
            ports.reserve(conf, probe=lambda p=port: p)
        old = time.time() - ports.LEASE_S - 1
        os.utime(os.path.join(ports.lease_dir(conf), "40200"), (old, old))
        ports.prune(conf)
        self.assertEqual(["40201"], os.listdir(ports.lease_dir(conf)))

    def test_a_state_dir_this_user_cannot_write_falls_back_to_tmp(self):
        read_only = os.path.join(self.dir, "ro")
        os.makedirs(os.path.join(read_only, "ports"))
        os.chmod(os.path.join(read_only, "ports"), 0o555)
        self.addCleanup(os.chmod, os.path.join(read_only, "ports"), 0o755)
        with mock.patch.object(os, "access", return_value=False):
            directory = ports.lease_dir(_conf(read_only))
        self.assertTrue(directory.startswith(tempfile.gettempdir()))
        self.assertIn("rcbench-ports-%d" % os.getuid(), directory)
