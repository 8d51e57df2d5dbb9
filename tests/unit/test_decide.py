"""rcbench decide's pure parts: cells, plans, what is still undecided,
and the progress it shows. The real run: tests/functional/test_decide.py.
"""

import copy
import io
import os
import sys
import tempfile
import unittest

from rally_container_bench.decide import budget as decide_budget
from rally_container_bench.decide import plan as planner
from rally_container_bench.decide import rally_runs
from rally_container_bench.decide import settings as decide_settings

ARGS = {"platforms": ["native", "kvm", "docker"], "concurrency": [1, 2],
        "tests": ["quick-cpu", "quick-memory-read"],
        "max_concurrency": {"kvm": 1}}


class PlanTestCase(unittest.TestCase):

    def test_cells_leave_out_native_and_capped_steps(self):
        self.assertEqual(
            {("kvm", 1), ("docker", 1), ("docker", 2)},
            set(planner.cells_of(ARGS)))

    def test_a_cloud_tasks_cells_are_its_units(self):
        args = {"platforms": ["native", "kvm", "container"],
                "container": ["nova-lxc", "zun"], "zun_runtime": "runc",
                "concurrency": [1, 2, 4], "tests": ["quick-cpu"],
                "max_concurrency": {"kvm": 1, "nova-lxc": 2}}
        self.assertEqual(
            {("kvm", 1), ("nova-lxc", 1), ("nova-lxc", 2), ("zun", 1),
             ("zun", 2), ("zun", 4)}, set(planner.cells_of(args)))
        self.assertEqual(["zun:runc", "zun:runsc"], planner.units_of(
            dict(args, platforms=["container"], container="zun",
                 zun_runtime=["runc", "runsc"])))
        # a VM boots for minutes: its tests repeat in one wave (3 times
        # in round 1: the fewest with an interval)
        plan = planner.plan_round({("kvm", 2): ["quick-cpu"],
                                  ("nova-lxc", 2): ["quick-cpu"]}, 2, 1, 6)
        self.assertEqual(sorted([["kvm", 2, ["quick-cpu"], 2, 6],
                                 ["nova-lxc", 2, ["quick-cpu"], 12, 1]]),
                         sorted(plan))

    def test_native_alone_never_on_the_rally_host_for_a_compute_host(self):
        local = {"platforms": ["native", "docker"]}
        self.assertTrue(planner.natives_alone(local))
        cloud = {"platforms": ["native", "container"], "compute_hosts": {}}
        self.assertFalse(planner.natives_alone(cloud))
        self.assertTrue(planner.natives_alone(dict(cloud,
                                                   native_host="c1")))
        self.assertFalse(planner.natives_alone({"platforms": ["docker"]}))

    def test_a_round_gives_every_step_its_waves(self):
        # a wave's pairs count once: 3 a round is 3 waves at any step
        self.assertEqual(3, planner.times_for(1, 3))
        self.assertEqual(6, planner.times_for(2, 3))
        self.assertEqual(96, planner.times_for(32, 3))
        never = lambda platform: False  # noqa
        always = lambda platform: True  # noqa
        self.assertEqual((6, 1), planner.cell_runs("docker", 2, 3, never))
        # a VM that costs a boot: one wave, each repeat a moment
        self.assertEqual((2, 3), planner.cell_runs("kvm", 2, 3, always))

    def test_rounds_are_shuffled_by_seed_and_round(self):
        cells = planner.cells_of(ARGS)
        first = planner.plan_round(cells, 1, 1, 3)
        self.assertEqual(first, planner.plan_round(cells, 1, 1, 3))
        orders = {tuple(tuple(c[:2]) for c in planner.plan_round(
            cells, number, 1, 3)) for number in range(1, 7)}
        self.assertGreater(len(orders), 1)
        self.assertEqual(sorted(cells), sorted(
            (p, s) for p, s, _, _, _ in first))

    def test_natives_and_decided_cells(self):
        cells = {("docker", 1): ["quick-cpu"], ("docker", 2): []}
        plan = planner.plan_round(cells, 1, 1, 3,
                                  natives=[(1, ["quick-cpu"])])
        # a container: a pair per instance, 3 instances
        self.assertEqual(sorted([["docker", 1, ["quick-cpu"], 3, 1],
                                 ["native", 1, ["quick-cpu"], 3, 1]]),
                         sorted(plan))

    def test_a_vm_repeats_its_tests_in_one_wave(self):
        cells = {("kvm", 2): ["quick-cpu"], ("docker", 2): ["quick-cpu"]}
        plan = planner.plan_round(cells, 2, 1, 6)
        # 6 waves of 2 each way: a wave's pairs count once
        self.assertEqual(sorted([["docker", 2, ["quick-cpu"], 12, 1],
                                 ["kvm", 2, ["quick-cpu"], 2, 6]]),
                         sorted(plan))
        # round 1: the VM's first look at the fewest with an interval
        first = planner.plan_round(cells, 1, 1, 6)
        self.assertIn(["kvm", 2, ["quick-cpu"], 2,
                       planner.FIRST_LOOK_REPEATS], first)
        self.assertIn(["docker", 2, ["quick-cpu"], 12, 1], first)
        self.assertEqual([["kvm", 1, ["quick-cpu"], 1, 2]],
                         planner.plan_round({("kvm", 1): ["quick-cpu"]},
                                            1, 1, 2))


