"""The periodic job end to end on real Docker containers: a baseline run,
an unchanged rerun that the gate passes, and a run with an injected
slowdown (every container limited to a fifth of a CPU by a CFS quota,
``[container_bench] container_cpus``) that the gate fails, naming the
metric, by how much and with its CI. Each run is ``rcbench periodic`` as an
operator types it, with a Rally home of its own.
"""

import json
import os
import shutil
import subprocess
import tempfile
import unittest

from rally_container_bench.engines import registry
from rally_container_bench import opts
from tests.functional import helpers

TASK = os.path.join(helpers.TOP, "tasks", "local_kvm_vs_containers.yaml")
ARGS = os.path.join(helpers.TOP, "tasks", "args", "periodic-local.yaml")
# Docker only (the gate compares a platform with itself across runs); the
# gate looks at cpu throughput only, with a band wider than this host's
# noise under the other tests running beside it.
# Four iterations: with 4 vs 4 the gate's permutation test reaches
# p = 0.029, enough for a slowdown of this size.
TASK_ARGS = json.dumps({"platforms": ["docker"], "tests": ["quick-cpu"],
                        "times": 4})
THRESHOLDS = ("default: 9.0\n"
              "metrics:\n  sysbench.cpu.events_per_s: 0.30\n")
CPU = "sysbench.cpu.events_per_s"


