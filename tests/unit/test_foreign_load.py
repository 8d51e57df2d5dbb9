"""Foreign load: parsing (pure) and real readings of a host.

The real cases burn CPU for a second in a process the measurement owns,
or in one outside it (foreign): /proc only, no engine. A compute host is
read by the same command it gets over SSH, here through an executor that
runs on this machine.
"""

import dataclasses
import os
import resource
import signal
import subprocess
import tempfile
import time
import types
import unittest
from unittest import mock

from rally_container_bench.core import base
from rally_container_bench.core import processes
from rally_container_bench.engines.native import instance as native
from rally_container_bench.validity import compute_host
from rally_container_bench.validity import cpu
from rally_container_bench.validity import foreign_load
from rally_container_bench.validity import harness_cpu
from rally_container_bench.validity import host_reading
from rally_container_bench.validity import hosts

STAT = ("4242 (sysbench (x)) S 4200 4242 4200 0 -1 4194560 100 0 0 0 "
        "150 25 7 3 20 0 2 0 12345 0 0")
PROC_STAT = ("cpu  100 5 50 1000 20 3 2 40 0 0\n"
             "cpu0 50 2 25 500 10 1 1 20 0 0\nprocs_running 3\n")
LIMIT = foreign_load.DEFAULT_LIMIT


