"""The instrument check's cells: planned by rcbench decide, capped for real.

The quota is this host's kernel's (cgroup v1 here, v2 on most hosts):
a real cgroup is made, entered and removed.
"""

import os
import subprocess
import tempfile
import unittest
from unittest import mock

from rally_container_bench.core import base
from rally_container_bench.decide import plan as planner
from rally_container_bench.decide import settings as decide_settings
from rally_container_bench.engines.native import instance as native
from rally_container_bench.engines.native import throttle

LOCAL = {"platforms": ["native", "docker", "lxc"], "concurrency": [1, 2],
         "tests": ["quick-cpu"]}


def _quota(ok=True):
    return lambda: (ok, None if ok else "no cpu controller (stand-in)")


class InstrumentCellsTestCase(unittest.TestCase):

    def test_aa_at_every_step_and_the_known_effect_at_the_lowest(self):
        found, notes = planner.instrument_cells(
            LOCAL, planner.cells_of(LOCAL), _quota())
        self.assertEqual({(native.AA, 1): ["quick-cpu"],
                          (native.AA, 2): ["quick-cpu"],
                          (native.SLOWED, 1): ["quick-cpu"]}, found)
        self.assertEqual([], notes)

    def test_without_a_quota_the_aa_runs_and_the_note_says_why(self):
        found, notes = planner.instrument_cells(
            LOCAL, planner.cells_of(LOCAL), _quota(False))
        self.assertEqual({(native.AA, 1), (native.AA, 2)}, set(found))
        self.assertIn("no known-effect cell (no cpu controller", notes[0])

    def test_a_cloud_task_gets_none_and_says_so(self):
        cloud = dict(LOCAL, platforms=["native", "kvm", "container"],
                     compute_hosts={"address": "aio"})
        found, notes = planner.instrument_cells(
            cloud, planner.cells_of(cloud), _quota())
        self.assertEqual({}, found)
        self.assertIn("a cloud task", notes[0])

    def test_the_cells_run_as_waves_not_repeats(self):
        plan = planner.plan_round({(native.AA, 2): ["quick-cpu"]}, 1, 1, 6)
        self.assertEqual([[native.AA, 2, ["quick-cpu"], 12, 1]], plan)

    def test_the_setting_is_a_flag_on_by_default(self):
        self.assertTrue(decide_settings.settings_of({})["instrument_check"])
        self.assertFalse(decide_settings.settings_of(
            {"decide": {"instrument_check": False}})["instrument_check"])
        with self.assertRaisesRegex(ValueError, "instrument_check is true"):
            decide_settings.settings_of({"decide": {"instrument_check": 1}})

    def test_the_margin_message_names_the_aa_floor(self):
        said = planner.margin_message("cpu", 0.03, 0.0194, 9, 18, 0.012,
                                      0.025)
        self.assertIn("the A/A's pairs at 1.20 %: this host's floor "
                      "+-2.5 %, measured", said)
        said = planner.margin_message("disk", 0.1, 0.05, 9, 18, 0.04, 0.08)
        self.assertIn("the disk's floor +-8 %, measured", said)

    def test_the_known_effect_takes_only_cpu_bound_tests(self):
        args = dict(LOCAL, tests=["quick-cpu", "quick-fileio-rndrd",
                                  {"preset": "quick-memory-read",
                                   "memory_total_size": "4G"}])
        found, _ = planner.instrument_cells(args, planner.cells_of(args),
                                            _quota())
        self.assertEqual(3, len(found[(native.AA, 1)]))
        self.assertEqual(["quick-cpu", {"preset": "quick-memory-read",
                                        "memory_total_size": "4G"}],
                         found[(native.SLOWED, 1)])
        fileio = dict(LOCAL, tests=["quick-fileio-rndrd"])
        found, notes = planner.instrument_cells(
            fileio, planner.cells_of(fileio), _quota())
        self.assertNotIn((native.SLOWED, 1), found)
        self.assertIn("no cpu or memory test", notes[0])


