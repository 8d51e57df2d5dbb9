"""rcbench decide on Docker and this host, with a CPU hog beside it.

A real sequential run (rounds of tasks/local_kvm_vs_containers.yaml,
each Docker test paired with its native twin) while a CPU hog outside
Rally's process tree runs from round 1's first Docker iteration until a
re-measure waits on it: the runs beside it are flagged with their
foreign load, wait for the hog to end ("host busy: waiting") and are
measured again, and left out of verdicts; every cell ends with a verdict
or the pairs it still needs, within the budget. Runs alone (tox.ini: the
hog would disturb other tests, and they its verdicts).
"""

import json
import os
import re
import subprocess
import time

import yaml

from rally_container_bench.core import base
from rally_container_bench.core import processes
from tests.functional import helpers

TASK = os.path.join(helpers.TOP, "tasks", "local_kvm_vs_containers.yaml")
# the hog ends this long after a re-measure began waiting on it, so that
# wait lasts longer than a window or two
WAITED_S = 3
HOG_MAX_S = 120
WAITING = "host busy: waiting for quiet on"
LIMIT = 0.25
BUDGET_S = 120


class _LimitTestCase(helpers.DockerRallyTestCase):
    """Docker and a Rally home with the default foreign load limit."""

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.home.close()  # the quiet one: these tests are about the limit
        cls.home = helpers.RallyHome({"foreign_load_limit": LIMIT})

    def decide(self, args, out):
        """rcbench decide's argv on the local task in this Rally home."""
        return [os.path.join(helpers.BIN, "rcbench"), "decide", "--task",
                TASK, "--task-args-file", args, "--env", "local", "--out",
                out, "--rally-config", self.home.conf]

    def env(self):
        return dict(os.environ, HOME=self.home.path,
                    XDG_CACHE_HOME=helpers.CACHE_HOME)