class ParsingTestCase(unittest.TestCase):

    def test_process_ticks_count_reaped_children(self):
        # a name with spaces and parentheses; utime stime cutime cstime
        self.assertEqual((4200, 150 + 25 + 7 + 3),
                         cpu.parse_process_stat(STAT))

    def test_host_busy_leaves_out_idle_iowait_and_steal(self):
        times, busy, running = cpu.parse_stat(PROC_STAT)
        self.assertEqual(100 + 5 + 50 + 3 + 2, busy)
        self.assertEqual(cpu.CpuTimes(100 + 5 + 50 + 1000 + 20 + 3 + 2 + 40,
                                      1020, 40, 1), times)
        self.assertEqual(3, running)

    def test_the_window_is_the_hosts_own_ticks(self):
        one = cpu.CpuTimes(1000, 0, 0, 2)
        # 2 CPUs: 200 ticks of all of them are one second of the host's
        self.assertEqual(200 / cpu.TICKS / 2, cpu.elapsed(
            one, cpu.CpuTimes(1200, 0, 0, 2)))
        self.assertIsNone(cpu.elapsed(one, cpu.CpuTimes(1200, 0, 0, 1)))
        before = _reading(at=0.0, busy=0.0, own=0.0,
                          cpu=cpu.CpuTimes(0, 0, 0, 1))
        # read 0.5 s late by the Rally host's clock: the ticks still say 1 s
        after = _reading(at=1.5, busy=1.0, own=0.25,
                         cpu=cpu.CpuTimes(cpu.TICKS, 0, 0, 1))
        load = foreign_load.load(before, after)
        self.assertAlmostEqual(1.0, load["seconds"])
        self.assertAlmostEqual(0.75, load["foreign"])

    def test_no_cpu_line_is_an_error(self):
        self.assertRaises(ValueError, cpu.parse_stat, "procs_running 1\n")

    def test_one_cpu_is_its_own_line(self):
        self.assertEqual(cpu.CpuTimes(50 + 2 + 25 + 500 + 10 + 1 + 1 + 20,
                                      510, 20, 1),
                         cpu.one_cpu(PROC_STAT, 0))
        self.assertRaises(ValueError, cpu.one_cpu, PROC_STAT, 1)

    def test_cgroup_v1_cpuacct(self):
        text = ("4:memory:/docker/abc\n3:cpu,cpuacct:/docker/abc\n"
                "0::/\n")
        self.assertEqual("/sys/fs/cgroup/cpu,cpuacct/docker/abc/"
                         "cpuacct.usage", cpu.cgroup_usage_file(text))

    def test_cgroup_v2(self):
        path = cpu.cgroup_usage_file("0::/lxc.payload.x\n")
        self.assertEqual("/sys/fs/cgroup/lxc.payload.x/cpu.stat", path)
        self.assertEqual("/sys/fs/cgroup/unified/lxc.payload.x/cpu.stat",
                         cpu.cgroup_usage_file("0::/lxc.payload.x\n",
                                               unified_mount=True))

    def test_a_vm_emulator_thread_counts_its_whole_machine(self):
        text = "2:cpuacct:/machine/qemu-1-vm.libvirt-qemu/emulator\n"
        self.assertEqual("/sys/fs/cgroup/cpuacct/machine/"
                         "qemu-1-vm.libvirt-qemu/cpuacct.usage",
                         cpu.cgroup_usage_file(text))

    def test_the_root_cgroup_is_no_instance_of_its_own(self):
        self.assertIsNone(cpu.cgroup_usage_file("2:cpuacct:/\n0::/\n"))

    def test_usage_files(self):
        self.assertEqual(1.5, cpu.parse_usage("x/cpuacct.usage",
                                              "1500000000\n"))
        self.assertEqual(2.0, cpu.parse_usage(
            "x/cpu.stat", "usage_usec 2000000\nuser_usec 1\n"))

    def test_tree_ticks_follow_children_only(self):
        table = {1: (0, 5), 10: (1, 7), 11: (10, 3), 20: (1, 100)}
        self.assertEqual(10, cpu.tree_ticks(table, 10))
        self.assertEqual({10, 11}, cpu.tree_pids(table, 10))

    def test_a_threads_state(self):
        self.assertEqual("R", cpu.parse_state(
            "4242 (a (b) c) R 1 4242 4242 0 -1 4194560 117 0 0 0"))
        self.assertEqual("S", cpu.parse_state("7 (sh) S 1 7 7 0"))

    def test_load_sets_busy_against_own(self):
        before = _reading(at=0.0, busy=10.0, own=1.0, instances={"a": 0})
        after = _reading(at=2.0, busy=14.0, own=2.0,
                         instances={"a": 2.0, "new": 5.0})
        load = foreign_load.load(before, after)
        # own: harness 1 s + instance a 2 s; "new" seen once: not own
        self.assertAlmostEqual(1.5, load["own"])
        self.assertAlmostEqual(0.5, load["foreign"])
        self.assertAlmostEqual(2.0, load["busy"])
        self.assertAlmostEqual(0.0, load["unplaced"])
        self.assertIsNone(load["runnable"])  # not read
        # procs_running less the reader, the smaller of the two
        self.assertEqual(1, foreign_load.load(
            before._replace(running=6), after._replace(running=2))[
                "runnable"])
        # where the threads outside the harness were counted, those
        self.assertEqual(0, foreign_load.load(
            before._replace(running=6, others=0),
            after._replace(running=2, others=3))["runnable"])

    def test_harness_cpu_that_may_hide_a_hog_disturbs_the_run(self):
        # a 1-CPU host at half a core of hog, Rally busy elsewhere: own
        # reads above busy, the hog is hidden, unplaced says so
        before = _reading(at=0.0, busy=10.0, own=1.0, unplaced=1.0)
        after = _reading(at=2.0, busy=12.0, own=3.2, unplaced=2.1)
        load = foreign_load.load(before, after)
        self.assertAlmostEqual(0.0, load["foreign"])
        self.assertAlmostEqual(0.55, load["unplaced"])
        self.assertTrue(foreign_load.disturbed(load, 0.25))
        self.assertFalse(foreign_load.disturbed(
            dict(load, unplaced=0.1), 0.25))
        # kept at one end only (a reading without its CPU lines): no share
        self.assertEqual(0.0, foreign_load.load(
            before._replace(unplaced=0.0), after)["unplaced"])

    def test_a_host_with_no_idle_cpu_is_disturbed_by_less(self):
        # a 1-CPU host over 2 s of its own ticks: a test at 0.88 cores
        # beside 0.12 foreign ones (a twin that read 12 % low, 2026-11-29)
        def over(busy_ticks, own):
            before = _reading(at=0.0, busy=0.0,
                              cpu=cpu.CpuTimes(0, 0, 0, cpus=1))
            after = _reading(at=2.0, busy=busy_ticks, own=own,
                             cpu=cpu.CpuTimes(2 * cpu.TICKS, 0, 0, cpus=1))
            return foreign_load.load(before, after)

        full = over(2.0, 1.76)
        self.assertEqual(1, full["cpus"])
        self.assertAlmostEqual(0.12, full["foreign"])
        self.assertTrue(foreign_load.saturated(full))
        self.assertAlmostEqual(0.25 * 0.33,
                               foreign_load.limit_for(full, 0.25))
        self.assertTrue(foreign_load.disturbed(full, 0.25))
        # share 1: the one limit everywhere
        self.assertFalse(foreign_load.disturbed(full, 0.25, 1.0))
        # Rally's unplaced CPU keeps the whole limit there
        self.assertFalse(foreign_load.disturbed(
            dict(full, foreign=0.0, unplaced=0.2), 0.25))
        self.assertTrue(foreign_load.disturbed(
            dict(full, foreign=0.0, unplaced=0.3), 0.25))
        # the same foreign load where a fifth of the CPU stayed idle
        room = over(1.6, 1.36)
        self.assertFalse(foreign_load.saturated(room))
        self.assertEqual(0.25, foreign_load.limit_for(room, 0.25))
        self.assertFalse(foreign_load.disturbed(room, 0.25))
        # no CPU count (a reading without the host's ticks): the limit
        self.assertFalse(foreign_load.saturated(dict(full, cpus=None)))

    def test_an_engines_helpers_are_the_tasks_own_but_no_instance(self):
        helpers = foreign_load.HELPERS + "conmon"
        before = _reading(at=0.0, busy=0.0, own=0.0,
                          instances={"a": 0.0, helpers: 5.0},
                          cpu=cpu.CpuTimes(0, 0, 0, cpus=2))
        after = _reading(at=1.0, busy=1.25, own=0.0,
                         instances={"a": 1.0, helpers: 5.15},
                         cpu=cpu.CpuTimes(2 * cpu.TICKS, 0, 0, cpus=2))
        load = foreign_load.load(before, after)
        self.assertAlmostEqual(1.15, load["own"])
        self.assertAlmostEqual(0.1, load["foreign"])
        # one instance on 2 CPUs: a CPU left, not saturated
        self.assertEqual(1, load["instances"])
        self.assertFalse(foreign_load.saturated(load))

    def test_as_many_instances_as_cpus_saturate_the_host(self):
        # 2 CPUs over 1 s, 0.3 cores idle around two 1 s runs at once:
        # 0.12 foreign cores took 5-8 % off both instances (2026-11-30)
        def over(instances):
            before = _reading(at=0.0, busy=0.0,
                              instances=dict.fromkeys(instances, 0.0),
                              cpu=cpu.CpuTimes(0, 0, 0, cpus=2))
            after = _reading(at=1.0, busy=1.7, own=0.0,
                             instances=dict.fromkeys(instances, 0.79),
                             cpu=cpu.CpuTimes(2 * cpu.TICKS, 0, 0, cpus=2))
            return foreign_load.load(before, after)

        both = over(["a", "b"])
        self.assertEqual(2, both["instances"])
        self.assertAlmostEqual(0.12, both["foreign"])
        self.assertTrue(foreign_load.saturated(both))
        self.assertTrue(foreign_load.disturbed(both, 0.25))
        one = over(["a"])
        self.assertFalse(foreign_load.saturated(one))
        self.assertFalse(foreign_load.disturbed(dict(one, foreign=0.12),
                                                0.25))

    def test_disturbed_allows_for_the_ticks_rounding(self):
        slack = foreign_load.SLACK_TICKS / cpu.TICKS
        self.assertFalse(foreign_load.disturbed(
            {"foreign": 0.25 + 0.9 * slack, "seconds": 1.0}, 0.25))
        self.assertTrue(foreign_load.disturbed(
            {"foreign": 0.6, "seconds": 1.0}, 0.25))
        self.assertFalse(foreign_load.disturbed({"foreign": None}, 0.25))

    def test_a_compute_hosts_reading(self):
        # What the reading command printed on a compute host: the marked
        # processes' ticks, the finished ones', an instance's cgroup and
        # one known by its process tree.
        text = "\n".join([
            "== stat", "cpu  300 0 100 900 0 0 0 7 0 0", "procs_running 2",
            "== cpus", "1,3-4",
            "== usage /sys/fs/cgroup/cpuacct/machine/vm1/cpuacct.usage",
            "2500000000",
            "== own", STAT,
            "== finished", "40", "60",
            "== processes", "30 (qemu) S 1 0 0 0 0 0 0 0 0 0 5 5 0 0",
            "31 (qemu) S 30 0 0 0 0 0 0 0 0 0 10 0 0 0",
            "== end"])
        reading = host_reading.parse_reading(text, 7.0, "compute-2", {
            "vm1": "/sys/fs/cgroup/cpuacct/machine/vm1/cpuacct.usage",
            "lxc1": "pid:30"})
        self.assertEqual("compute-2", reading.host)
        self.assertEqual(400 / cpu.TICKS, reading.busy)
        self.assertEqual((185 + 100) / cpu.TICKS, reading.own)
        self.assertEqual({"vm1": 2.5, "lxc1": 20 / cpu.TICKS},
                         reading.instances)
        self.assertEqual(2, reading.running)
        # the machine's CPUs its shell may run on (lxcfs renumbers cpuN)
        self.assertEqual({1, 3, 4}, reading.cpu_ids)

    def test_a_reading_cut_short_is_an_error(self):
        self.assertRaises(ValueError, host_reading.parse_reading,
                          "== stat\ncpu 1 2 3 4\n", 0, "h", {})


