"""engines/docker/daemon.network_deadlock tells libnetwork's deadlock apart.

The clients here are stand-ins: the deadlock itself (Debian's docker.io
20.10.24, two locks taken in opposite orders) cannot be made on demand;
its real goroutine dump is quoted in the module.
"""

import unittest

import requests

from rally_container_bench.engines.docker import daemon


class _Client:
    """Stand-in for docker.APIClient: ping and networks as scripted."""

    def __init__(self, ping, networks):
        self._ping, self._networks = ping, networks

    def ping(self):
        if isinstance(self._ping, Exception):
            raise self._ping
        return True

    def networks(self):
        if isinstance(self._networks, Exception):
            raise self._networks
        return []


class NetworkDeadlockTestCase(unittest.TestCase):

    def verdict(self, ping, networks):
        return daemon.network_deadlock("unix:///nowhere",
                                       client=_Client(ping, networks))

    def test_ping_answers_and_networks_hang_is_the_deadlock(self):
        hint = self.verdict(True, requests.exceptions.ReadTimeout("3 s"))
        self.assertIn("moby/libnetwork#2679", hint)
        self.assertIn("rcbench engines stop docker", hint)

    def test_a_daemon_that_answers_both_or_neither_is_not(self):
        self.assertIsNone(self.verdict(True, True))
        self.assertIsNone(self.verdict(
            requests.exceptions.ConnectionError("gone"), True))
        self.assertIsNone(self.verdict(
            True, requests.exceptions.ConnectionError("gone")))
