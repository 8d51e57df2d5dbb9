"""Verdicts from pairs: drift cancels, disturbed runs stay out, shown.

The documents are built here in the shape the scenarios write (a
"metric records" table per iteration, a "validity" table per run): the
recorded real runs are in tests/functional/test_decide.py.
"""

import json
import unittest

import numpy as np

from rally_container_bench.report import comparison
from rally_container_bench.report import diff
from rally_container_bench.report import equivalence
from rally_container_bench.report import gate
from rally_container_bench.report import margins as margins_lib
from rally_container_bench.report import render
from rally_container_bench.report import sequential
from rally_container_bench.task import output_tables as tables
from rally_container_bench.workloads import metrics

METRIC = "sysbench.cpu.events_per_s"


def _records(value, twin, attempt=1, final=True, disturbed=False,
             wave=None):
    facts = dict(tool="sysbench", test="cpu", attempt=attempt, final=final,
                 disturbed=disturbed, order="instance first")
    if wave is not None:
        facts["wave"] = wave
    found = [metrics.Record(METRIC, value, "events/s", True,
                            dict(facts, paired=True))]
    if twin is not None:
        found.append(metrics.Record(METRIC, twin, "events/s", True,
                                    dict(facts, twin="native")))
    return found


def _check(attempt, run, foreign, disturbed, verdicts, **more):
    row = dict.fromkeys(tables.VALIDITY_COLUMNS, "")
    row.update(test="sysbench.cpu", run=run, attempt=attempt,
               foreign_cores=foreign, disturbed="yes" if disturbed else "no",
               verdicts=verdicts, **more)
    return [row[c] for c in tables.VALIDITY_COLUMNS]


def _below(attempt, run, verdicts):
    row = _check(attempt, run, 0.0, False, verdicts)
    row[tables.VALIDITY_COLUMNS.index("disturbed")] = tables.BELOW_LEVEL
    return row


def _iteration(records, checks, at):
    return {"timestamp": at, "duration": 10.0, "error": [],
            "atomic_actions": [],
            "output": {"additive": [], "complete": [
                {"title": "environment", "chart_plugin": "Table",
                 "data": {"cols": ["key", "value"],
                          "rows": [["driver", "docker"],
                                   ["runtime", "runc"]]}},
                metrics.records_table(records),
                {"title": "validity", "chart_plugin": "Table",
                 "data": {"cols": list(tables.VALIDITY_COLUMNS),
                          "rows": checks}}]}}


def _document(iterations, looks=None):
    round_of = {"round": 1, "rounds": looks or 1}
    if looks:
        round_of["looks"] = looks
    return {"tasks": [{"uuid": "t", "subtasks": [{"workloads": [{
        "scenario": {"LocalInstances.boot_sysbench_delete": {
            "driver": "docker"}},
        "runner": {"constant": {"times": len(iterations),
                                "concurrency": 1}},
        "contexts": {"rcbench_round": round_of},
        "data": iterations}]}]}]}


def _drifting(n=12, effect=0.995, seed=3):
    """Pairs on a host whose speed drifts by +-15 % between pairs."""
    rng = np.random.default_rng(seed)
    drift = 1 + 0.15 * np.sin(np.arange(n))
    twins = 1000 * drift * rng.normal(1, 0.003, n)
    values = twins * effect * rng.normal(1, 0.003, n)
    return values, twins


def _unpaired_workload(driver, values, waves):
    """A workload at 2 at once whose tests ran without twins."""
    facts = dict(tool="sysbench", test="cpu", attempt=1, final=True,
                 disturbed=False, order="instance first")
    iterations = []
    for i, (value, wave) in enumerate(zip(values, waves)):
        iteration = _iteration([metrics.Record(
            METRIC, value, "events/s", True, dict(facts, wave=wave + 1))],
            [_check(1, "instance", 0.01, False, "used")], 1000 + 20 * i)
        iteration["output"]["complete"][0]["data"]["rows"] = [
            ["driver", driver]]
        iterations.append(iteration)
    scenario = {"LocalInstances.boot_sysbench_delete": {"driver": driver}}
    runner = {"constant": {"times": len(iterations), "concurrency": 2}}
    return {"scenario": scenario, "runner": runner, "data": iterations}