def _reading(**fields):
    values = dict(at=0.0, host="h", cpu=None, running=None, busy=0.0,
                  own=0.0, instances={})
    values.update(fields)
    return hosts.Reading(**values)


def _own_unplaced(reading):
    return reading.own, reading.unplaced


# 0.6 s of CPU, however busy the host is (the other test worker, a job).
_BURN = "import time\nwhile time.process_time() < 0.6: pass\n"
_WAIT = "time.sleep(60)\n"
# Runnable until killed (builtins only; ends by itself after ~20 s).
_LOOP = "i=0; while [ $i -lt 30000000 ]; do i=$((i+1)); done"


def _conf(state):
    return types.SimpleNamespace(daemon_state_dir=state)


class AlikeInPairTestCase(unittest.TestCase):
    """A pair beside the same foreign load, with a CPU left for it."""

    @staticmethod
    def load(foreign, instances=1, cpus=2, unplaced=0.0, runnable=1):
        # runnable: the neighbour's loop at both readings
        return {"foreign": foreign, "own": 1.0, "busy": 1.0 + foreign,
                "unplaced": unplaced, "seconds": 1.0, "cpus": cpus,
                "instances": instances, "runnable": runnable}

    def test_a_neighbour_on_the_free_cpu_beside_both_keeps_the_pair(self):
        # one instance at a time on 2 CPUs, a one-core loop beside both
        pair = [self.load(1.0), self.load(0.95)]
        self.assertTrue(all(foreign_load.disturbed(x, LIMIT) for x in pair))
        self.assertTrue(foreign_load.alike_in_pair(pair, LIMIT))
        self.assertFalse(foreign_load.pair_disturbed(pair, LIMIT))

    def test_a_load_that_changed_between_the_two_disturbs_the_pair(self):
        pair = [self.load(0.0), self.load(1.0)]
        self.assertFalse(foreign_load.alike_in_pair(pair, LIMIT))
        self.assertTrue(foreign_load.pair_disturbed(pair, LIMIT))

    def test_no_cpu_left_for_the_load_disturbs_the_pair(self):
        # N at once on N CPUs: the load took turns with the tests
        self.assertTrue(foreign_load.pair_disturbed(
            [self.load(1.0, instances=2), self.load(1.0, instances=2)],
            LIMIT))
        # two cores of load beside one instance on 2 CPUs
        self.assertTrue(foreign_load.pair_disturbed(
            [self.load(2.0), self.load(2.0)], LIMIT))
        # two loops beside one test pinned on one CPU of 2: they read
        # 1.07 cores (what the test left), but were 2 runnable tasks
        self.assertTrue(foreign_load.pair_disturbed(
            [self.load(1.07, runnable=2)] * 2, LIMIT))
        self.assertFalse(foreign_load.pair_disturbed(
            [self.load(1.07, runnable=1)] * 2, LIMIT))
        # Rally's unplaced CPU may hide more
        self.assertTrue(foreign_load.pair_disturbed(
            [self.load(1.0, unplaced=0.5)] * 2, LIMIT))

    def test_an_unread_run_or_a_lone_run_is_no_pair(self):
        self.assertTrue(foreign_load.pair_disturbed(
            [self.load(1.0), {"foreign": None}], LIMIT))
        self.assertTrue(foreign_load.pair_disturbed([self.load(1.0)], LIMIT))
        self.assertFalse(foreign_load.leaves_room(
            dict(self.load(1.0), cpus=None), LIMIT))

    def test_quiet_pairs_stay_undisturbed(self):
        self.assertFalse(foreign_load.pair_disturbed(
            [self.load(0.0), self.load(0.1)], LIMIT))


