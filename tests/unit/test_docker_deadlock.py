"""engines/docker/deadlock tells libnetwork's deadlock apart, remembers it.

The clients here are stand-ins: the deadlock itself (Debian's docker.io
20.10.24, two locks taken in opposite orders) cannot be made on demand;
its real goroutine dump is described in the module.
tests/functional/test_docker_deadlock.py drives the docker CLI and SDK
against a stand-in daemon that deadlocks the same way.
"""

import unittest
from unittest import mock

import requests

from rally_container_bench.engines.docker import deadlock

URL = "unix:///nowhere"


class _Client:
    """Stand-in for docker.APIClient: ping and networks as scripted."""

    def __init__(self, ping, networks):
        self._ping, self._networks = ping, networks
        self.asked = 0

    def ping(self):
        self.asked += 1
        if isinstance(self._ping, Exception):
            raise self._ping
        return True

    def networks(self):
        if isinstance(self._networks, Exception):
            raise self._networks
        return []


def _deadlocked():
    return _Client(True, requests.exceptions.ReadTimeout("3 s"))


class ProbeTestCase(unittest.TestCase):

    def verdict(self, ping, networks):
        return deadlock.probe(URL, client=_Client(ping, networks))

    def test_ping_answers_and_networks_hang_is_the_deadlock(self):
        hint = deadlock.probe(URL, client=_deadlocked())
        self.assertIn("moby/libnetwork#2679", hint)
        self.assertIn("rcbench engines stop docker", hint)

    def test_a_daemon_that_answers_both_or_neither_is_not(self):
        self.assertIsNone(self.verdict(True, True))
        self.assertIsNone(self.verdict(
            requests.exceptions.ConnectionError("gone"), True))
        self.assertIsNone(self.verdict(
            True, requests.exceptions.ConnectionError("gone")))


class RememberedTestCase(unittest.TestCase):

    def setUp(self):
        patcher = mock.patch.dict(deadlock._found, clear=True)
        patcher.start()
        self.addCleanup(patcher.stop)

    def test_never_found_sends_the_call_without_asking(self):
        client = _deadlocked()
        self.assertIsNone(deadlock.known(URL, client=client))
        self.assertEqual(0, client.asked)

    def test_found_once_the_next_calls_fail_without_asking(self):
        self.assertEqual(deadlock.HINT,
                         deadlock.after_timeout(URL, client=_deadlocked()))
        client = _deadlocked()
        for _ in range(3):
            self.assertEqual(deadlock.HINT, deadlock.known(URL, client))
        self.assertEqual(0, client.asked)
        self.assertIsNone(deadlock.known("unix:///other", client))

    def test_a_restarted_daemon_is_sent_calls_again(self):
        deadlock.after_timeout(URL, client=_deadlocked())
        with mock.patch.object(deadlock, "RECHECK_S", 0.0):
            self.assertEqual(deadlock.HINT,
                             deadlock.known(URL, _deadlocked()))
            answering = _Client(True, True)
            self.assertIsNone(deadlock.known(URL, answering))
            self.assertEqual(1, answering.asked)
            self.assertIsNone(deadlock.known(URL, _deadlocked()))

    def test_a_timeout_that_is_not_the_deadlock_is_not_remembered(self):
        self.assertIsNone(deadlock.after_timeout(URL, _Client(True, True)))
        self.assertIsNone(deadlock.known(URL, _deadlocked()))
