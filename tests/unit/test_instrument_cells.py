"""The instrument check's cells: planned by rcbench decide, its neighbour real.

The known effect's busy neighbour runs for real on this host's CPU.
"""

import os
import subprocess
import time
import unittest

from rally_container_bench.core import processes
from rally_container_bench.decide import plan as planner
from rally_container_bench.decide import settings as decide_settings
from rally_container_bench.engines.native import instance as native
from rally_container_bench.engines.native import known_effect

LOCAL = {"platforms": ["native", "docker", "lxc"], "concurrency": [1, 2],
         "tests": ["quick-cpu"]}


class InstrumentCellsTestCase(unittest.TestCase):

    def test_aa_at_every_step_and_the_known_effect_at_the_lowest(self):
        found, notes = planner.instrument_cells(
            LOCAL, planner.cells_of(LOCAL))
        self.assertEqual({(native.AA, 1): ["quick-cpu"],
                          (native.AA, 2): ["quick-cpu"],
                          (native.SLOWED, 1): ["quick-cpu"]}, found)
        self.assertEqual([], notes)

    def test_a_cloud_task_gets_the_aa_on_each_kind_of_compute_host(self):
        cloud = dict(LOCAL, platforms=["native", "kvm", "container"],
                     container=["nova-lxc", "zun"],
                     kvm_hypervisor_type="qemu",
                     compute_hosts={"address": "aio"})
        found, notes = planner.instrument_cells(cloud,
                                                planner.cells_of(cloud))
        self.assertEqual({(native.aa_on(kind), step): ["quick-cpu"]
                          for kind in ("qemu", "lxc", "zun")
                          for step in (1, 2)}, found)
        self.assertIn("no known-effect cell", notes[0])
        # KVM and QEMU land on one kind of host (qemu)
        found, _ = planner.instrument_cells(
            dict(cloud, platforms=["kvm", "kvm-tuned"],
                 kvm_hypervisor_type="kvm"), {("kvm", 1): [],
                                              ("kvm-tuned", 1): []})
        self.assertEqual([(native.aa_on("qemu"), 1)], list(found))

    def test_a_kinds_aa_runs_at_the_steps_its_cells_run(self):
        # KEK's test cloud campaign: the VM at 1 only (a TCG boot ~40 s)
        cloud = dict(LOCAL, platforms=["native", "kvm", "container"],
                     container=["nova-lxc"], kvm_hypervisor_type="qemu",
                     concurrency=[1, 2, 4], max_concurrency={"kvm": 1},
                     compute_hosts={"address": "aio"})
        cells = planner.cells_of(cloud)
        self.assertNotIn(("kvm", 2), cells)
        found, _ = planner.instrument_cells(cloud, cells)
        self.assertEqual({(native.aa_on("qemu"), 1), (native.aa_on("lxc"), 1),
                          (native.aa_on("lxc"), 2), (native.aa_on("lxc"), 4)},
                         set(found))

    def test_a_cloud_task_without_compute_hosts_gets_none(self):
        cloud = dict(LOCAL, platforms=["native", "kvm", "container"])
        found, notes = planner.instrument_cells(cloud,
                                                planner.cells_of(cloud))
        self.assertEqual({}, found)
        self.assertIn("without compute_hosts", notes[0])

    def test_the_cells_run_as_waves_not_repeats(self):
        plan = planner.plan_round({(native.AA, 2): ["quick-cpu"]}, 1, 1, 6)
        self.assertEqual([[native.AA, 2, ["quick-cpu"], 12, 1]], plan)

    def test_the_setting_is_a_flag_on_by_default(self):
        self.assertTrue(decide_settings.settings_of({})["instrument_check"])
        self.assertFalse(decide_settings.settings_of(
            {"decide": {"instrument_check": False}})["instrument_check"])
        with self.assertRaisesRegex(ValueError, "instrument_check is true"):
            decide_settings.settings_of({"decide": {"instrument_check": 1}})

    def test_no_margin_is_narrower_than_the_aa_floor_even_past_the_cap(self):
        # a fresh run's A/A at 2 paired at 23 % (one wave at half speed,
        # 2026-12-05): its floor +-33.5 %, the cap +-25 %
        self.assertEqual(0.335, planner.auto_margin(0.25, 0.335))
        self.assertEqual(planner.MAX_AUTO_MARGIN,
                         planner.auto_margin(0.4, 0.02))
        self.assertEqual(0.03, planner.auto_margin(0.03, 0.02))
        said = planner.margin_message("cpu at 2", 0.335, 0.055, 4, 18,
                                      0.23, 0.335)
        self.assertIn("above +-25 % only because the A/A needs it", said)

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
        found, _ = planner.instrument_cells(args, planner.cells_of(args))
        self.assertEqual(3, len(found[(native.AA, 1)]))
        self.assertEqual(["quick-cpu", {"preset": "quick-memory-read",
                                        "memory_total_size": "4G"}],
                         found[(native.SLOWED, 1)])
        fileio = dict(LOCAL, tests=["quick-fileio-rndrd"])
        found, notes = planner.instrument_cells(
            fileio, planner.cells_of(fileio))
        self.assertNotIn((native.SLOWED, 1), found)
        self.assertIn("no cpu or memory test", notes[0])