class RealHostTestCase(unittest.TestCase):
    """0.6 s of CPU burnt inside the measurement, or outside it."""

    def setUp(self):
        foreign_load.set_harness(os.getpid())
        self.addCleanup(foreign_load.set_harness, None)
        state = tempfile.TemporaryDirectory()
        self.addCleanup(state.cleanup)
        self.conf = _conf(state.name)

    def seconds(self, host, start):
        """{foreign, own} CPU seconds while start()'s burner ran."""
        before = host.read()
        pid = start()
        deadline = time.monotonic() + 60
        while os.path.exists("/proc/%d/stat" % pid) and not _zombie(pid):
            self.assertLess(time.monotonic(), deadline)
            time.sleep(0.05)
        after = host.read()
        load = foreign_load.load(before, after)
        return {k: load[k] * (after.at - before.at) for k in ("foreign",
                                                              "own")}

    def test_a_child_of_the_harness_is_its_own(self):
        proc = subprocess.Popen(["python3", "-c", _BURN])
        self.addCleanup(proc.wait, 10)
        found = self.seconds(hosts.LocalHost(self.conf), lambda: proc.pid)
        self.assertGreater(found["own"], 0.5, found)

    def test_a_process_outside_the_harness_is_foreign(self):
        found = self.seconds(hosts.LocalHost(self.conf), _neighbour)
        self.assertGreater(found["foreign"], 0.5, found)
        self.assertLess(found["own"], 0.3, found)

    def test_a_child_reaped_during_a_reading_stays_the_harnesss_own(self):
        # Two twins at once end together: the other's child is reaped
        # while this one's reading scans /proc, after its parent's stat
        # and before its own (a whole run lost in 4 of 60 such readings,
        # 2026-12-01). Here the reap is put at that point: the real
        # kernel moves the child's ticks to this process.
        child = subprocess.Popen(["python3", "-c", _BURN + _WAIT])
        self.addCleanup(child.kill)
        deadline = time.monotonic() + 60
        while not _ticks_at_least(child.pid, 0.5 * cpu.TICKS):
            self.assertLess(time.monotonic(), deadline)
            time.sleep(0.05)
        path = "/proc/%d/stat" % child.pid
        real_read = hosts.read_file

        def reaped_first(name):
            if name == path and child.returncode is None:
                child.kill()
                child.wait()
            return real_read(name)

        with mock.patch.object(hosts, "read_file", reaped_first):
            reading = hosts.LocalHost(self.conf).read()
        self.assertIsNotNone(child.returncode)
        used = _used(resource.RUSAGE_SELF) + _used(resource.RUSAGE_CHILDREN)
        # the child's 0.6 s are in; ticks round down per process and field
        self.assertGreater(reading.own, used - 0.1, (reading.own, used))

    def test_only_threads_runnable_outside_the_harness_are_others(self):
        # a busy loop is runnable until it is stopped: the harness's own
        # child is not counted, a neighbour's is (Reading.others)
        inside = subprocess.Popen(["sh", "-c", _LOOP])
        self.addCleanup(inside.wait, 10)
        self.addCleanup(inside.kill)
        outside = int(subprocess.run(
            ["setsid", "sh", "-c",
             "sh -c \"$0\" </dev/null >/dev/null 2>&1 & echo $!", _LOOP],
            capture_output=True, text=True, check=True).stdout)
        # a loop forever: the pid names it from here on
        self.addCleanup(processes.Recorded.of(outside).signal,
                        signal.SIGKILL)
        harness = cpu.tree_pids(hosts.local_processes(),
                                foreign_load.harness())
        found = hosts.runnable_outside(harness)
        reading = hosts.LocalHost(self.conf).read()
        self.assertIn(inside.pid, harness)
        self.assertIn(outside, found)
        self.assertNotIn(inside.pid, found)
        self.assertGreaterEqual(reading.others, 1)

    def compute_host(self, same_kernel=False):
        # The command a compute host gets over SSH, run here: what it
        # reads is this machine's, but only through that command. A
        # stand-in for another machine unless same_kernel (the boot id
        # check, which would find this one, is skipped).
        host = compute_host.ComputeHost("compute-x",
                                        native.NativeExecutor(), self.conf)
        host.done_file = os.path.join(self.conf.daemon_state_dir, "done")
        if not same_kernel:
            host._same_kernel = False
        else:
            # the harness's cgroup (harness_cpu) is left, and removed
            self.addCleanup(harness_cpu.leave, foreign_load.harness())
        return host

    def test_the_harness_is_its_own_where_a_compute_host_is_this_machine(
            self):
        # A test cloud's compute hosts are namespaces of the Rally host:
        # Rally's own processes there are the measurement's, not foreign
        # load (as on LocalHost); on another machine they are not there
        # to count at all.
        host = self.compute_host(same_kernel=True)

        def child():
            proc = subprocess.Popen(["python3", "-c", _BURN])
            self.addCleanup(proc.wait, 10)
            return proc.pid
        found = self.seconds(host, child)
        self.assertTrue(host._same_kernel)
        self.assertGreater(found["own"], 0.5, found)
        found = self.seconds(self.compute_host(), child)
        self.assertGreater(found["foreign"], 0.5, found)
        self.assertLess(found["own"], 0.3, found)
        # a neighbour is foreign on either
        found = self.seconds(self.compute_host(same_kernel=True), _neighbour)
        self.assertGreater(found["foreign"], 0.5, found)
        self.assertLess(found["own"], 0.3, found)

    def test_the_harness_is_unplaced_on_a_host_with_some_of_the_cpus(self):
        # a test cloud's host confined to one of this machine's CPUs:
        # Rally's CPU ran on any of them
        host = self.compute_host(same_kernel=True)
        host.machine_cpus = 2
        one = _reading(own=1.0, cpu=cpu.CpuTimes(100, 50, 0, cpus=1))
        both = _reading(own=1.0, cpu=cpu.CpuTimes(200, 100, 0, cpus=2))
        harness = harness_cpu.HarnessCpu(0.5, None)
        self.assertEqual((1.5, 0.5), _own_unplaced(
            host._with_harness(one, harness)))
        self.assertEqual((1.5, 0.0), _own_unplaced(
            host._with_harness(both, harness)))
        self.assertEqual((1.5, 0.0), _own_unplaced(
            host._with_harness(_reading(own=1.0), harness)))
        # its cgroup's CPU per CPU known: the part on the host's CPU is
        # the host's own, the rest ran elsewhere, none unplaced
        placed = harness_cpu.HarnessCpu(0.5, (0.35, 0.15))
        self.assertEqual((1.15, 0.0), _own_unplaced(host._with_harness(
            one._replace(cpu_ids=frozenset({1})), placed)))
        self.assertEqual((1.35, 0.0), _own_unplaced(host._with_harness(
            one._replace(cpu_ids=frozenset({0})), placed)))
        # the host's CPUs not read: unplaced, as without the cgroup
        self.assertEqual((1.5, 0.5), _own_unplaced(
            host._with_harness(one, placed)))
        # a host with all of them counts it whole
        self.assertEqual((1.5, 0.0), _own_unplaced(host._with_harness(
            both._replace(cpu_ids=frozenset({0, 1})), placed)))

    def test_the_harness_cgroup_only_where_cpuacct_is_alone(self):
        # co-mounted with cpu, a cgroup of Rally's would undo its nice 19
        alone = ("cgroup /sys/fs/cgroup/cpu cgroup rw,relatime,cpu 0 0\n"
                 "cgroup /sys/fs/cgroup/cpuacct cgroup rw,cpuacct 0 0\n")
        shared = ("cgroup /sys/fs/cgroup/cpu,cpuacct cgroup "
                  "rw,nosuid,cpu,cpuacct 0 0\n")
        only_v2 = "cgroup2 /sys/fs/cgroup cgroup2 rw,nsdelegate 0 0\n"
        self.assertTrue(harness_cpu.alone_in_mount(alone))
        self.assertFalse(harness_cpu.alone_in_mount(shared))
        self.assertFalse(harness_cpu.alone_in_mount(only_v2))

    @unittest.skipUnless(harness_cpu.usable(),
                         "needs cgroup v1's cpuacct, writable (root)")
    def test_the_harness_cgroup_counts_its_cpu_per_cpu(self):
        # Real: the harness's tree moved into a cpuacct cgroup of its own;
        # a child that burns on one CPU shows on that CPU's count alone.
        root = foreign_load.harness()
        self.addCleanup(harness_cpu.leave, root)
        cpus = sorted(os.sched_getaffinity(0))
        first = harness_cpu.of_tree(hosts.local_processes(), root)
        self.assertIsNotNone(first.percpu)
        proc = subprocess.Popen(
            ["taskset", "-c", str(cpus[-1]), "python3", "-c", _BURN])
        self.assertEqual(0, proc.wait(30))
        second = harness_cpu.of_tree(hosts.local_processes(), root)
        on = harness_cpu.on_cpus(second, [cpus[-1]]) - harness_cpu.on_cpus(
            first, [cpus[-1]])
        self.assertGreater(on, 0.5, (first, second))
        if len(cpus) > 1:
            rest = harness_cpu.on_cpus(second, cpus[:-1]) - \
                harness_cpu.on_cpus(first, cpus[:-1])
            self.assertLess(rest, 0.3, (first, second))
        # the test's process went back and the cgroup is gone
        harness_cpu.leave(root)
        self.assertFalse(any(
            harness_cpu.PREFIX + str(root) in line
            for line in open("/proc/self/cgroup")))

    @unittest.skipUnless(harness_cpu.usable(),
                         "needs cgroup v1's cpuacct, writable (root)")
    def test_the_cgroup_of_a_harness_that_is_gone_is_pruned(self):
        gone = subprocess.Popen(["true"])
        gone.wait()
        path = os.path.join(harness_cpu.CPUACCT,
                            harness_cpu.PREFIX + str(gone.pid))
        os.mkdir(path)
        self.addCleanup(lambda: os.path.isdir(path) and os.rmdir(path))
        alive = harness_cpu.Cgroup(os.getpid())
        self.addCleanup(harness_cpu.leave, os.getpid())
        self.assertTrue(alive.join([os.getpid()]))
        harness_cpu.prune()
        self.assertFalse(os.path.isdir(path))
        self.assertTrue(os.path.isdir(alive.path))

    def test_a_compute_hosts_reading_names_its_cpus(self):
        # the reading's shell runs where the host's sshd does: its CPUs
        with self.compute_host().window() as window:
            pass
        for reading in window.readings:
            self.assertEqual(set(os.sched_getaffinity(0)), reading.cpu_ids)

    def test_a_marked_command_on_a_compute_host_is_its_own(self):
        host = self.compute_host()
        with host.window(owned=True) as window:
            result = host.owned().run(
                ["sh", "-c", "python3 -c \"$0\"; echo out; echo err >&2",
                 _BURN], 60)
        self.assertEqual(0, result.exit_code, result.stderr)
        # the command's own output, without the host's readings
        self.assertEqual("out\n", result.stdout)
        self.assertEqual("err\n", result.stderr)
        self.assertEqual("sh -c 'python3 -c \"$0\"; echo out; echo err >&2' "
                         "'%s'" % _BURN, result.command)
        before, after = window.readings
        load = foreign_load.load(before, after)
        own = load["own"] * load["seconds"]
        self.assertGreater(own, 0.5, load)
        self.assertEqual("compute-x", after.host)

    def test_a_failed_marked_command_keeps_its_status_and_window(self):
        host = self.compute_host()
        with host.window(owned=True) as window:
            result = host.owned().run(["sh", "-c", "exit 3"], 60)
        self.assertEqual(3, result.exit_code)
        self.assertIsNotNone(window.readings)
        # several commands: the first's before, the last's after
        with host.window(owned=True) as window:
            for _ in range(2):
                host.owned().run(["true"], 60)
        before, after = window.readings
        self.assertLess(before.at, after.at)

    def test_a_reading_without_its_cpu_lines_leaves_the_run_unread(self):
        # A Zun host once sent a reading whose /proc/stat section was
        # empty, and the iteration failed on it. Stand-in: the executor
        # changes what came back (the command itself ran here).
        host = self.compute_host()
        inner = host.executor

        class Lossy(base.Executor):
            kind = inner.kind

            def __init__(self, change):
                self.change = change

            def run(self, argv, timeout, cwd=None):
                result = inner.run(argv, timeout, cwd=cwd)
                return dataclasses.replace(
                    result, stderr=self.change(result.stderr))

        def without_cpu_lines(stderr):
            head, _, tail = stderr.partition("== stat\n")
            kept = tail.split("\n")
            while kept and kept[0].startswith(("cpu", "procs")):
                kept.pop(0)
            return head + "== stat\n" + "\n".join(kept)

        def cut_after_the_first(stderr):
            return stderr[:stderr.index("== end\n") + len("== end\n")]

        for change, said_why in ((without_cpu_lines,
                                  "no cpu line in /proc/stat"),
                                 (cut_after_the_first,
                                  "1 of its 2 readings came back")):
            with self.assertLogs(compute_host.LOG, "WARNING") as said:
                with host.window(owned=True) as window:
                    result = host.owned(Lossy(change)).run(
                        ["sh", "-c", "echo out; exit 3"], 60)
            self.assertEqual((3, "out\n"),
                             (result.exit_code, result.stdout))
            self.assertIsNone(window.readings)
            self.assertIn(said_why, said.output[0])

    def test_a_marked_command_still_running_is_its_own(self):
        host = self.compute_host()
        before = host.read()
        proc = subprocess.Popen(
            ["env", "RCBENCH_OWN=%s" % host.key, "python3", "-c", _BURN])
        self.addCleanup(proc.wait, 10)
        deadline = time.monotonic() + 60
        while not _ticks_at_least(proc.pid, 0.4 * cpu.TICKS):
            self.assertLess(time.monotonic(), deadline)
            time.sleep(0.05)
        after = host.read()
        own = (after.own - before.own)
        self.assertGreater(own, 0.35, (before, after))

    def test_a_hosts_first_reading_removes_files_of_runs_ended_a_day_ago(
            self):
        state = self.conf.daemon_state_dir
        host = self.compute_host()
        host.done_file = os.path.join(state, "rcbench-own-" + host.key)

        def left(name, age_s):
            path = os.path.join(state, name)
            with open(path, "w") as f:
                f.write("12\n")
            os.utime(path, (time.time() - age_s,) * 2)
            return path
        old = left("rcbench-own-gone-harness-compute-x", 2 * 86400)
        recent = left("rcbench-own-other-harness-compute-x", 3600)
        other = left("unrelated", 2 * 86400)
        with mock.patch.object(compute_host, "_SWEPT", set()):
            host.read()
            self.assertFalse(os.path.exists(old))
            self.assertTrue(os.path.exists(recent))
            self.assertTrue(os.path.exists(other))
            self.assertTrue(os.path.exists(host.done_file))
            # once per host and process: not at every reading
            again = left("rcbench-own-another-compute-x", 2 * 86400)
            self.compute_host().read()
            self.assertTrue(os.path.exists(again))

    def test_an_unmarked_neighbour_on_a_compute_host_is_foreign(self):
        found = self.seconds(self.compute_host(), _neighbour)
        self.assertGreater(found["foreign"], 0.5, found)
        self.assertLess(found["own"], 0.3, found)

    def test_a_registered_instance_on_a_compute_host_is_its_own(self):
        host = self.compute_host()
        # An instance's main process stays while it is measured: the
        # burner's CPU is in its tree (reaped: the shell's cutime). The
        # shell becomes the sleep (exec), so killing it leaves no sleep
        # that holds the test runner's output open for a minute (stestr
        # waited 60 s after the last test in some CI runs).
        proc = subprocess.Popen(
            ["sh", "-c", "read x; python3 -c \"$0\"; exec sleep 60",
             _BURN], stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL)
        self.addCleanup(proc.wait, 10)
        self.addCleanup(proc.kill)
        driver = types.SimpleNamespace(
            host_pid_command=lambda instance: ["echo", str(proc.pid)],
            disk_in_host_kernel=lambda instance: False)
        host.register("vm1", driver, types.SimpleNamespace(
            name="vm1", id="1"))
        # this test runs in no cgroup of its own: the process tree
        self.assertEqual({"vm1": "pid:%d" % proc.pid},
                         host.registry.sources())
        before = host.read()
        proc.stdin.write(b"go\n")
        proc.stdin.flush()
        deadline = time.monotonic() + 60
        # the burner stops at 0.6 s of CPU time: the tick accounting
        # of it may round below 0.6 s
        while cpu.tree_ticks(hosts.local_processes(), proc.pid) \
                < 0.55 * cpu.TICKS:
            self.assertLess(time.monotonic(), deadline)
            time.sleep(0.05)
        after = host.read()
        load = foreign_load.load(before, after)
        self.assertGreater(load["own"] * (after.at - before.at), 0.5, load)