class DecideWithHogTestCase(_LimitTestCase):

    def test_hog_is_flagged_and_remeasured_and_cells_are_decided(self):
        args = os.path.join(self.home.path, "args.yaml")
        with open(args, "w") as f:
            yaml.safe_dump({
                "platforms": ["native", "docker"], "concurrency": [1, 2],
                "tests": ["quick-cpu"], "seed": 7,
                # the hog's run, not the instrument's (below)
                "decide": {"budget_s": BUDGET_S, "max_rounds": 3,
                           "pairs_per_round": 3, "instrument_check": False,
                           # pairs in sequence beside the hog
                           "pairing": "sequential",
                           "margins": {"cpu": "auto"}}}, f)
        out = os.path.join(self.home.path, "decide")
        run = subprocess.Popen(
            self.decide(args, out), cwd=helpers.TOP, env=self.env(),
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
            start_new_session=True)
        self.addCleanup(processes.end_group, run)
        log = os.path.join(out, "rally-task.log")

        # A neighbour's job: outside Rally's tree; two cores, so no CPU is
        # left for it beside a test (one core on a free CPU, alike for
        # both runs of a pair, would not disturb the pair:
        # DecideBesideSteadyLoadTestCase). It starts at round 1's first
        # Docker iteration and stays until a re-measure waits on it, then
        # ends: a hog of fixed length could end before any instance was
        # measured (containers created beside it took most of 20 s, and
        # the only waits came after it: 1 run in 8, 2026-12-01).
        base.wait_until(lambda: _docker_iterating(log), 300, 0.2,
                        "round 1's first Docker iteration")
        hog = _hog(HOG_MAX_S, cores=2)
        self.addCleanup(_stop, hog)
        started = time.monotonic()
        base.wait_until(lambda: WAITING in _text(log), HOG_MAX_S, 0.2,
                        "a re-measure waiting for quiet beside the hog",
                        last=lambda: _timeline(log))
        time.sleep(WAITED_S)
        _stop(hog)
        hog_s = time.monotonic() - started
        output, _ = run.communicate(timeout=900)
        self.assertEqual(0, run.returncode, output[-4000:])

        with open(os.path.join(out, "decide.json")) as f:
            summary = json.load(f)
        self.assertEqual(2, summary["cells"])
        self.assertLessEqual(summary["elapsed_s"], BUDGET_S + 120)
        self.assertIn("cells decided", output)  # the progress lines
        self.assertIn("margin of cpu", output)
        self.assertGreaterEqual(summary["margins"]["cpu"], 0.02)

        with open(os.path.join(out, "rally.json")) as f:
            document = json.load(f)
        checks = [row for w in helpers.workloads(document)
                  for i in w["data"] for row in _rows(i, "validity")]
        disturbed = [c for c in checks if c["disturbed"] == "yes"]
        self.assertTrue(disturbed, "no run flagged beside the hog (%d s "
                        "from round 1's first Docker iteration; the runs: %s; "
                        "the log: %s)" % (hog_s, _seen(checks),
                                          _timeline(log)))
        # the hog is one core, but a run it overlapped only in part reads
        # less: disturbed means above the limit that applied (0.495 was
        # seen; on a host with no idle CPU a third of it: 0.113, CI
        # 2026-11-29), or Rally's own CPU above the whole limit
        for check in disturbed:
            self.assertTrue(
                float(check["foreign_cores"]) > float(check["limit_cores"])
                or float(check["unplaced_cores"] or 0) > LIMIT, check)
            self.assertIn(check["verdicts"],
                          ("re-measured", "left out: disturbed"))
        self.assertTrue([c for c in checks if int(c["attempt"]) > 1],
                        "nothing was measured again")
        # two cores beside a test on 2 CPUs: no CPU left for the load, no
        # pair kept beside it (it took what the test left: 1.2-1.5 cores)
        self.assertFalse([c for c in checks
                          if c["verdicts"].startswith("used: ")],
                         _seen(checks))
        # and before measuring again it waited for the hog to end
        waits = [row for w in helpers.workloads(document)
                 for i in w["data"] for row in _rows(i, "quiet wait")]
        self.assertTrue([r for r in waits
                         if r["waited_s"] > 2 and r["quiet"] == "yes"],
                        "%s; the runs: %s; the log: %s" % (
                            waits, _seen(checks), _timeline(log)))
        self.assertIn("host busy: waiting", output)  # the progress line
        # Rally's own view: the instance's and the twin's tables
        titles = {t["title"] for w in helpers.workloads(document)
                  for i in w["data"] for t in i["output"]["additive"]}
        self.assertIn("sysbench cpu", titles)
        self.assertIn("native twin: sysbench cpu", titles)

        with open(os.path.join(out, "comparison.json")) as f:
            report = json.load(f)
        rows = [r for r in report["rows"]
                if r["metric"] == "sysbench.cpu.events_per_s"
                and r["platform"] != "native"]
        self.assertEqual(2, len(rows))
        decided = [r for r in rows
                   if r["verdict"] in ("equivalent", "worse", "better")]
        self.assertEqual(summary["decided"], len(decided))
        for row in rows:
            self.assertGreaterEqual(row["pairs"], 3)
            # a wave's pairs, measured at once, count once (the scenario
            # records each pair's wave)
            if row["concurrency"] == 1:
                self.assertEqual(row["pairs"], row["moments"])
            else:
                self.assertLess(row["moments"], row["pairs"])
            # its step's own margin, chosen from that step's pairs
            self.assertEqual(summary["margins"].get(
                "cpu at %d" % row["concurrency"], summary["margins"]["cpu"]),
                row["margin"])
            if row in decided:
                self.assertIsNotNone(row["time_to_verdict_s"])
            else:  # what it still needs
                self.assertEqual("inconclusive", row["verdict"])
                self.assertIsNone(row["time_to_verdict_s"])
        self.assertGreater(report["disturbance"]["disturbed"], 0)
        with open(os.path.join(out, "comparison.md")) as f:
            self.assertIn("Foreign load:", f.read())
        self.assertEqual([], self.containers())
        # the periodic job's tools read the paired results
        for verb in (["diff"], ["gate", "--all"]):
            found = subprocess.run(
                [os.path.join(helpers.BIN, "rcbench")] + verb
                + [os.path.join(out, "rally.json")] * 2,
                capture_output=True, text=True)
            self.assertEqual(0, found.returncode, found.stderr)
            self.assertIn("sysbench.cpu.events_per_s", found.stdout)