class NeighbourTestCase(unittest.TestCase):
    """The busy neighbour, for real: its share, its CPU, its end."""

    def test_the_share_is_the_kernels_weights(self):
        self.assertAlmostEqual(110 / 1134, known_effect.share(10))
        self.assertAlmostEqual(820 / 1844, known_effect.share(1))
        for nice in (0, 20, -1, 1.5, True):
            with self.assertRaises(ValueError):
                known_effect.share(nice)

    def test_a_value_with_shell_words_reaches_the_command_as_it_is(self):
        said = subprocess.run(
            known_effect.Neighbour().wrap(["echo", "$(id); `x` 'y'"]),
            capture_output=True, text=True, timeout=30).stdout
        self.assertEqual("$(id); `x` 'y'\n", said)

    def test_it_runs_at_its_nice_on_the_commands_cpu_and_ends_with_it(self):
        proc = subprocess.Popen(["taskset", "-c", "0"]
                                + known_effect.Neighbour(10).wrap(
                                    ["sleep", "1"]))
        self.addCleanup(processes.end_group, proc)
        time.sleep(0.3)
        (found,) = _neighbours_of(proc.pid, wait=False)
        self.assertEqual(10, os.getpriority(os.PRIO_PROCESS, found))
        self.assertEqual({0}, os.sched_getaffinity(found))
        proc.wait(timeout=30)
        self.assertEqual([], _neighbours_of(proc.pid))

    def test_a_killed_command_takes_its_neighbour_along(self):
        proc = subprocess.Popen(known_effect.Neighbour(10).wrap(
            ["sleep", "30"]))
        self.addCleanup(processes.end_group, proc)
        time.sleep(0.3)
        self.assertEqual(1, len(_neighbours_of(proc.pid, wait=False)))
        proc.kill()
        proc.wait()
        self.assertEqual([], _neighbours_of(proc.pid))


def _neighbours_of(pid, wait=True):
    """The busy loops beside the command at pid (after it ended: 0.5 s).

    Read from /proc (the 3.13 run's tree has no procps).
    """
    if wait:
        time.sleep(0.5)
    found = []
    for name in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open("/proc/%s/cmdline" % name, "rb") as f:
                words = f.read().split(b"\0")
        except OSError:
            continue
        if len(words) > 3 and words[:2] == [b"sh", b"-c"] \
                and words[2].endswith(b"done") \
                and words[3] == str(pid).encode():
            found.append(int(name))
    return found


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

    def test_good_input_passes(self):
        self.assertEqual([], self.errors())
        self.assertEqual([], self.errors(neighbour_nice=10))

    def test_a_nice_beyond_the_kernels_is_refused(self):
        self.assertIn("neighbour_nice: the neighbour's nice is 1 to 19, "
                      "not 25", " ".join(self.errors(neighbour_nice=25)))

    def test_an_unpinned_known_effect_is_refused(self):
        self.assertIn("neighbour_nice needs pinned: true", " ".join(
            self.errors(neighbour_nice=10, pinned=False)))

    def test_a_known_effect_at_once_is_refused_with_why(self):
        self.assertIn("pairs in sequence, not at once", " ".join(
            self.errors(neighbour_nice=10, pairing="at-once")))

    def test_a_pairing_is_a_mode_or_a_mapping_of_kinds(self):
        self.assertEqual([], self.errors(pairing="at-once"))
        self.assertEqual([], self.errors(pairing={"cpu": "at-once",
                                                  "memory": "sequential"}))
        self.assertIn("together is not a mode", " ".join(
            self.errors(pairing="together")))
        self.assertIn("pairing at once needs pinned: true", " ".join(
            self.errors(pairing="at-once", pinned=False)))