def _neighbour():
    # setsid + a shell that exits at once: the burner is reparented
    # away from this process's tree, as a neighbour's job is.
    out = subprocess.run(
        ["setsid", "sh", "-c", "python3 -c \"$0\" & echo $!", _BURN],
        capture_output=True, text=True, check=True)
    return int(out.stdout)


def _ticks_at_least(pid, ticks):
    try:
        with open("/proc/%d/stat" % pid) as f:
            return cpu.parse_process_stat(f.read())[1] >= ticks
    except OSError:
        return True


def _used(who):
    """CPU seconds of this process, or of the children it reaped."""
    usage = resource.getrusage(who)
    return usage.ru_utime + usage.ru_stime


def _zombie(pid):
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[0] == "Z"
    except OSError:
        return False


class PruneTestCase(unittest.TestCase):

    def test_registries_of_gone_harnesses_go(self):
        with tempfile.TemporaryDirectory() as state:
            conf = _conf(state)
            gone = foreign_load.Registry(conf, root=2 ** 22 + 12345)
            gone_host = foreign_load.Registry(conf, root=2 ** 22 + 12345,
                                              host="compute-1")
            alive = foreign_load.Registry(conf, root=os.getpid())
            alive_host = foreign_load.Registry(conf, root=os.getpid(),
                                               host="compute-1")
            for registry in (gone, gone_host, alive, alive_host):
                registry.add("s_rally_x", registry.path[-9:])
            foreign_load.prune(conf)
            self.assertFalse(os.path.exists(gone.path))
            # a host's registry is no instance of the Rally host's
            self.assertEqual({"s_rally_x": alive.path[-9:]},
                             alive.sources())
            self.assertEqual({"s_rally_x": alive_host.path[-9:]},
                             alive_host.sources())