class PeriodicJobTestCase(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        conf = opts.register()
        usable, why = registry.instance_class("docker").check(conf)
        if not usable:
            raise unittest.SkipTest(why)
        registry.prepared_instance("docker", conf)
        cls.home = helpers.RallyHome()
        cls.tmp = tempfile.mkdtemp(prefix="rcbench-periodic-")
        cls.results = os.path.join(cls.tmp, "results")
        cls.baseline = os.path.join(cls.results, "baseline.json")
        cls.thresholds = os.path.join(cls.tmp, "thresholds.yaml")
        with open(cls.thresholds, "w") as f:
            f.write(THRESHOLDS)
        # The slowed run: the same Rally DB, containers limited to 0.2 CPU.
        cls.slow_conf = os.path.join(cls.tmp, "rally-slow.conf")
        with open(cls.home.conf) as f:
            conf_text = f.read()
        with open(cls.slow_conf, "w") as f:
            f.write(conf_text.replace("[container_bench]\n",
                                      "[container_bench]\n"
                                      "container_cpus = 0.2\n"))
        cls.runs = [cls.periodic(cls.home.conf, "--promote-if-missing"),
                    cls.periodic(cls.home.conf),
                    cls.periodic(cls.slow_conf)]

    @classmethod
    def tearDownClass(cls):
        cls.home.close()
        shutil.rmtree(cls.tmp, ignore_errors=True)

    @classmethod
    def periodic(cls, rally_conf, *extra):
        before = set(os.listdir(cls.results)) if os.path.isdir(
            cls.results) else set()
        proc = subprocess.run(
            [os.path.join(helpers.BIN, "rcbench"), "periodic",
             "--task", TASK, "--task-args-file", ARGS,
             "--task-args", TASK_ARGS, "--results", cls.results,
             "--baseline", cls.baseline, "--thresholds", cls.thresholds,
             "--local-env", "--rally-config", rally_conf, *extra],
            capture_output=True, text=True, cwd=helpers.TOP,
            env=dict(os.environ, HOME=cls.home.path,
                     XDG_CACHE_HOME=helpers.CACHE_HOME))
        made = sorted(set(os.listdir(cls.results)) - before
                      - {"baseline.json", "latest"})
        return proc, os.path.join(cls.results, made[-1]) if made else None

    def read(self, run, name):
        with open(os.path.join(run[1], name)) as f:
            return f.read()

    def test_a_task_that_cannot_run_says_why_and_exits_2(self):
        proc = subprocess.run(
            [os.path.join(helpers.BIN, "rcbench"), "periodic",
             "--task", TASK, "--task-args-file", ARGS,
             "--task-args", json.dumps({"platforms": ["docker"],
                                        "tests": ["no-such-preset"]}),
             "--results", os.path.join(self.tmp, "bad"),
             "--local-env", "--rally-config", self.home.conf],
            capture_output=True, text=True, cwd=helpers.TOP,
            env=dict(os.environ, HOME=self.home.path,
                     XDG_CACHE_HOME=helpers.CACHE_HOME))
        self.assertEqual(2, proc.returncode, proc.stdout + proc.stderr)
        self.assertIn("the task did not run", proc.stdout)
        self.assertIn("unknown sysbench preset 'no-such-preset'",
                      proc.stdout)
        (run_dir,) = os.listdir(os.path.join(self.tmp, "bad"))
        self.assertEqual(["run.json"], os.listdir(os.path.join(
            self.tmp, "bad", run_dir)))

    def test_baseline_run_exports_everything_and_is_promoted(self):
        proc, run_dir = self.runs[0]
        self.assertEqual(0, proc.returncode, proc.stdout + proc.stderr)
        for name in ("rally.json", "report.html", "junit.xml",
                     "comparison.html", "comparison.csv", "comparison.json",
                     "comparison.md", "run.json"):
            self.assertTrue(os.path.getsize(os.path.join(run_dir, name)),
                            name)
        self.assertTrue(os.path.isfile(self.baseline))
        self.assertIn("no baseline at", proc.stdout)
        self.assertIn('failures="0"', self.read(self.runs[0], "junit.xml"))

    def test_unchanged_rerun_passes_the_gate(self):
        proc, run_dir = self.runs[1]
        self.assertEqual(0, proc.returncode, proc.stdout + proc.stderr)
        gate_text = self.read(self.runs[1], "gate.txt")
        self.assertIn("0 regression(s)", gate_text)
        self.assertIn(CPU, gate_text)  # it was compared, not skipped
        self.assertTrue(os.path.getsize(os.path.join(run_dir,
                                                     "trends.html")))
        self.assertIn("docker-runc", self.read(self.runs[1], "trends.md"))

    def test_injected_slowdown_trips_the_gate(self):
        proc, run_dir = self.runs[2]
        self.assertEqual(1, proc.returncode, proc.stdout + proc.stderr)
        self.assertIn("the gate found a regression", proc.stdout)
        with open(os.path.join(run_dir, "gate.json")) as f:
            findings = json.load(f)["findings"]
        cpu = [f for f in findings if f["metric"] == CPU]
        self.assertEqual(["docker-runc"], [f["platform"] for f in cpu])
        self.assertTrue(cpu[0]["regressed"])
        # A fifth of a CPU: throughput falls by well over half.
        self.assertGreater(cpu[0]["change"], 0.5)
        self.assertLess(cpu[0]["p_value"], 0.05)
        self.assertLessEqual(cpu[0]["ci_low"], cpu[0]["change"])
        line = next(line for line in proc.stdout.splitlines()
                    if line.startswith(CPU))
        self.assertIn("REGRESSION", line)
        print("\n" + line)
        # The slowed run's environment says what was different.
        env = helpers.environment(next(
            iteration for workload in helpers.workloads(
                json.loads(self.read(self.runs[2], "rally.json")))
            for iteration in workload["data"]))
        self.assertEqual("0.2", env["cpu_limit"])
        self.assertEqual(os.path.realpath(os.path.join(self.results,
                                                       "latest")),
                         os.path.realpath(run_dir))

    def diff(self, baseline, candidate):
        proc = subprocess.run(
            [os.path.join(helpers.BIN, "rcbench"), "diff",
             os.path.join(baseline[1], "rally.json"),
             os.path.join(candidate[1], "rally.json"), "--thresholds",
             self.thresholds, "--out", os.path.join(candidate[1], "diff")],
            capture_output=True, text=True)
        self.assertEqual(0, proc.returncode, proc.stderr)
        with open(os.path.join(candidate[1], "diff", "diff.json")) as f:
            return proc.stdout, json.load(f)["changes"]

    def test_rcbench_diff_sees_no_change_in_a_rerun(self):
        _, changes = self.diff(self.runs[0], self.runs[1])
        self.assertTrue(changes)
        self.assertLessEqual({c["verdict"] for c in changes},
                             {"no change", "not tested"})
        self.assertIn(CPU, [c["metric"] for c in changes
                            if c["verdict"] == "no change"])

    def test_rcbench_diff_names_the_slowed_platform_only(self):
        text, changes = self.diff(self.runs[0], self.runs[2])
        worse = {(c["metric"], c["platform"]) for c in changes
                 if c["verdict"] == "worse"}
        self.assertIn((CPU, "docker-runc"), worse)
        self.assertEqual({"docker-runc"}, {p for _, p in worse})
        cpu = next(c for c in changes if c["metric"] == CPU)
        self.assertLess(cpu["ratio"], 0.5)
        self.assertLess(cpu["p_value"], 0.05)
        print("\n" + next(line for line in text.splitlines()
                          if line.startswith(CPU)))