def _report(verdicts):
    """A comparison report's shape: {(label, step, metric): verdict}."""
    rows = [{"platform": label, "concurrency": step, "metric": metric,
             "verdict": verdict} for (label, step, metric), verdict
            in verdicts.items()]
    names = {metric for (_, _, metric) in verdicts}
    return {"platforms": [{"driver": "kvm", "label": "qemu-tcg"},
                          {"driver": "docker", "label": "docker-runc"}],
            "metrics": [{"name": n, "headline": True} for n in names]
            + [{"name": "sysbench.cpu.latency_avg_ms", "headline": False}],
            "rows": rows}


class UndecidedTestCase(unittest.TestCase):

    def test_a_test_is_decided_by_its_headline_metric(self):
        report = _report({
            ("qemu-tcg", 1, "sysbench.cpu.events_per_s"): "worse",
            ("qemu-tcg", 1, "sysbench.memory.read.mib_per_s"):
                "inconclusive",
            ("docker-runc", 1, "sysbench.cpu.events_per_s"): "equivalent",
            ("docker-runc", 1, "sysbench.memory.read.mib_per_s"): "better",
            ("docker-runc", 2, "sysbench.cpu.events_per_s"): None})
        report["rows"].append({"platform": "docker-runc", "concurrency": 1,
                               "metric": "sysbench.cpu.latency_avg_ms",
                               "verdict": "inconclusive"})
        left = planner.undecided(report, planner.cells_of(ARGS))
        self.assertEqual({("kvm", 1): ["quick-memory-read"],
                          ("docker", 1): [],
                          # no row yet (the round failed): still to do
                          ("docker", 2): ["quick-cpu", "quick-memory-read"]},
                         left)
        # no interval in any test left (all runs left out, or no row):
        # no answer at all yet; the VM has one, not sharp enough
        self.assertEqual({("docker", 2)}, planner.unanswered(report, left))