class DecideBesideSteadyLoadTestCase(_LimitTestCase):
    """A one-core neighbour through the whole run, a CPU free for it."""

    def test_pairs_beside_the_same_load_are_used(self):
        args = os.path.join(self.home.path, "args.yaml")
        with open(args, "w") as f:
            yaml.safe_dump({
                "platforms": ["native", "docker"], "concurrency": [1],
                "tests": ["quick-cpu"], "seed": 7,
                "decide": {"budget_s": BUDGET_S, "max_rounds": 1,
                           "pairs_per_round": 4, "instrument_check": False,
                           "pairing": "sequential",
                           "margins": {"cpu": 0.05}}}, f)
        out = os.path.join(self.home.path, "decide")
        hog = _hog(BUDGET_S + 60, cores=1)
        self.addCleanup(_stop, hog)
        time.sleep(1)
        run = subprocess.run(
            self.decide(args, out), cwd=helpers.TOP, env=self.env(),
            capture_output=True, text=True, timeout=600)
        self.assertIsNone(hog.poll(), "the load ended before the run")
        self.assertEqual(0, run.returncode, run.stdout[-4000:])
        with open(os.path.join(out, "rally.json")) as f:
            document = json.load(f)
        checks = [row for w in helpers.workloads(document)
                  for i in w["data"] for row in _rows(i, "validity")]
        alike = [c for c in checks
                 if c["verdicts"] == "used: foreign load alike in the pair"]
        # each run read the neighbour's core above the limit, the pair
        # alike: used, not measured again nor left out. Not every pair:
        # where other threads (the daemons') were runnable at both of a
        # run's readings, the load's room is not shown, and the pair is
        # measured again (3 of 4 pairs used in one CI run while Rally's
        # own threads still counted, 4 of 4 in three others)
        self.assertTrue(alike, _seen(checks))
        for check in alike:
            self.assertEqual("yes", check["disturbed"], check)
            self.assertGreater(float(check["foreign_cores"]), 0.5, check)
        with open(os.path.join(out, "comparison.json")) as f:
            report = json.load(f)
        (row,) = [r for r in report["rows"]
                  if r["metric"] == "sysbench.cpu.events_per_s"
                  and r["platform"].startswith("docker")]
        self.assertEqual(len(alike) // 2, int(re.search(
            r"(\d+) pair\(s\) measured beside foreign load alike",
            row["note"]).group(1)), row["note"])
        self.assertLessEqual(len(alike) // 2, row["pairs"])
        self.assertEqual(len(alike), report["disturbance"]["alike"])
        self.assertEqual([], self.containers())


class InstrumentCheckTestCase(helpers.DockerRallyTestCase):
    """A decided run with its A/A and known effect, on a quiet host.

    Docker at 1 and the instrument's cells, one round of 6 waves after the
    calibration of the pairs' mode (the A/A at once and in sequence, 10
    pairs each): the A/A makes no false decision, the known effect (10 %
    of the CPU time of the CPU taken by a busy neighbour at nice 10) is
    found "worse", the margin holds the A/A's spread, the mode chosen
    names the cell, and the check is at the top of the page in Chromium.
    """

    def test_the_run_checks_itself(self):
        args = os.path.join(self.home.path, "args.yaml")
        with open(args, "w") as f:
            yaml.safe_dump({
                "platforms": ["native", "docker"], "concurrency": [1],
                "tests": ["quick-cpu"], "seed": 3,
                "decide": {"budget_s": 400, "max_rounds": 1,
                           "pairs_per_round": 6, "harness_yields": True,
                           "margins": {"cpu": "auto"}}}, f)
        out = os.path.join(self.home.path, "decide")
        run = subprocess.run(
            [os.path.join(helpers.BIN, "rcbench"), "decide", "--task", TASK,
             "--task-args-file", args, "--env", "local", "--out", out,
             "--rally-config", self.home.conf], cwd=helpers.TOP,
            env=dict(os.environ, HOME=self.home.path,
                     XDG_CACHE_HOME=helpers.CACHE_HOME),
            capture_output=True, text=True, timeout=900)
        self.assertEqual(0, run.returncode, run.stdout[-4000:])
        with open(os.path.join(out, "decide.json")) as f:
            summary = json.load(f)
        self.assertEqual(["native-aa at 1", "native-slowed at 1"],
                         summary["instrument_cells"])
        with open(os.path.join(out, "comparison.json")) as f:
            report = json.load(f)
        (kind,) = report["instrument"]["kinds"]
        self.assertEqual("sysbench.cpu.events_per_s", kind["metric"])
        (aa,) = kind["aa"]
        self.assertNotIn(aa["verdict"], ("worse", "better"), kind)
        self.assertEqual(6, aa["pairs"])
        (known,) = kind["known"]
        self.assertEqual("worse", known["verdict"], kind)
        self.assertAlmostEqual(-0.097, known["change"], delta=0.03)
        # the A/A both ways first (pairing: auto), the mode chosen from it
        # names every cell's row, and its margin holds the A/A's spread
        pairing = summary["pairing"]
        facts = pairing["calibration"]["cpu"]
        self.assertIsNotNone(facts["aa_sd_at_once"], pairing)
        self.assertIsNotNone(facts["aa_sd_in_sequence"], pairing)
        self.assertEqual(facts["mode"], {"at-once": "at once",
                                         "sequential": "in sequence"}[
                                             pairing["modes"]["1"]["cpu"]])
        (row,) = [r for r in report["rows"]
                  if r["metric"] == "sysbench.cpu.events_per_s"
                  and r["platform"] == "docker-runc"]
        self.assertEqual(facts["mode"], row["pairing"])
        key = "cpu at %d" % row["concurrency"] \
            if row["pairing"] == "in sequence" else "cpu at once"
        noise = summary["margins_from_noise"][key]
        self.assertGreaterEqual(summary["margins"][key], noise["aa_margin"])
        self.assertIsNotNone(noise["aa_pair_sd"])
        dom = helpers.offline_dom(
            "file://" + os.path.join(out, "comparison.html"),
            os.path.join(self.home.path, "dom-profile"))
        self.assertLess(dom.index('id="instrument-check"'),
                        dom.index('id="headline"'))
        self.assertIn("injected", dom)
        self.assertEqual([], self.containers())


def _hog(seconds, cores):
    """A neighbour outside Rally's tree: busy loops, bounded."""
    loops = " & ".join(["while :; do :; done"] * cores)
    return subprocess.Popen(
        ["timeout", str(seconds), "sh", "-c", loops + "; wait"],
        start_new_session=True)


def _text(path):
    if not os.path.exists(path):
        return ""
    with open(path) as f:
        return f.read()


def _docker_iterating(log):
    """Whether an iteration of a Docker workload has started in log."""
    workloads = _text(log).split("Running workload:")[1:]
    return any('"driver": "docker"' in w and "ITER: 1 START" in w
               for w in workloads)


def _rows(iteration, title):
    for table in iteration["output"]["complete"]:
        if table["title"] == title:
            cols = table["data"]["cols"]
            return [dict(zip(cols, row)) for row in table["data"]["rows"]]
    return []


def _seen(checks):
    """What a failed assertion shows of the validity rows."""
    return "; ".join("%s %s busy %s foreign %s running %s %s" % (
        c["run"], c["attempt"], c["host_busy"], c["foreign_cores"],
        c["host_running_max"], c["verdicts"]) for c in checks)


def _timeline(log):
    """The rally-task.log lines that say when iterations and waits were."""
    return " | ".join(line.strip()[:160] for line in _text(log).splitlines()
                      if "ITER" in line or "host busy" in line)


def _stop(proc):
    processes.end_group(proc, timeout=10)