class PairedVerdictTestCase(unittest.TestCase):

    def test_drift_cancels_in_the_pairs_not_in_the_groups(self):
        values, twins = _drifting()
        paired = equivalence.paired_effect(values, twins, True)
        unpaired = equivalence.effect(values, twins, True)
        self.assertEqual("equivalent", paired.verdict)
        self.assertEqual("inconclusive", unpaired.verdict)
        self.assertLess(paired.ci_high - paired.ci_low, 0.01)

    def test_the_pairs_of_one_wave_count_once(self):
        # 6 waves of 2: each wave's moment moved both of its pairs alike
        rng = np.random.default_rng(5)
        moment = np.repeat(rng.normal(0, 0.015, 6), 2)
        twins = 1000 * rng.normal(1, 0.002, 12)
        values = twins * np.exp(moment + rng.normal(0, 0.002, 12))
        waves = np.repeat(np.arange(6), 2).tolist()
        naive = equivalence.paired_effect(values, twins, True, 0.03)
        counted = equivalence.paired_effect(values, twins, True, 0.03,
                                            moments=waves)
        self.assertGreater(counted.ci_high - counted.ci_low,
                           1.4 * (naive.ci_high - naive.ci_low))
        self.assertAlmostEqual(naive.ratio, counted.ratio, delta=1e-9)
        # the report reads the waves the scenario records
        document = _document([_iteration(
            _records(v, t, wave=w + 1),
            [_check(1, "instance", 0.01, False, "used")], 1000 + 20 * w)
            for v, t, w in zip(values, twins, waves)])
        document["tasks"][0]["subtasks"][0]["workloads"][0]["runner"] = {
            "constant": {"times": 12, "concurrency": 2}}
        report = comparison.build([document], margins={"cpu": 0.03})
        (row,) = comparison.rows_for(report, METRIC, "docker-runc")
        self.assertEqual((12, 6), (row["pairs"], row["moments"]))
        self.assertAlmostEqual(counted.ci_low - 1, row["change_ci_low"])
        # two waves only: below the n of a verdict, whatever the pairs
        few = equivalence.paired_effect(values[:4], twins[:4], True,
                                        moments=waves[:4])
        self.assertIsNone(few.verdict)
        self.assertIn("waves", few.note)

    def test_the_gate_counts_a_wave_once(self):
        # 3 waves of 2: the candidate 12 % slower, its two instances of a
        # wave alike; as 6 draws a side the shift looks proven, as the 3
        # moments it is no exact permutation test can prove (p >= 0.1)
        def document(level):
            waves = [1000.0, 990.0, 1010.0]
            return _document([_iteration(
                _records(level * waves[i // 2], 1000.0, wave=i // 2 + 1),
                [_check(1, "instance", 0.01, False, "used")], 1000 + i)
                for i in range(6)])
        changes, _, _ = diff.compare([document(1.0)], [document(0.88)])
        (found,) = [c for c in changes if c.metric == METRIC
                    and c.platform == "docker-runc"]
        self.assertEqual((3, 3), (found.n_baseline, found.n_candidate))
        self.assertGreaterEqual(found.p_value, 0.1)
        self.assertEqual("no change", found.verdict)
        self.assertLess(diff.permutation_p([0.88 * v for v in (
            1000.0, 1000.0, 990.0, 990.0, 1010.0, 1010.0)], [
            1000.0, 1000.0, 990.0, 990.0, 1010.0, 1010.0]), 0.01)

    def _paired_run(self, host, cost, seed):
        """6 pairs on a host at level host, the platform at cost of twin."""
        rng = np.random.default_rng(seed)
        twins = host * rng.normal(1, 0.004, 6)
        values = twins * cost * rng.normal(1, 0.004, 6)
        return _document([_iteration(
            _records(v, t), [_check(1, "instance", 0.01, False, "used")],
            1000 + 20 * i) for i, (v, t) in enumerate(zip(values, twins))])

    def test_the_gate_judges_a_paired_platform_against_its_twins(self):
        thresholds = gate.Thresholds(0.05)
        baseline = self._paired_run(1000.0, 0.99, 1)
        # the host 8 % slower in the candidate's hour, the platform not
        drifted = self._paired_run(920.0, 0.99, 2)
        findings, _, _ = gate.compare([baseline], [drifted], thresholds)
        by = {f.platform: f for f in findings if f.metric == METRIC}
        self.assertEqual("no change", by["docker-runc"].verdict)
        self.assertEqual("x native", by["docker-runc"].unit)
        self.assertAlmostEqual(0.99, by["docker-runc"].candidate_mean,
                               delta=0.01)
        self.assertIn("against its twins",
                      gate.format_findings(findings, {}, {}, True))
        # the host's own level is native's row, by level
        self.assertTrue(by["native"].regressed)
        self.assertAlmostEqual(0.08, by["native"].change, delta=0.01)
        # by its levels alone the platform would have failed the gate too
        self.assertEqual("worse", diff.change(
            [r * 0.99 for r in (920.0,) * 3 + (921.0, 919.0, 920.5)],
            [r * 0.99 for r in (1000.0,) * 3 + (1001.0, 999.0, 1000.5)],
            True)[4])
        # a platform that got slower against its twins fails it
        slower = self._paired_run(1000.0, 0.90, 3)
        findings, _, _ = gate.compare([baseline], [slower], thresholds)
        (found,) = [f for f in findings if f.metric == METRIC
                    and f.platform == "docker-runc"]
        self.assertTrue(found.regressed)
        self.assertAlmostEqual(0.09, found.change, delta=0.01)
        self.assertIn("REGRESSION (against its twins)",
                      gate.format_findings(findings, {}, {}))

    def test_the_values_of_one_unpaired_wave_count_once(self):
        # no twins (a cloud task without compute_hosts): Welch's test of
        # the platform's values against native's, 6 waves of 2 a side,
        # each wave's moment moving its two values alike
        rng = np.random.default_rng(7)

        def measured(level):
            moment = np.repeat(rng.normal(0, 0.015, 6), 2)
            return level * np.exp(moment + rng.normal(0, 0.002, 12))

        values, native = measured(990.0), measured(1000.0)
        waves = np.repeat(np.arange(6), 2).tolist()
        naive = equivalence.effect(values, native, True, 0.012)
        counted = equivalence.effect(values, native, True, 0.012,
                                     moments=waves, reference_moments=waves)
        self.assertGreater(counted.ci_high - counted.ci_low,
                           1.3 * (naive.ci_high - naive.ci_low))
        # 12 draws a side would claim +-1.2 %; 6 moments a side cannot,
        # and say what it would take in values (2 a wave), not in waves
        self.assertEqual(("equivalent", "inconclusive"),
                         (naive.verdict, counted.verdict))
        self.assertEqual(0, counted.needed % 2)
        # the report reads the waves the scenario records, on both sides
        document = {"tasks": [{"uuid": "t", "subtasks": [{"workloads": [
            _unpaired_workload("docker", values, waves),
            _unpaired_workload("native", native, waves)]}]}]}
        report = comparison.build([document], margins={"cpu": 0.012})
        (row,) = comparison.rows_for(report, METRIC, "docker")
        self.assertEqual((12, None, 6), (row["n"], row["pairs"],
                                         row["moments"]))
        self.assertAlmostEqual(counted.ci_low - 1, row["change_ci_low"])
        self.assertEqual(counted.verdict, row["verdict"])
        # two waves a side: below the n of a verdict, whatever the values
        few = equivalence.effect(values[:4], native[:4], True,
                                 moments=waves[:4],
                                 reference_moments=waves[:4])
        self.assertIsNone(few.verdict)
        self.assertIn("waves", few.note)

    def test_report_uses_the_pairs_and_keeps_native_level(self):
        values, twins = _drifting()
        document = _document([_iteration(
            _records(v, t), [_check(1, "instance", 0.01, False, "used")],
            1000 + 20 * i) for i, (v, t) in enumerate(zip(values, twins))])
        report = comparison.build([document])
        (row,) = comparison.rows_for(report, METRIC, "docker-runc")
        self.assertEqual(("equivalent", 12), (row["verdict"], row["pairs"]))
        self.assertAlmostEqual(-0.005, row["change"], delta=0.003)
        (native,) = comparison.rows_for(report, METRIC, "native")
        self.assertAlmostEqual(np.mean(twins), native["mean"])
        self.assertIsNotNone(row["pair_sd"])
        # and the spread margins are chosen from, of the same pairs
        self.assertEqual(sequential.robust_pair_sd(values, twins),
                         row["pair_sd_robust"])
        self.assertEqual("cpu", report["noise"][0]["kind"])

    # README command 1, 2026-12-07 02:25: lxc cpu at 2, each wave's mean
    # change against its twins (%); wave 6 ran both instances at -22 %
    DIPPED = [0.0, 1.16, -1.48, -0.57, 0.69, -22.39, -0.4, 0.58, -2.43,
              1.86, 2.06, -0.85]

    def test_one_dip_of_the_host_is_left_out_of_the_verdict_and_said(self):
        values = [1000 * (1 + c / 100) for c in self.DIPPED]
        twins = [1000.0] * len(values)
        found = equivalence.paired_effect(values, twins, True, 0.02)
        self.assertEqual("equivalent", found.verdict)
        self.assertAlmostEqual(-0.2239, found.dip, places=4)
        self.assertLess(found.ci_high - found.ci_low, 0.03)
        # every pair counted, the dip alone kept it from any verdict
        kept = np.delete(np.log(np.divide(values, twins)), 5)
        self.assertLess(abs(float(np.mean(kept)) - np.log(found.ratio)),
                        1e-9)
        document = _document([_iteration(
            _records(v, t), [_check(1, "instance", 0.01, False, "used")],
            1000 + 20 * i) for i, (v, t) in enumerate(zip(values, twins))])
        report = comparison.build([document], margins={"cpu": 0.02})
        (row,) = comparison.rows_for(report, METRIC, "docker-runc")
        self.assertEqual(("equivalent", 12), (row["verdict"], row["pairs"]))
        self.assertAlmostEqual(-0.2239, row["dip_left_out"], places=4)
        self.assertIn("1 wave left out of the verdict as a dip of the host "
                      "(-22.4 %", row["note"])
        # and the pair SD is still every pair's: the host's noise shown
        self.assertGreater(row["pair_sd"], 0.06)

    def test_a_spread_heavy_but_even_keeps_every_pair_in_its_verdict(self):
        # podman-runc cpu at 2 of the same run: +3.6 % among -0.1..+2.7 %
        values = [1000 * (1 + c / 100)
                  for c in (0.89, 2.68, 3.59, 0.23, 0.73, 0.17, -0.13)]
        found = equivalence.paired_effect(values, [1000.0] * 7, True, 0.02)
        self.assertIsNone(found.dip)

    def test_a_run_that_did_no_work_leaves_its_pair_out_and_says_so(self):
        # a stalled O_DIRECT writer read 0.0 beside its twin's 22.5 MiB/s
        # (KEK's campaign, docker at 4): no log ratio, and it had taken
        # the cell's verdict with it
        values, twins = _drifting()
        values[3], twins[7] = 0.0, 0.0
        document = _document([_iteration(
            _records(v, t), [_check(1, "instance", 0.01, False, "used")],
            1000 + 20 * i) for i, (v, t) in enumerate(zip(values, twins))])
        (row,) = comparison.rows_for(comparison.build([document]), METRIC,
                                     "docker-runc")
        self.assertEqual(("equivalent", 10), (row["verdict"], row["pairs"]))
        self.assertIn("1 pair(s) left out: this platform's run read 0 (did "
                      "no work) beside a twin that did", row["note"])
        self.assertIn("1 pair(s) left out: the native twin read 0",
                      row["note"])
        # both runs at 0 (a metric the test never moves): no ratio, as before
        values, twins = _drifting()
        values[3] = twins[3] = 0.0
        document = _document([_iteration(
            _records(v, t), [_check(1, "instance", 0.01, False, "used")],
            1000 + 20 * i) for i, (v, t) in enumerate(zip(values, twins))])
        (row,) = comparison.rows_for(comparison.build([document]), METRIC,
                                     "docker-runc")
        self.assertIsNone(row["verdict"])
        self.assertNotIn("did no work", row["note"])

    def test_pairs_beside_load_alike_are_used_and_counted(self):
        values, twins = _drifting()
        iterations = []
        for i, (v, t) in enumerate(zip(values, twins)):
            alike = i < 3
            records = _records(v, t)
            for record in records:
                if alike:
                    record.metadata["beside_load_alike"] = True
            verdicts = tables.USED_ALIKE if alike else "used"
            iterations.append(_iteration(records, [
                _check(1, run, 1.0 if alike else 0.01, alike, verdicts)
                for run in ("instance", "native twin")], 1000 + 20 * i))
        report = comparison.build([_document(iterations)])
        (row,) = comparison.rows_for(report, METRIC, "docker-runc")
        self.assertEqual(12, row["pairs"])
        self.assertIn("3 pair(s) measured beside foreign load alike",
                      row["note"])
        self.assertEqual((6, 6, 0), tuple(report["disturbance"][key] for key
                                          in ("disturbed", "alike",
                                              "left_out")))
        self.assertIn("6 used as pairs beside foreign load alike",
                      " ".join(render.findings(report)))

    def test_disturbed_and_superseded_attempts_stay_out_and_are_shown(self):
        values, twins = _drifting()
        iterations = []
        for i, (v, t) in enumerate(zip(values, twins)):
            final = 2 if i < 4 else 1
            records = _records(v, t, attempt=final)
            checks = [_check(final, "instance", 0.02, False, "used")]
            if i < 3:  # a first attempt 40 % slower beside a hog
                records = _records(0.6 * v, t, attempt=1, final=False,
                                   disturbed=True) + records
                checks.insert(0, _check(1, "instance", 1.1, True,
                                        "re-measured"))
            if i == 3:  # still disturbed at the last attempt
                records = _records(0.6 * v, t, attempt=2, disturbed=True)
                checks = [_check(2, "instance", 0.9, True,
                                 "left out: disturbed")]
            iterations.append(_iteration(records, checks, 1000 + 20 * i))
        report = comparison.build([_document(iterations)])
        (row,) = comparison.rows_for(report, METRIC, "docker-runc")
        self.assertEqual(11, row["pairs"])
        self.assertEqual("equivalent", row["verdict"])
        self.assertEqual({"runs": 15, "disturbed": 4, "remeasured": 4,
                          "left_out": 1, "alike": 0, "for_harness": 0,
                          "below_level_runs": 0, "below_level_twins": 0,
                          "below_level_kept": 0,
                          "foreign_cores": 1.1}, report["disturbance"])
        (flag,) = report["steps"][0]["flags"]
        self.assertIn("4 of 15 test runs disturbed", flag)
        self.assertIn("1 left out of verdicts", flag)
        for text in (render.to_markdown(report), render.to_html(report),
                     render.to_csv(report), render.to_json(report)):
            self.assertIn("disturbed", text)

    def test_runs_below_their_level_are_counted_and_said(self):
        # a wave's twins at 57 % of their level with no foreign load
        # (README command 1, 2026-12-07): measured again, one kept; and
        # an instance below its platform's level, measured again
        values, twins = _drifting()
        iterations = []
        for i, (v, t) in enumerate(zip(values, twins)):
            checks = [_check(1, "instance", 0.0, False, "used"),
                      _check(1, "native twin", 0.0, False, "used")]
            if i in (2, 5):
                checks[1] = _below(1, "native twin", "re-measured")
                checks.append(_below(2, "native twin", "used") if i == 5
                              else _check(2, "native twin", 0.0, False,
                                          "used"))
            if i == 7:
                checks[0] = _below(1, "instance", "re-measured")
            iterations.append(_iteration(_records(v, t), checks,
                                         1000 + 20 * i))
        report = comparison.build([_document(iterations)])
        self.assertEqual((0, 4, 3, 1), tuple(
            report["disturbance"][key] for key in (
                "disturbed", "below_level_runs", "below_level_twins",
                "below_level_kept")))
        findings = " ".join(render.findings(report))
        self.assertIn("Dips: 4 run(s) (3 of them twins) read far below the "
                      "recent runs of their side", findings)
        self.assertIn("1 kept at the last attempt, flagged 'below its level'",
                      findings)
        self.assertIn("4 run(s) (3 of them twins) far below their side's "
                      "level, measured again; 1 kept, flagged",
                      " ".join(report["steps"][0]["notes"]))

    def test_runs_flagged_for_rallys_own_cpu_alone_are_said_so(self):
        # The test cloud's KEK campaign: 58 of 624 disturbed runs read
        # 0.00 foreign cores; Rally's unplaced CPU (0.27-0.30 cores)
        # was over their limit of 0.25 (2026-12-06)
        values, twins = _drifting()
        iterations = []
        for i, (v, t) in enumerate(zip(values, twins)):
            checks = [_check(1, "instance", 0.0, False, "used",
                             limit_cores=0.25)]
            if i < 2:
                checks.insert(0, _check(1, "native twin", 0.0, True,
                                        "re-measured", limit_cores=0.25,
                                        unplaced_cores=0.29))
            if i == 2:
                checks.insert(0, _check(1, "instance", 0.4, True,
                                        "re-measured", limit_cores=0.25))
            iterations.append(_iteration(_records(v, t), checks,
                                         1000 + 20 * i))
        report = comparison.build([_document(iterations)])
        self.assertEqual((3, 2), (report["disturbance"]["disturbed"],
                                  report["disturbance"]["for_harness"]))
        self.assertIn("2 of the disturbed for Rally's own CPU on the host "
                      "alone", " ".join(render.findings(report)))

    def test_a_cell_whose_every_run_was_left_out_keeps_its_row(self):
        # Before, such a cell vanished from the tables (the test cloud's
        # Zun at 2, every run disturbed): now it says why it is empty.
        values, twins = _drifting(n=4)
        iterations = [_iteration(
            _records(v, t, attempt=1, final=False, disturbed=True)
            + _records(v, t, attempt=2, disturbed=True),
            [_check(1, "instance", 0.7, True, "re-measured"),
             _check(2, "instance", 0.7, True, "left out: disturbed")],
            1000 + 20 * i) for i, (v, t) in enumerate(zip(values, twins))]
        # the same platform at 1 kept its runs
        document = _document(iterations[2:])
        (workload,) = document["tasks"][0]["subtasks"][0]["workloads"]
        kept = dict(workload, runner={"constant": {"times": 2,
                                                   "concurrency": 1}},
                    data=[_iteration(_records(v, t), [], 900 + 20 * i)
                          for i, (v, t) in enumerate(zip(values, twins))])
        document["tasks"][0]["subtasks"][0]["workloads"] = [
            kept, dict(workload, runner={"constant": {
                "times": 2, "concurrency": 2}})]
        report = comparison.build([document])
        (row,) = comparison.rows_for(report, METRIC, "docker-runc",
                                     concurrency=2)
        self.assertEqual((0, 2, None), (row["n"], row["left_out"],
                                        row["verdict"]))
        self.assertIn("– (2 disturbed run(s) left out, none kept)",
                      render.to_markdown(report))

    def test_a_sequential_run_spends_alpha_and_times_its_verdicts(self):
        values, twins = _drifting()
        iterations = [_iteration(_records(v, t), [], 1000 + 20 * i)
                      for i, (v, t) in enumerate(zip(values, twins))]
        single = comparison.build([_document(iterations)])
        looked = comparison.build([_document(iterations, looks=6)])
        (one,) = comparison.rows_for(single, METRIC, "docker-runc")
        (six,) = comparison.rows_for(looked, METRIC, "docker-runc")
        self.assertAlmostEqual(equivalence.ALPHA / 6, six["alpha"])
        self.assertGreater(six["change_ci_high"] - six["change_ci_low"],
                           one["change_ci_high"] - one["change_ci_low"])
        # from the first iteration's start to the cell's last end
        self.assertEqual(20 * 11 + 10.0, six["time_to_verdict_s"])
        self.assertIsNone(one["time_to_verdict_s"])
        self.assertIn("sequential", json.dumps(looked["methods"]))


class PairingModeTestCase(unittest.TestCase):
    """A cell's pairs at once: named in every report, with their margin."""

    def document(self, modes, skewed=()):
        values, twins = _drifting(n=len(modes), effect=0.995)
        iterations = []
        for i, (value, twin, mode) in enumerate(zip(values, twins, modes)):
            records = _records(value, twin)
            for record in records:
                if mode:
                    record.metadata["pairing"] = mode
                if i in skewed:
                    record.metadata["skewed"] = True
            iterations.append(_iteration(
                records, [_check(1, "instance", 0.0, False, "used")],
                1000 + 20 * i))
        return _document(iterations)

    def test_the_cell_says_at_once_and_takes_the_margin_at_once(self):
        report = comparison.build([self.document(["at once"] * 10)],
                                  margins={"cpu": 0.02, "cpu at once": 0.01})
        row = comparison.rows_for(report, METRIC, "docker-runc", 1)[0]
        self.assertEqual(("at once", 0.01), (row["pairing"], row["margin"]))
        self.assertIn("(at once)", render.ratio_cell(row))
        csv_text = render.to_csv(report)
        self.assertIn("pairing", csv_text.splitlines()[0])
        self.assertIn("at once", csv_text)

    def test_pairs_in_sequence_keep_the_kind_s_margin(self):
        report = comparison.build([self.document(["in sequence"] * 10)],
                                  margins={"cpu": 0.02, "cpu at once": 0.01})
        row = comparison.rows_for(report, METRIC, "docker-runc", 1)[0]
        self.assertEqual(("in sequence", 0.02),
                         (row["pairing"], row["margin"]))
        self.assertNotIn("(in sequence)", render.ratio_cell(row))

    def test_a_step_s_margin_holds_for_its_cells_alone(self):
        margins = {"cpu": 0.02, "cpu at 1": 0.01, "cpu at 2": 0.015}
        report = comparison.build([self.document(["in sequence"] * 10)],
                                  margins=margins)
        row = comparison.rows_for(report, METRIC, "docker-runc", 1)[0]
        self.assertEqual(0.01, row["margin"])
        self.assertEqual(0.015, margins_lib.margin_of(METRIC, margins,
                                                      "in sequence", 2))
        # a step without its own, and at once, take theirs
        self.assertEqual(0.02, margins_lib.margin_of(METRIC, margins,
                                                     "in sequence", 4))
        self.assertEqual(0.005, margins_lib.margin_of(
            METRIC, dict(margins, **{"cpu at once": 0.005}), "at once", 1))

    def test_a_key_names_its_kind_and_its_step(self):
        key = margins_lib.margin_key("cpu", "in sequence", 4)
        self.assertEqual(("cpu", 4), (margins_lib.kind_of_key(key),
                                      margins_lib.step_of_key(key)))
        self.assertIsNone(margins_lib.step_of_key(
            margins_lib.margin_key("cpu", "at once", 1)))
        self.assertIsNone(margins_lib.step_of_key("cpu"))

    def test_results_before_the_modes_read_in_sequence_and_mixed_say_so(self):
        old = comparison.build([self.document([None] * 6)])
        self.assertEqual("in sequence", old["rows"][0]["pairing"])
        mixed = comparison.build([self.document(
            ["at once"] * 4 + ["in sequence"] * 4)])
        row = comparison.rows_for(mixed, METRIC, "docker-runc", 1)[0]
        self.assertEqual("mixed: at once 4, in sequence 4", row["pairing"])

    def test_a_skewed_pair_is_left_out_and_counted(self):
        report = comparison.build([self.document(["at once"] * 8,
                                                 skewed=(2, 5))])
        row = comparison.rows_for(report, METRIC, "docker-runc", 1)[0]
        self.assertEqual(6, row["pairs"])
