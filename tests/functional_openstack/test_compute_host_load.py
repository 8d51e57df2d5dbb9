"""Foreign load read on the instance's compute host, not the Rally host.

The test cloud's aio-lxc runs its instances (and its native twins, and
its sshd) on the first CPU, aio-lxc-2 on the last, and each reads
/proc/stat as a host of those CPUs alone (lxcfs); the Rally host sees
both. A CPU hog pinned to the last CPU, outside everything of the task,
runs through the wave of two libvirt-LXC servers spread over the two
hosts (from the end of KEK's plain boot-and-delete before them). The
runs on aio-lxc-2 are disturbed and measured again; the runs on aio-lxc
read clearly less foreign load. Read on the Rally host, both would read
the same: this test would fail. Runs alone (tox.ini): the hog would
disturb the other tests, and they its readings.

Why ~4 min (225 s alone, 2026-11-27): one whole cloud task (users, the
image to Glance, warm caches on both hosts, KEK's plain boot-and-delete,
the wave), and the hogged host's runs measured again once (not twice),
at a seventh of a CPU. With the hog from the task's start: 385 s.
"""

import json
import os
import re
import signal
import subprocess
import threading
import unittest

from rally_container_bench.core import processes
from tests.functional import helpers
from tests.functional_openstack import cloud

# The whole quick-cpu: with a fifth of it, the native twin's window on
# the hog's host was ~1 s, and /proc/stat's rounding allowed for over so
# short a window (foreign_load.disturbed) left a twin beside the hog
# undisturbed (0.617 cores read, limit 0.6; CI).
TASK_ARGS = {"platforms": ["container"], "container": "nova-lxc",
             "concurrency": [2], "min_concurrency": {}, "waves": 1,
             "spread": True, "boot_and_delete": [2], "tests": ["quick-cpu"]}


# Rally's line at the end of the task's first workload
FIRST_WORKLOAD_DONE = re.compile(r"\(completed 1 of \d+ in general\)")


def hog(cpu):
    """Four spinning processes on cpu: what else runs there gets a fifth."""
    proc = subprocess.Popen(
        ["taskset", "-c", str(cpu), "sh", "-c",
         "for i in 1 2 3; do while :; do :; done & done; "
         "while :; do :; done"], start_new_session=True)
    hog_the_cpu(proc.pid)
    return proc


def hog_the_cpu(pid):
    """Weigh the hog's session as nice -8: ~86 % of a CPU beside one other.

    With the kernel's autogroup (Debian's default) the CPU is shared per
    session, not per process: the hog's four spinners against the native
    twin's sshd session would take only half of it.
    """
    path = "/proc/%d/autogroup" % pid
    if os.path.exists(path):
        with open(path, "w") as f:
            f.write("-8")


class ComputeHostLoadTestCase(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        # the hog stays to the end: nothing to wait for before a re-measure
        # one re-measure (not the default two): a second attempt is what
        # is checked, each costs the hogged host's tests at a seventh of a
        # CPU
        # CLOUD_LIMIT also where a host has no idle CPU (each test-cloud
        # host has one, and aio-lxc the cloud's services beside the hog)
        cls.home = cloud.aio_rally_home({"foreign_load_limit":
                                         cloud.CLOUD_LIMIT, "quiet_wait": 0,
                                         "saturated_load_share": 1,
                                         "remeasure_limit": 1})
        last = os.cpu_count() - 1
        if last < 1:
            cls.home.close()
            raise unittest.SkipTest("one CPU: aio-lxc and aio-lxc-2 share it")
        try:
            cls.uuid = cls.run_with_the_hog_from_the_wave(last)
        except BaseException:
            cls.home.close()
            raise
        cls.report = cls.home.results(cls.uuid)

    @classmethod
    def run_with_the_hog_from_the_wave(cls, cpu):
        """The task; the hog on cpu from the end of its first workload.

        The task's users, image and warm caches and the plain
        boot-and-delete then run at full speed (under the hog from the
        task's start the test took 385 s alone, not 225 s), and every
        test of the wave beside the hog.
        """
        args = dict(TASK_ARGS, compute_hosts=cloud.compute_hosts())
        rally = cls.home.popen(
            "task", "start", cloud.TASK, "--task-args-file", cloud.ARGS,
            "--task-args", json.dumps(args), stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT, text=True)
        watchdog = threading.Timer(1200, processes.signal_child,
                                   [rally, signal.SIGKILL, True])
        watchdog.start()
        spinners, output = None, []
        try:
            for line in rally.stdout:
                output.append(line)
                if spinners is None and FIRST_WORKLOAD_DONE.search(line):
                    spinners = hog(cpu)
            processes.wait_exited(rally, 1200)
        finally:
            watchdog.cancel()
            processes.end_group(rally)
            if spinners is not None:
                processes.end_group(spinners)
        text = "".join(output)
        if spinners is None:
            raise AssertionError("no hog: the first workload did not end "
                                 "(Rally's output: %s)" % text[-3000:])
        return cls.home.finished(text)

    @classmethod
    def tearDownClass(cls):
        cls.home.close()

    def runs_by_host(self):
        found = {}
        for workload in helpers.workloads(self.report):
            if "NovaInstances.boot_sysbench_delete" not in workload[
                    "scenario"]:
                continue
            for iteration in workload["data"]:
                self.assertFalse(iteration["error"])
                env = helpers.environment(iteration)
                for row in helpers.table_rows(iteration, "validity"):
                    # read on the instance's own host
                    self.assertEqual(env["compute_host"], row["host"])
                    found.setdefault(row["host"], []).append(row)
        return found

    def test_the_hogs_host_is_disturbed_and_the_other_is_not(self):
        found = self.runs_by_host()
        self.assertEqual({"aio-lxc", "aio-lxc-2"}, set(found))
        for row in found["aio-lxc-2"]:
            self.assertEqual("yes", row["disturbed"], found)
            self.assertGreater(float(row["foreign_cores"]), cloud.CLOUD_LIMIT)
        # each measured again, then left out
        self.assertIn("left out: disturbed",
                      {r["verdicts"] for r in found["aio-lxc-2"]})
        self.assertGreater(max(int(r["attempt"]) for r in found["aio-lxc-2"]),
                           1)
        # aio-lxc's CPU also carries the cloud's own services (more so
        # while the hog holds the other CPU): a run there may be
        # disturbed by them, but on the whole it reads clearly less than
        # the hog's host, and some of its runs are undisturbed. Each
        # reading is of one host of one CPU (read on the Rally host, of
        # two, the hog and the cloud together would exceed a core).

        def mean(rows):
            return sum(float(r["foreign_cores"]) for r in rows) / len(rows)
        self.assertLess(mean(found["aio-lxc"]),
                        mean(found["aio-lxc-2"]) - 0.15, found)
        self.assertIn("no", {r["disturbed"] for r in found["aio-lxc"]},
                      found)
        for rows in found.values():
            for row in rows:
                self.assertLessEqual(float(row["foreign_cores"]), 1.05, row)

    def test_the_plain_boot_and_delete_ran_on_both_hosts(self):
        (workload,) = [w for w in helpers.workloads(self.report)
                       if "NovaInstances.boot_and_delete" in w["scenario"]]
        hosts = {helpers.environment(i)["compute_host"]
                 for i in workload["data"] if not i["error"]}
        self.assertEqual({"aio-lxc", "aio-lxc-2"}, hosts)