class HierarchyTestCase(unittest.TestCase):

    def mounts(self, text):
        scratch = tempfile.TemporaryDirectory()
        self.addCleanup(scratch.cleanup)
        path = os.path.join(scratch.name, "mounts")
        with open(path, "w") as f:
            f.write(text)
        return path, scratch.name

    def test_v1_cpu_controller(self):
        path, _ = self.mounts(
            "cgroup /sys/fs/cgroup/memory cgroup rw,memory 0 0\n"
            "cgroup /sys/fs/cgroup/cpu,cpuacct cgroup rw,cpu,cpuacct 0 0\n")
        self.assertEqual((1, "/sys/fs/cgroup/cpu,cpuacct"),
                         throttle.hierarchy(path))

    def test_v2_with_cpu_in_its_controllers(self):
        path, root = self.mounts("")
        with open(os.path.join(root, "cgroup.controllers"), "w") as f:
            f.write("cpuset cpu io memory pids\n")
        with open(path, "w") as f:
            f.write("cgroup2 %s cgroup2 rw 0 0\n" % root)
        self.assertEqual((2, root), throttle.hierarchy(path))

    def test_none_says_why(self):
        path, root = self.mounts("")
        with open(os.path.join(root, "cgroup.controllers"), "w") as f:
            f.write("hugetlb\n")
        with open(path, "w") as f:
            f.write("cgroup2 %s cgroup2 rw 0 0\n" % root)
        version, why = throttle.hierarchy(path)
        self.assertIsNone(version)
        self.assertIn("no cgroup hierarchy here has the cpu controller", why)


@unittest.skipUnless(throttle.available()[0], "no CPU quota on this host")
class ThrottleTestCase(unittest.TestCase):
    """This host's kernel: the cap is made, entered and removed."""

    def test_a_command_runs_inside_the_cap_and_the_cap_goes(self):
        cap = throttle.Throttle(0.1)
        try:
            self.assertIn("10 % of one CPU's time withheld", cap.describe())
            inside = subprocess.run(
                cap.wrap(["cat", "/proc/self/cgroup"]), capture_output=True,
                text=True, check=True).stdout
            self.assertIn("/" + os.path.basename(cap.path), inside)
            quota = "cpu.max" if cap.version == 2 else "cpu.cfs_quota_us"
            with open(os.path.join(cap.path, quota)) as f:
                self.assertEqual(str(throttle.PERIOD_US * 9 // 10),
                                 f.read().split()[0])
        finally:
            cap.close()
        self.assertFalse(os.path.exists(cap.path))

    def test_a_value_with_shell_words_reaches_the_command_as_it_is(self):
        cap = throttle.Throttle(0.1)
        self.addCleanup(cap.close)
        said = subprocess.run(cap.wrap(["echo", "$(id); `x` 'y'"]),
                              capture_output=True, text=True).stdout
        self.assertEqual("$(id); `x` 'y'\n", said)

    def test_a_cap_left_by_a_dead_process_is_removed(self):
        _, root = throttle.hierarchy()
        stale = os.path.join(root, "%s%d-1" % (throttle.PREFIX, 2 ** 22 + 7))
        os.makedirs(stale, exist_ok=True)
        throttle.Throttle(0.2).close()
        self.assertFalse(os.path.exists(stale))

    def test_nonsense_shares_are_refused(self):
        for share in (0, 1, -0.1):
            with self.assertRaises(base.DriverError):
                throttle.Throttle(share)


class AgainstTwinValidationTestCase(unittest.TestCase):
    """Rally's validation of NativeHost.against_twin, before anything runs."""

    def errors(self, **args):
        from rally import plugins as rally_plugins
        from rally.task import scenario
        rally_plugins.load()
        return scenario.Scenario.validate(
            name="NativeHost.against_twin", context={},
            config={"args": dict({"tests": ["quick-cpu"]}, **args)},
            plugin_cfg=None, vtype="syntax")

    def test_the_aa_needs_no_quota(self):
        with mock.patch.object(throttle, "available", _quota(False)):
            self.assertEqual([], self.errors())

    def test_a_known_effect_without_a_quota_is_refused_with_why(self):
        with mock.patch.object(throttle, "available", _quota(False)):
            found = " ".join(self.errors(withheld=0.1))
        self.assertIn("withheld: no cpu controller (stand-in)", found)

    def test_a_share_beyond_the_bounds_is_refused(self):
        self.assertIn("withheld", " ".join(self.errors(withheld=0.95)))
