"""rcbench decide refuses a local run whose engines cannot boot, first.

Before, Rally's rcbench_engine_ready said so at the first round's start,
after the A/A calibration had run (KEK's campaign, 2026-12-06: podman's
mount namespace not held, the error 1.5 min in). The engines' checks
here are the real ones; what makes them fail is a guest image cache with
nothing built in it, which no engine state on this host can pass.
"""

import io
import os
import tempfile
import unittest

from oslo_config import cfg

from rally_container_bench.decide import plan as planner
from rally_container_bench.decide import run as decide
from rally_container_bench.engines import registry
from rally_container_bench import opts

LOCAL = {"platforms": ["native", "docker", "lxc"], "concurrency": [1],
         "tests": ["quick-cpu"]}


def _conf_without_image():
    conf = cfg.ConfigOpts()
    group = opts.register(conf)
    conf([])
    conf.set_override("image_cache_dir", tempfile.mkdtemp(),
                      group=opts.GROUP)
    return group


class EnginesReadyTestCase(unittest.TestCase):

    def test_each_local_platform_that_cannot_boot_is_named(self):
        conf = _conf_without_image()
        with self.assertRaises(planner.DecideError) as caught:
            planner.check_engines(LOCAL, conf)
        said = str(caught.exception)
        reasons = {name: registry.not_ready(name, conf)
                   for name in ("docker", "lxc")}
        for name, why in reasons.items():
            self.assertIn(repr(name), said)
            # a reason two drivers share (no image) is said once
            self.assertEqual(1, said.count(why), said)
        self.assertNotIn("'native'", said)
        self.assertIn("nothing ran", said)
        self.assertIn("rcbench engines start", said)

    def test_a_cloud_run_is_not_checked_against_this_hosts_engines(self):
        cloud = {"platforms": ["native", "container"],
                 "container": "zun", "concurrency": [1],
                 "tests": ["quick-cpu"]}
        self.assertIsNone(planner.check_engines(cloud,
                                                _conf_without_image()))

    def test_the_validator_and_decide_say_the_same(self):
        conf = _conf_without_image()
        why = registry.not_ready("docker", conf)
        self.assertTrue(why.startswith(("cannot run on this host: ",
                                        "has no image to boot: ")), why)

    def test_the_run_stops_before_its_calibration_writes_anything(self):
        from rally.common import cfg as rally_cfg
        opts.register()  # decide's run reads Rally's own CONF
        rally_cfg.CONF.set_override("image_cache_dir", tempfile.mkdtemp(),
                                    group=opts.GROUP)
        self.addCleanup(rally_cfg.CONF.clear_override, "image_cache_dir",
                        group=opts.GROUP)
        out = os.path.join(tempfile.mkdtemp(), "out")
        run = decide.SequentialRun(["false"], "task.yaml", LOCAL, "env",
                                   out, 60, 1, 1, None, io.StringIO())
        with self.assertRaises(planner.DecideError):
            run.run()
        self.assertFalse(os.path.exists(out))