class PairSpreadsTestCase(unittest.TestCase):

    def test_every_cell_of_a_kind_counts_decided_or_not(self):
        report = _report({
            ("qemu-tcg", 1, "sysbench.cpu.events_per_s"): "worse",
            ("docker-runc", 1, "sysbench.cpu.events_per_s"): "equivalent",
            ("docker-runc", 2, "sysbench.cpu.events_per_s"): "inconclusive",
            ("docker-runc", 1, "sysbench.memory.read.mib_per_s"): None})
        sds = {("qemu-tcg", 1): 0.011, ("docker-runc", 1): 0.004,
               ("docker-runc", 2): 0.026}
        for row in report["rows"]:
            if row["metric"].endswith("events_per_s"):
                row["pair_sd"] = sds[(row["platform"], row["concurrency"])]
        spreads = planner.pair_spreads(report, planner.cells_of(ARGS))
        self.assertEqual([0.004, 0.011, 0.026], sorted(spreads["cpu"]))
        # a cell with no pairs yet has no spread
        self.assertNotIn("memory", spreads)
        # and each step's apart: one instance beside its twin pairs
        # steadier than two sharing the CPUs
        self.assertEqual([0.004, 0.011], sorted(spreads["cpu at 1"]))
        self.assertEqual([0.026], spreads["cpu at 2"])

    def test_the_platforms_margins_read_the_spread_one_pair_cannot_carry(self):
        report = _report({
            ("qemu-tcg", 1, "sysbench.cpu.events_per_s"): "worse",
            ("docker-runc", 1, "sysbench.cpu.events_per_s"): "equivalent"})
        for row, (plain, robust) in zip(report["rows"], [(0.012, 0.011),
                                                         (0.0096, 0.0023)]):
            row.update(pair_sd=plain, pair_sd_robust=robust)
        cells = planner.cells_of(ARGS)
        self.assertEqual([0.0023, 0.011], sorted(planner.pair_spreads(
            report, cells, "pair_sd_robust")["cpu at 1"]))
        self.assertEqual([0.0096, 0.012], sorted(
            planner.pair_spreads(report, cells)["cpu at 1"]))


