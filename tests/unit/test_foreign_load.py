"""Foreign load: parsing (pure) and a real measurement of this host.

The real cases burn CPU for a second in a process of this test's tree
(own) or in one outside it (foreign): /proc only, no engine.
"""

import os
import subprocess
import time
import unittest

from rally_container_bench import foreign_load

STAT = ("4242 (sysbench (x)) S 4200 4242 4200 0 -1 4194560 100 0 0 0 "
        "150 25 7 3 20 0 2 0 12345 0 0")
PROC_STAT = ("cpu  100 5 50 1000 20 3 2 40 0 0\n"
             "cpu0 50 2 25 500 10 1 1 20 0 0\nprocs_running 3\n")


class ParsingTestCase(unittest.TestCase):

    def test_process_ticks_count_reaped_children(self):
        # a name with spaces and parentheses; utime stime cutime cstime
        self.assertEqual((4200, 150 + 25 + 7 + 3),
                         foreign_load.parse_process_stat(STAT))

    def test_host_busy_leaves_out_idle_iowait_and_steal(self):
        self.assertEqual(100 + 5 + 50 + 3 + 2,
                         foreign_load.parse_host_busy(PROC_STAT))

    def test_cgroup_v1_cpuacct(self):
        text = ("4:memory:/docker/abc\n3:cpu,cpuacct:/docker/abc\n"
                "0::/\n")
        self.assertEqual("/sys/fs/cgroup/cpu,cpuacct/docker/abc/"
                         "cpuacct.usage",
                         foreign_load.cgroup_usage_file(text))

    def test_cgroup_v2(self):
        path = foreign_load.cgroup_usage_file("0::/lxc.payload.x\n")
        self.assertTrue(path.endswith("/lxc.payload.x/cpu.stat"), path)

    def test_a_vm_emulator_thread_counts_its_whole_machine(self):
        text = "2:cpuacct:/machine/qemu-1-vm.libvirt-qemu/emulator\n"
        self.assertEqual("/sys/fs/cgroup/cpuacct/machine/"
                         "qemu-1-vm.libvirt-qemu/cpuacct.usage",
                         foreign_load.cgroup_usage_file(text))

    def test_the_root_cgroup_is_no_instance_of_its_own(self):
        self.assertIsNone(foreign_load.cgroup_usage_file(
            "2:cpuacct:/\n0::/\n"))

    def test_usage_files(self):
        self.assertEqual(1.5, foreign_load.parse_usage(
            "x/cpuacct.usage", "1500000000\n"))
        self.assertEqual(2.0, foreign_load.parse_usage(
            "x/cpu.stat", "usage_usec 2000000\nuser_usec 1\n"))

    def test_tree_ticks_follow_children_only(self):
        table = {1: (0, 5), 10: (1, 7), 11: (10, 3), 20: (1, 100)}
        self.assertEqual(10, foreign_load.tree_ticks(table, 10))

    def test_load_sets_busy_against_own(self):
        before = _sample(at=0.0, busy=10.0, harness=1.0, instances={"a": 0})
        after = _sample(at=2.0, busy=14.0, harness=2.0,
                        instances={"a": 2.0, "new": 5.0})
        load = foreign_load.load(before, after)
        # own: harness 1 s + instance a 2 s; "new" seen once: not own
        self.assertAlmostEqual(1.5, load["own"])
        self.assertAlmostEqual(0.5, load["foreign"])
        self.assertAlmostEqual(2.0, load["busy"])


def _sample(**fields):
    sample = foreign_load.Sample.__new__(foreign_load.Sample)
    sample.__dict__.update(fields)
    return sample


# 0.6 s of CPU, however busy the host is (the other test worker, a job).
_BURN = "import time\nwhile time.process_time() < 0.6: pass\n"


class RealHostTestCase(unittest.TestCase):
    """0.6 s of CPU burnt inside the harness's tree, or outside it."""

    def setUp(self):
        foreign_load.set_harness(os.getpid())
        self.addCleanup(foreign_load.set_harness, None)

    def seconds(self, start):
        """{foreign, own} CPU seconds while start()'s burner ran."""
        before = foreign_load.Sample(None)
        pid = start()
        deadline = time.monotonic() + 60
        while os.path.exists("/proc/%d/stat" % pid) and not _zombie(pid):
            self.assertLess(time.monotonic(), deadline)
            time.sleep(0.05)
        after = foreign_load.Sample(None)
        load = foreign_load.load(before, after)
        return {k: load[k] * (after.at - before.at) for k in ("foreign",
                                                              "own")}

    def test_a_child_of_the_harness_is_its_own(self):
        proc = subprocess.Popen(["python3", "-c", _BURN])
        self.addCleanup(proc.wait, 10)
        found = self.seconds(lambda: proc.pid)
        self.assertGreater(found["own"], 0.5, found)

    def test_a_process_outside_the_harness_is_foreign(self):
        # setsid + a shell that exits at once: the burner is reparented
        # away from this process's tree, as a neighbour's job is.
        def start():
            out = subprocess.run(
                ["setsid", "sh", "-c", "python3 -c \"$0\" & echo $!",
                 _BURN], capture_output=True, text=True, check=True)
            return int(out.stdout)
        found = self.seconds(start)
        self.assertGreater(found["foreign"], 0.5, found)
        self.assertLess(found["own"], 0.3, found)


def _zombie(pid):
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[0] == "Z"
    except OSError:
        return False


class PruneTestCase(unittest.TestCase):

    def test_registries_of_gone_harnesses_go(self):
        import tempfile
        import types
        with tempfile.TemporaryDirectory() as state:
            conf = types.SimpleNamespace(daemon_state_dir=state)
            gone = foreign_load.Registry(conf, root=2 ** 22 + 12345)
            alive = foreign_load.Registry(conf, root=os.getpid())
            for registry in (gone, alive):
                os.makedirs(registry.path)
                with open(os.path.join(registry.path, "s_rally_x"), "w"):
                    pass
            foreign_load.prune(conf)
            self.assertFalse(os.path.exists(gone.path))
            self.assertEqual({"s_rally_x": ""}, alive.sources())
