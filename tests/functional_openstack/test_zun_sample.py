"""The ZunContainers sample against the real Zun of the all-in-one cloud.

As a task's users see Zun (no runtime and no pull policy asked for, so no
admin rights used for the containers, and one at a time: Zun's default
pull policy makes each container load the image again, and two at once
race on the host's archive of it): sysbench over SSH, then sysbench as the
container's command with its results read from the logs. Skips without
the cloud. (rcbench_zun_networks' call on a fresh Zun network:
test_zun_network.)

Why ~3.5-4 min in CI (221 s, 2026-11-28): a whole cloud task (users,
the image to Glance) whose four containers run one at a time, each
loading the image from Glance into Docker first (the default pull
policy), beside two other cloud tests on the same two cores.
"""

import os
import unittest

from tests.functional import helpers
from tests.functional_openstack import cloud as aio

SAMPLE = os.path.join(helpers.TOP, "samples", "tasks", "scenarios",
                      "zun-containers", "run-sysbench-delete.yaml")


class ZunSampleTestCase(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.home = aio.aio_rally_home()
        cls.uuid, cls.stdout = cls.home.start(SAMPLE)
        cls.report = cls.home.results(cls.uuid)

    @classmethod
    def tearDownClass(cls):
        cls.home.close()

    def iterations(self, via):
        found = [(w, i) for w in helpers.workloads(self.report)
                 for i in w["data"]
                 if w["scenario"]["ZunContainers.run_sysbench_delete"]
                 .get("via", "ssh") == via]
        self.assertEqual(2, len(found), via)
        return [i for _w, i in found]

    def test_over_ssh_with_every_phase(self):
        for iteration in self.iterations("ssh"):
            self.assertFalse(iteration["error"])
            names = [a["name"] for a in iteration["atomic_actions"]]
            self.assertEqual(["build", "network", "sysbench.cpu",
                              "sysbench.memory.read", "delete"], names)

    def test_from_the_logs_with_the_containers_own_timing(self):
        for iteration in self.iterations("logs"):
            self.assertFalse(iteration["error"])
            actions = {a["name"]: a for a in iteration["atomic_actions"]}
            self.assertNotIn("network", actions)
            cpu = actions["sysbench.cpu"]
            # Measured in the container: after the create request, before
            # the delete. (It may start before build ends: the command
            # runs as soon as the container does, while the client polls.)
            self.assertLess(actions["build"]["started_at"],
                            cpu["started_at"])
            self.assertLess(cpu["started_at"], cpu["finished_at"])
            self.assertLess(cpu["finished_at"],
                            actions["delete"]["started_at"])
            out = helpers.additive(iteration)
            self.assertGreater(
                out["sysbench cpu"]["events_per_s (events/s)"], 0)
            self.assertGreater(
                out["sysbench memory.read"]["mib_per_s (MiB/s)"], 0)
            env = helpers.environment(iteration)
            self.assertEqual(("logs", "zun", ""),
                             (env["via"], env["driver"],
                              env["runtime_requested"]))