class UpperQuartileTestCase(unittest.TestCase):

    def test_three_cells_in_four_at_or_below_it(self):
        values = [0.002, 0.005, 0.005, 0.006, 0.008, 0.010, 0.012, 0.022,
                  0.024]
        quartile = planner.upper_quartile(values)
        self.assertEqual(0.012, round(quartile, 6))
        self.assertGreater(quartile, sorted(values)[len(values) // 2])
        self.assertEqual(0.01, planner.upper_quartile([0.01]))
        self.assertIsNone(planner.upper_quartile([]))


class MarginMessageTestCase(unittest.TestCase):

    def test_a_margin_chosen_from_round_1s_pairs(self):
        self.assertEqual(
            "margin of cpu: +-2.5 % (from round 1: pair SD 1.94 %, the upper "
            "quartile of 9 cells, a pair that dipped beyond the cell's "
            "noise left out, for the 18 waves a cell may get)",
            planner.margin_message("cpu", 0.025, 0.0194, 9, 18))

    def test_no_pairs_says_the_margin_was_kept_and_why(self):
        said = planner.margin_message("memory", 0.02, None, 0, 18)
        self.assertEqual(
            "margin of memory: +-2 % kept, not chosen: round 1 paired no "
            "memory test with a native twin (a margin follows the pairs' "
            "spread), so the default stays", said)


class ProgressTestCase(unittest.TestCase):

    def test_a_file_gets_a_line_when_the_run_moves_on(self):
        out = io.StringIO()
        progress = rally_runs.Progress(600, out)
        progress.state.update(looks=6, cells=10, decided=0)
        progress.update(round=1, planned=12, done=0, where="docker at 1")
        progress.update(round=1)  # nothing new: no line
        progress.update(done=3)
        progress.say("round 1: done")
        lines = out.getvalue().splitlines()
        self.assertEqual(3, len(lines), lines)
        self.assertIn("round 1 of at most 6 | docker at 1 | iterations 0 "
                      "of 12 | cells decided 0 of 10 | budget left", lines[0])
        self.assertIn("iterations 3 of 12", lines[1])

    def test_a_benchmarks_task_has_no_round_and_no_cells_to_show(self):
        out = io.StringIO()
        rally_runs.Progress(600, out).update(planned=128, done=4,
                                             where="docker at 1")
        self.assertTrue(out.getvalue().startswith(
            "docker at 1 | iterations 4 of 128 | budget left"),
            out.getvalue())


class HostBusyProgressTestCase(unittest.TestCase):

    def test_shown_while_a_run_waits_for_quiet_and_gone_after(self):
        waiting = ("2026-11-26 13:20:01.000 1 INFO rally_container_bench."
                   "task.scenarios.measured_runs [-] host busy: waiting for "
                   "quiet on aio-lxc-2 before measuring cpu again (0.86 "
                   "cores of foreign load, limit 0.6; at most 30 s)\n")
        done = ("2026-11-26 13:20:12.000 1 INFO rally_container_bench."
                "task.scenarios.measured_runs [-] host busy: waited 11 s "
                "on aio-lxc-2, quiet now: measuring cpu again\n")
        self.assertEqual("aio-lxc-2", rally_runs._busy(waiting, None))
        self.assertEqual("aio-lxc-2", rally_runs._busy("other\n",
                                                       "aio-lxc-2"))
        self.assertIsNone(rally_runs._busy(waiting + done, None))
        self.assertIsNone(rally_runs._busy(
            "x | ITER: 4 END\n", "aio-lxc-2"))
        out = io.StringIO()
        progress = rally_runs.Progress(600, out)
        progress.update(round=1, looks=3, where="nova-lxc at 2",
                        busy="aio-lxc-2")
        progress.update(busy=None)
        first, second = out.getvalue().splitlines()
        self.assertIn("round 1 of at most 3 | nova-lxc at 2 | iterations 0 "
                      "of 0 | host busy: waiting (aio-lxc-2) | budget left",
                      first)
        self.assertNotIn("host busy", second)


class BudgetStopTestCase(unittest.TestCase):

    # A stand-in for the Rally CLI: records its arguments and, like Rally
    # while it validates the task, refuses the first abort.
    RALLY = ("import os, sys\n"
             "first = not os.path.exists(sys.argv[1])\n"
             "open(sys.argv[1], 'a').write(' '.join(sys.argv[2:]) + '\\n')\n"
             "sys.exit(1 if first else 0)\n")

    def test_a_round_past_the_budget_is_aborted_softly_once(self):
        # the real abort: tests/functional/test_local_faults.py
        with tempfile.TemporaryDirectory() as tmp:
            calls, log = os.path.join(tmp, "calls"), os.path.join(tmp, "log")
            rally = [sys.executable, "-c", self.RALLY, calls]
            out = io.StringIO()
            left = rally_runs.BudgetStop(rally, rally_runs.Progress(600, out),
                                         log)
            left.check("u-1")
            self.assertFalse(os.path.exists(calls))
            spent = rally_runs.BudgetStop(rally, rally_runs.Progress(0, out),
                                          log)
            spent.check(None)  # the task has not started: nothing to stop
            self.assertFalse(os.path.exists(calls))
            spent.check("u-1")  # refused
            spent.check("u-1")  # too soon to try again
            spent.RETRY_S = 0
            spent.check("u-1")  # taken
            spent.check("u-1")
            with open(calls) as f:
                self.assertEqual(["task abort --uuid u-1 --soft"] * 2,
                                 f.read().splitlines())
            self.assertEqual(1, out.getvalue().count(
                "budget of 0:00 spent: the round ends after the workload it "
                "runs"))

    def test_a_round_ends_before_a_workload_that_would_end_past_it(self):
        now = [0.0]
        plan = [["docker", 1, ["quick-cpu"], 6, 1],
                ["lxc", 2, ["quick-cpu"], 12, 1],
                ["kvm", 1, ["quick-cpu"], 1, 1]]
        pace = rally_runs.Pace(plan, clock=lambda: now[0])
        self.assertIsNone(pace.next_ends_in())  # nothing ended yet
        now[0] = 60.0
        pace.at(1)  # docker's 6 waves took 60 s: 10 s each
        self.assertEqual(60.0, pace.expected_s(plan[1]))  # lxc: its median
        now[0] = 70.0
        following, seconds = pace.next_ends_in()
        self.assertEqual("kvm", following[0])
        self.assertEqual(60.0 - 10.0 + 10.0, seconds)
        now[0] = 100.0
        pace.at(3)  # two ended within one poll: neither is timed
        self.assertEqual({"docker": [10.0]}, pace.per_wave)
        self.assertIsNone(pace.next_ends_in())  # no workload after it
        with tempfile.TemporaryDirectory() as tmp:
            log = os.path.join(tmp, "log")
            rally = [sys.executable, "-c", "import sys; sys.exit(0)"]
            out = io.StringIO()
            pace = rally_runs.Pace(plan, clock=lambda: now[0])
            now[0] = 160.0
            pace.at(1)
            roomy = rally_runs.BudgetStop(rally, rally_runs.Progress(600,
                                                                     out), log)
            roomy.check("u-1", pace)
            self.assertFalse(roomy.sent)
            # lxc runs: 6 waves at docker's 10 s, then kvm's one: 70 s
            short = rally_runs.BudgetStop(rally, rally_runs.Progress(50,
                                                                     out), log)
            short.check("u-1", pace)
            self.assertTrue(short.sent)
            self.assertIn("kvm at 1 would end in 1:10 at this round's pace",
                          out.getvalue())


class SettingsTestCase(unittest.TestCase):

    def test_margins_by_kind(self):
        self.assertEqual({"default": 0.02, "disk": 0.1},
                         decide_settings.margins_of(0.02, ["disk=0.1"]))
        self.assertEqual({"default": 0.02, "memory": "auto"},
                         decide_settings.margins_of(0.02, ["memory=auto"]))
        with self.assertRaises(ValueError):
            decide_settings.margins_of(0.02, ["fileio=0.1"])
        with self.assertRaises(ValueError):  # rcbench compare
            decide_settings.margins_of(0.02, ["memory=auto"], auto=False)


class NextRoundTestCase(unittest.TestCase):

    def test_the_cells_left_at_their_last_cost_plus_the_overhead(self):
        def workload(driver, step, took, tests=2):
            args = {"tests": ["quick-cpu", "quick-memory-read"][:tests]}
            if driver:
                args["driver"] = driver
            return {"scenario": {"X": args}, "full_duration": took,
                    "runner": {"constant": {"concurrency": step}}}
        document = {"tasks": [{"uuid": "old", "subtasks": []}, {
            "uuid": "r1", "subtasks": [{"workloads": [
                workload(None, 1, 10.0), workload("kvm", 1, 100.0),
                workload("docker", 1, 20.0), workload("docker", 2, 30.0)]}]}]}
        left = {("kvm", 1): [], ("docker", 1): ["quick-cpu"],
                ("docker", 2): ["quick-cpu", "quick-memory-read"]}
        # docker at 1: half its tests left; at 2: all; 40 s outside
        self.assertEqual(10.0 + 30.0 + 40.0,
                         decide_budget.next_round_s(document, "r1", left,
                                                    200.0))
        # a cloud's workload names its cell in rcbench_round
        cloud = workload(None, 2, 50.0)
        cloud["contexts"] = {"rcbench_round": {"round": 1, "rounds": 1,
                                               "cell": "nova-lxc"}}
        document["tasks"][1]["subtasks"][0]["workloads"].append(cloud)
        left[("nova-lxc", 2)] = ["quick-cpu"]
        # (its 50 s leave no time outside the workloads)
        self.assertEqual(10.0 + 30.0 + 25.0,
                         decide_budget.next_round_s(document, "r1", left,
                                                    200.0))


class CellCostsTestCase(unittest.TestCase):

    def workload(self, cell, step, took, verdicts=()):
        rows = [[v] for v in verdicts]
        return {"scenario": {"X": {"tests": ["quick-cpu"]}},
                "full_duration": took,
                "runner": {"constant": {"concurrency": step}},
                "contexts": {"rcbench_round": {"round": 1, "rounds": 1,
                                               "cell": cell}},
                "data": [{"output": {"complete": [{
                    "title": "validity", "chart_plugin": "Table",
                    "data": {"cols": ["verdicts"], "rows": rows}}]}}]}

    def test_runs_measured_again_beside_a_hog_are_not_planned_for(self):
        # a hog made half the runs of docker at 2 measured again: the next
        # round on a quiet host takes half as long
        document = {"tasks": [{"uuid": "r1", "subtasks": [{"workloads": [
            self.workload("docker", 2, 100.0,
                          ["re-measured", "used", "re-measured", "used"]),
            self.workload("lxc", 2, 40.0, ["used", "used"])]}]}]}
        left = {("docker", 2): ["quick-cpu"], ("lxc", 2): ["quick-cpu"]}
        costs, overhead, _ = decide_budget.cell_costs(document, "r1", left,
                                                      150.0)
        self.assertEqual({("docker", 2): 50.0, ("lxc", 2): 40.0}, costs)
        self.assertEqual(10.0, overhead)

    def test_waits_for_quiet_are_not_planned_for(self):
        # the quickstart beside a hog (2026-11-30): the TCG VM took 125 s
        # of round 1, 42 s of them waiting for quiet; at 2 the two
        # iterations of a wave wait side by side
        def waiting(workload, *seconds):
            for iteration, waited in zip(workload["data"], seconds):
                iteration["output"]["complete"].append({
                    "title": "quiet wait", "chart_plugin": "Table",
                    "data": {"cols": ["test", "host", "waited_s"],
                             "rows": [["cpu", "vm", waited]]}})
            return workload

        vm = waiting(self.workload("kvm", 1, 125.0), 42.0)
        pair = self.workload("docker", 2, 40.0)
        pair["data"].append(copy.deepcopy(pair["data"][0]))
        waiting(pair, 30.0, 30.0)
        self.assertEqual(42.0, decide_budget.waited_s(vm))
        self.assertEqual(30.0, decide_budget.waited_s(pair))
        document = {"tasks": [{"uuid": "r1", "subtasks": [{"workloads": [
            vm, pair]}]}]}
        costs, _, _ = decide_budget.cell_costs(
            document, "r1", {("kvm", 1): ["quick-cpu"],
                             ("docker", 2): ["quick-cpu"]}, 170.0)
        self.assertEqual({("kvm", 1): 83.0, ("docker", 2): 10.0}, costs)

    def test_the_instances_phases_are_paid_whole_for_any_tests_left(self):
        # quickstart at 1 pair (2026-11-28): the VM's boot is 60 s of its
        # 70 s iteration; with one of its two tests left, its next round
        # still boots it (before: planned at 35 s, the round took 73 s)
        vm = self.workload("kvm", 1, 70.0)
        vm["scenario"]["X"]["tests"] = ["quick-cpu", "quick-memory-read"]
        vm["data"][0].update(duration=70.0, atomic_actions=[
            {"name": "build", "started_at": 0.0, "finished_at": 1.0},
            {"name": "network", "started_at": 1.0, "finished_at": 58.0},
            {"name": "sysbench.cpu", "started_at": 58.0,
             "finished_at": 66.0},
            {"name": "delete", "started_at": 66.0, "finished_at": 68.0}])
        document = {"tasks": [{"uuid": "r1", "subtasks": [{"workloads": [
            vm]}]}]}
        self.assertAlmostEqual(60.0 / 70.0, decide_budget.phases_share(vm))
        costs, _, _ = decide_budget.cell_costs(
            document, "r1", {("kvm", 1): ["quick-memory-read"]}, 100.0)
        self.assertAlmostEqual(60.0 + 5.0, costs[("kvm", 1)])
        self.assertEqual({}, decide_budget.fit_cells(
            {("kvm", 1): ["quick-memory-read"]}, costs, 0.0, 34.0))

    def test_a_vm_s_first_look_is_planned_at_the_round_s_repeats(self):
        # round 1 repeated the VM's tests 3 times (FIRST_LOOK_REPEATS);
        # round 2 repeats them 6: its tests' 40 s become 80 s, its boot
        # (20 s of 60) is paid once
        vm = self.workload("kvm", 1, 60.0)
        vm["scenario"]["X"]["repeat"] = 3
        vm["data"][0].update(duration=60.0, atomic_actions=[
            {"name": "network", "started_at": 0.0, "finished_at": 20.0}])
        document = {"tasks": [{"uuid": "r1", "subtasks": [{"workloads": [
            vm]}]}]}
        left = {("kvm", 1): ["quick-cpu"]}
        costs, _, _ = decide_budget.cell_costs(document, "r1", left, 60.0,
                                               6)
        self.assertAlmostEqual(20.0 + 80.0, costs[("kvm", 1)])
        # a container's (repeat 1), or without the pairs: as it took
        costs, _, _ = decide_budget.cell_costs(document, "r1", left, 60.0)
        self.assertAlmostEqual(60.0, costs[("kvm", 1)])

    def test_a_cell_the_last_round_left_out_costs_what_it_took_before(self):
        # quickstart at 1 pair (2026-11-28): the VM left out of round 2
        # cost nothing, and was planned into round 3's last 25 s (62 s)
        document = {"tasks": [
            {"uuid": "r1", "subtasks": [{"workloads": [
                self.workload("kvm", 1, 50.0),
                self.workload("lxc", 1, 4.0)]}]},
            {"uuid": "r2", "subtasks": [{"workloads": [
                self.workload("lxc", 1, 5.0)]}]}]}
        left = {("kvm", 1): ["quick-cpu"], ("lxc", 1): ["quick-cpu"]}
        costs, overhead, _ = decide_budget.cell_costs(document, "r2", left,
                                                      20.0)
        self.assertEqual({("kvm", 1): 50.0, ("lxc", 1): 5.0}, costs)
        self.assertEqual(15.0, overhead)
        self.assertEqual({("lxc", 1): ["quick-cpu"]},
                         decide_budget.fit_cells(left, costs, overhead, 25.0))

    def test_a_forms_upload_and_warm_up_are_paid_by_its_first_cell(self):
        # the test cloud's round 1: nova-lxc at 2 came first of its form
        # (the image's upload and the hosts' warm-up, 33.4 s), at 1 not;
        # round 2 runs nova-lxc at 1 first, which pays them then
        def workload(scenario, kind, cell, step, took, once=()):
            found = self.workload(cell, step, took)
            found["scenario"] = {scenario: {"tests": ["quick-cpu"],
                                            "hypervisor_type": kind}}
            found["contexts_results"] = [
                {"plugin_name": "%s@openstack" % name,
                 "setup": {"started_at": 100.0,
                           "finished_at": 100.0 + seconds}}
                for name, seconds in once] + [
                {"plugin_name": "users@openstack",
                 "setup": {"started_at": 0.0, "finished_at": 5.0}}]
            return found
        nova = "NovaInstances.boot_sysbench_delete"
        document = {"tasks": [{"uuid": "r1", "subtasks": [{"workloads": [
            workload(nova, "lxc", "nova-lxc", 2, 109.0,
                     [("rcbench_guest", 7.4), ("rcbench_nova_warmup", 26.0)]),
            workload(nova, "lxc", "nova-lxc", 1, 120.0),
            workload(nova, "qemu", "kvm", 1, 230.0,
                     [("rcbench_guest", 12.2), ("rcbench_nova_warmup", 29.3)]),
        ]}]}]}
        left = {("nova-lxc", 1): ["quick-cpu"], ("nova-lxc", 2): ["quick-cpu"]}
        costs, overhead, forms = decide_budget.cell_costs(
            document, "r1", left, 480.0)
        self.assertAlmostEqual(109.0 - 33.4, costs[("nova-lxc", 2)])
        self.assertEqual(120.0, costs[("nova-lxc", 1)])
        self.assertEqual((("NovaInstances", "lxc"), 33.4),
                         (forms[("nova-lxc", 1)][0],
                          round(forms[("nova-lxc", 1)][1], 1)))
        # both cells: the form once; the qemu form's not at all
        self.assertAlmostEqual(75.6 + 120.0 + 21.0 + 33.4,
                               decide_budget.next_round_s(document, "r1",
                                                          left, 480.0))
        # nova-lxc at 1 alone: 120 s + 21 s fit in 190 s with 15 % to
        # spare, but not with the 33.4 s its form's first workload adds
        only = {("nova-lxc", 1): ["quick-cpu"]}
        self.assertEqual({}, decide_budget.fit_cells(
            only, costs, overhead, 190.0, forms))
        self.assertEqual(only, decide_budget.fit_cells(
            only, costs, overhead, 190.0))
        self.assertEqual(only, decide_budget.fit_cells(
            only, costs, overhead, 210.0, forms))

    def test_a_round_that_does_not_fit_runs_the_cells_that_do(self):
        left = {("a", 1): ["quick-cpu"], ("b", 1): ["quick-cpu"],
                ("c", 1): [], ("d", 1): ["quick-cpu"]}
        costs = {("a", 1): 50.0, ("b", 1): 20.0, ("d", 1): 30.0}
        self.assertEqual({("a", 1): ["quick-cpu"], ("b", 1): ["quick-cpu"],
                          ("d", 1): ["quick-cpu"]},
                         decide_budget.fit_cells(left, costs, 10.0, 200.0))
        self.assertEqual({("b", 1): ["quick-cpu"], ("d", 1): ["quick-cpu"]},
                         decide_budget.fit_cells(left, costs, 10.0, 70.0))
        self.assertEqual({}, decide_budget.fit_cells(left, costs, 10.0, 25.0))
        # a workload with two tests left settles two of the report's cells
        left[("a", 1)] = ["quick-cpu", "quick-memory-read"]
        self.assertEqual({("a", 1): left[("a", 1)], ("b", 1): ["quick-cpu"]},
                         decide_budget.fit_cells(left, costs, 10.0, 92.0))
        # a cell with no answer at all goes first: the quickstart's VM,
        # every run of it beside a hog (2026-11-30), was left for cheaper
        # cells' third look until no round had room for it
        self.assertEqual({("d", 1): ["quick-cpu"]},
                         decide_budget.fit_cells(left, costs, 10.0, 50.0,
                                                 first={("d", 1)}))

    def test_a_round_that_would_just_fit_is_not_planned_whole(self):
        # the estimates end at 100 s of 105 s left: rounds run longer
        # than their estimate, so the dearest cell waits
        left = {("a", 1): ["quick-cpu"], ("b", 1): ["quick-cpu"]}
        costs = {("a", 1): 60.0, ("b", 1): 30.0}
        self.assertEqual({("b", 1): ["quick-cpu"]},
                         decide_budget.fit_cells(left, costs, 10.0, 105.0))


class RefuseUnpairedTestCase(unittest.TestCase):
    """A cloud run without compute_hosts stops before anything boots."""

    CLOUD = {"platforms": {"openstack": {}}, "extras": {}}

    def test_a_cloud_without_compute_hosts_is_refused_naming_its_hosts(self):
        with self.assertRaises(planner.DecideError) as caught:
            planner.refuse_unpaired(self.CLOUD, {}, lambda: {
                "nova": ["compute-kvm-1", "compute-lxc-1"],
                "zun": "not listed (403 admin only)"})
        said = str(caught.exception)
        self.assertIn("pairs every test with a native twin on the "
                      "instance's own compute host", said)
        self.assertIn("nova: compute-kvm-1, compute-lxc-1; zun: not listed "
                      "(403 admin only)", said)
        self.assertIn("--compute-hosts FILE", said)
        self.assertIn("Native twins on the compute hosts", said)

    def test_with_compute_hosts_or_locally_it_runs(self):
        def never():
            raise AssertionError("no host listed where none is needed")
        # {}: every default (address {host}, user root, ...)
        planner.refuse_unpaired(self.CLOUD, {"compute_hosts": {}},
                                never)
        planner.refuse_unpaired(self.CLOUD, {"compute_hosts": {"user": "r"}},
                                never)
        planner.refuse_unpaired({"platforms": {}}, {}, never)
        planner.refuse_unpaired(None, {}, never)
