"""The instrument's error rates, measured: A/A and known-effect runs.

    python -m benchmarks.instrument_check --runs 40 --out DIR
    python -m benchmarks.instrument_check --from DIR/rally.json

Runs the instrument check's cells alone (no instance boots): RUNS
independent A/A cells (native against its own twin, NativeHost.
against_twin) and RUNS known-effect cells (a busy neighbour at nice NICE
on the tests' CPU: 9.70 % of it at 10), interleaved in an order
shuffled with SEED, each with the
pairs a cell of the quickstart gets in its first round, in one Rally
task through rcbench decide's own round runner (Rally yielding the CPU
where the kernel has autogroup). Each cell is then judged alone, as the
first look of a decided run of LOOKS looks (alpha / LOOKS, the comparison
report's verdict at the margin given), and the figures are printed
beside what the theory promises (report.sequential.simulate at the
measured pair SD):

- the false-decision rate: A/A cells read "worse" or "better", against
  the look's alpha (with its 95 % upper bound, Clopper-Pearson);
- the A/A cells decided "equivalent";
- the detection rate of the known effect ("worse", its CI covering the
  injected amount, known within +-0.5 %: engines.native.known_effect),
  its CI's coverage, and the recovered effect's bias;
- the periodic gate: consecutive A/A runs compared as baseline and
  candidate (etc/periodic/thresholds.yaml): runs the gate would fail,
  the A/A judged against its twins (report.diff), and native's level
  apart (the host's own drift between the two runs, which no pair
  cancels: a gate's floor on it must be above that drift), and native's
  level again with its threshold raised to that drift, as the periodic
  job reads it from its earlier runs (report.drift).

--verdict-dip-p 0 judges the same runs with every pair counted (no dip
of the host left out of a verdict), for the rule's own cost.

Exit status 1 when the false-decision rate's lower bound is above alpha.
"""

import argparse
import collections
import copy
import json
import math
import os
import random
import statistics
import sys

from scipy import stats

from rally_container_bench.cli import decide as decide_cli
from rally_container_bench.decide import rally_reads
from rally_container_bench.decide import rally_runs
from rally_container_bench.engines.native import instance as native
from rally_container_bench.engines.native import known_effect
from rally_container_bench.report import comparison
from rally_container_bench.report import drift
from rally_container_bench.report import equivalence
from rally_container_bench.report import gate
from rally_container_bench.report import instrument
from rally_container_bench.report import sequential
from rally_container_bench.workloads import tests as tests_lib

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TASK = os.path.join(TOP, "tasks", "local_kvm_vs_containers.yaml")
THRESHOLDS = os.path.join(TOP, "etc", "periodic", "thresholds.yaml")
# the earlier runs the periodic job reads the drift from by default (its
# --trend of 10, this run left out)
DRIFT_WINDOW = 9
TESTS = ["quick-cpu", {"preset": "quick-memory-read",
                       "memory_total_size": "4G"}]


def plan_of(runs, pairs, step, tests, seed):
    """The task's plan: runs A/A and runs known-effect cells, shuffled."""
    plan = [[cell, step, tests, pairs * step, 1]
            for _ in range(runs) for cell in (native.AA, native.SLOWED)]
    random.Random(seed).shuffle(plan)
    return plan


def run_task(args, plan, task_args=None, tag="rcbench-instrument-check"):
    """Run the plan as one Rally task; its exported document.

    task_args: the task's args besides the plan (default: this
    benchmark's); tag: the task's Rally tag. benchmarks.pairs_at_once
    runs its plan through it too.
    """
    os.makedirs(args.out, exist_ok=True)
    rally = decide_cli.rally_argv(args.rally_config)
    task_args = dict(task_args or {
        "looks": args.looks, "known_effect_nice": args.nice},
        plan=plan, round_number=1, paired=True, seed=args.seed)
    progress = rally_runs.Progress(args.budget_s, sys.stdout)
    yields = rally_runs.LOCAL if rally_runs.autogroup_enabled() else False
    uuid, code, _ = rally_runs.run_round(
        rally, TASK, task_args, args.env,
        os.path.join(args.out, "rally-task.log"), progress, plan,
        [tag], None, yields)
    if uuid is None:
        raise SystemExit("the task did not start (rally exit %s): see %s"
                         % (code, os.path.join(args.out, "rally-task.log")))
    reads = rally_reads.RallyReads.of_argv(rally)
    return reads.report([uuid], os.path.join(args.out, "rally.json"))


def cells_of(document):
    """[(cell, document of that workload alone)], in the order they ran."""
    found = []
    for task in document["tasks"]:
        for subtask in task["subtasks"]:
            for workload in subtask["workloads"]:
                alone = copy.deepcopy(dict(task, subtasks=[dict(
                    subtask, workloads=[workload])]))
                found.append(({"tasks": [alone]}))
    return found


def judged(doc, margins):
    """{metric: row of the cell's platform} of one workload alone."""
    report = comparison.build([doc], margins=margins)
    headline = {m["name"] for m in report["metrics"] if m["headline"]}
    return {row["metric"]: row for row in report["rows"]
            if row["metric"] in headline
            and row["platform"] in instrument.PLATFORMS}


def upper_bound(hits, n, level=0.95):
    """Clopper-Pearson upper bound of a rate (one-sided at level)."""
    return 1.0 if hits == n else float(
        stats.beta.ppf(level, hits + 1, n - hits))


def lower_bound(hits, n, level=0.95):
    return 0.0 if hits == 0 else float(stats.beta.ppf(1 - level, hits,
                                                      n - hits + 1))


def figures(document, margins, withheld, looks, pairs):
    """{metric: the measured figures and the theory's}."""
    by_metric = collections.defaultdict(lambda: {"aa": [], "known": [],
                                                 "aa_docs": []})
    for doc in cells_of(document):
        for metric, row in judged(doc, margins).items():
            side = "aa" if row["platform"] == native.AA else "known"
            by_metric[metric][side].append(row)
            if side == "aa":
                by_metric[metric]["aa_docs"].append(doc)
    out = {}
    alpha = sequential.look_alpha(looks)
    dip_p = equivalence.VERDICT_DIP_P or None
    thresholds = gate.Thresholds.load(THRESHOLDS)
    native_gated = {}
    for metric, found in sorted(by_metric.items()):
        aa, known = found["aa"], found["known"]
        margin = comparison.margin_of(metric, margins)
        false = sum(r["verdict"] in ("worse", "better") for r in aa)
        equivalent = sum(r["verdict"] == "equivalent" for r in aa)
        higher = (aa or known)[0]["higher_is_better"]
        injected = instrument.expected_change(withheld, higher)
        recovered = [r["change"] for r in known if r["change"] is not None]
        covered = [r for r in known if r["change_ci_low"] is not None
                   and instrument.covers(r["change_ci_low"],
                                         r["change_ci_high"], injected)]
        detected = [r for r in covered if r["verdict"] == "worse"]
        sd = statistics.median([r["pair_sd"] for r in aa
                                if r["pair_sd"] is not None] or [None])
        theory = {} if sd is None else {
            "aa": sequential.simulate(0.0, sd, pairs, 1, margin,
                                      alpha=alpha, dip_p=dip_p),
            "known": sequential.simulate(math.log1p(injected), sd, pairs,
                                         1, margin, alpha=alpha,
                                         dip_p=dip_p)}
        docs = found["aa_docs"]
        gated = [{f.platform: f for f in gate.compare(
            [a], [b], thresholds)[0] if f.metric == metric}
            for a, b in zip(docs, docs[1:])]
        # the gate shows the A/A, never gates it: what its rule says
        gate_failed = sum(f[native.AA].verdict == "worse" for f in gated
                          if native.AA in f)
        levels = [f[comparison.NATIVE] for f in gated
                  if comparison.NATIVE in f]
        level_failed = sum(f.regressed for f in levels)
        moved = [f.change for f in levels if f.change is not None]
        runs = tuple(map(id, docs))  # each metric's A/A runs, gated once
        if runs not in native_gated:
            native_gated[runs] = drift_gated(docs, thresholds)
        drifted = [f for f in native_gated[runs] if f.metric == metric]
        out[metric] = {
            "margin": margin, "alpha": alpha, "aa_runs": len(aa),
            "aa_pair_sd": sd, "false_decisions": false,
            "false_rate": false / len(aa) if aa else None,
            "false_upper": upper_bound(false, len(aa)) if aa else None,
            "false_lower": lower_bound(false, len(aa)) if aa else None,
            "equivalent": equivalent, "known_runs": len(known),
            "injected": injected, "detected": len(detected),
            "covered": len(covered),
            "bias": statistics.fmean(recovered) - injected
            if recovered else None,
            "bias_sd": statistics.stdev(recovered)
            if len(recovered) > 1 else None,
            "gate_pairs": len(gated), "gate_failed": gate_failed,
            "gate_level_failed": level_failed,
            "gate_floor": thresholds.of(metric),
            "drift_pairs": len(drifted),
            "drift_level_failed": sum(f.regressed for f in drifted),
            "drift_floor": statistics.median(
                [f.threshold for f in drifted] or [None]),
            "level_moved_sd": statistics.stdev(moved)
            if len(moved) > 1 else None,
            "theory": theory}
    return out


def drift_gated(docs, thresholds, window=DRIFT_WINDOW):
    """Native's level in consecutive runs, gated as the periodic job does.

    Its threshold raised to the host's drift read from the runs before
    the candidate (up to window of them, the baseline the newest), for
    every candidate with report.drift's minimum of earlier runs.
    """
    found = []
    for i in range(drift.MIN_RUNS, len(docs)):
        history = [[doc] for doc in docs[max(0, i - window):i]]
        found += [f for f in gate.compare([docs[i - 1]], [docs[i]],
                                          thresholds, history)[0]
                  if f.platform == comparison.NATIVE]
    return found


def _rate(hits, n):
    return "%d of %d (%.1f %%)" % (hits, n, 100 * hits / n) if n else "–"


def show(found, stream=sys.stdout):
    for metric, f in found.items():
        theory = f["theory"]
        print("%s (margin +-%g %%, alpha of the look %.4f, A/A pair SD %s)"
              % (metric, 100 * f["margin"], f["alpha"],
                 "–" if f["aa_pair_sd"] is None
                 else "%.2f %%" % (100 * f["aa_pair_sd"])), file=stream)
        print("  A/A false decisions   %s, 95 %% upper bound %.1f %%; "
              "theory %s" % (
                  _rate(f["false_decisions"], f["aa_runs"]),
                  100 * f["false_upper"],
                  "–" if not theory else "%.2f %%" % (
                      100 * theory["aa"]["worse_or_better"])), file=stream)
        print("  A/A equivalent        %s; theory %s" % (
            _rate(f["equivalent"], f["aa_runs"]),
            "–" if not theory else "%.1f %%" % (
                100 * theory["aa"]["equivalent"])), file=stream)
        print("  known effect %+.1f %%: detected %s, CI covers it %s; "
              "theory (detected) %s" % (
                  100 * f["injected"], _rate(f["detected"], f["known_runs"]),
                  _rate(f["covered"], f["known_runs"]),
                  "–" if not theory else "%.1f %%" % (
                      100 * theory["known"]["worse_or_better"])),
              file=stream)
        if f["bias"] is not None:
            print("  recovered effect: bias %+.2f %% (SD of the recovered "
                  "%s)" % (100 * f["bias"], "–" if f["bias_sd"] is None
                           else "%.2f %%" % (100 * f["bias_sd"])),
                  file=stream)
        print("  periodic gate on consecutive A/A runs: %s failed (the A/A "
              "against its twins); native's level, the host's drift "
              "between the runs (SD %s): %s failed" % (
                  _rate(f["gate_failed"], f["gate_pairs"]),
                  "–" if f["level_moved_sd"] is None
                  else "%.2f %%" % (100 * f["level_moved_sd"]),
                  _rate(f["gate_level_failed"], f["gate_pairs"])),
              file=stream)
        if f["drift_pairs"]:
            print("  native's level gated as the periodic job gates it, "
                  "its threshold raised to the host's drift between the "
                  "%d runs before (median limit %.1f %%): %s failed" % (
                      DRIFT_WINDOW, 100 * f["drift_floor"],
                      _rate(f["drift_level_failed"], f["drift_pairs"])),
                  file=stream)
        if f["level_moved_sd"] is not None:
            # one-sided: only "worse" fails the gate
            print("  a floor on native's level that holds its false "
                  "failures at 5 %%: %.1f %% or more (1.645 SDs of the "
                  "drift); etc/periodic/thresholds.yaml gives %.1f %%" % (
                      164.5 * f["level_moved_sd"], 100 * f["gate_floor"]),
                  file=stream)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=40)
    parser.add_argument("--pairs", type=int, default=6,
                        help="waves of each cell (the quickstart's round)")
    parser.add_argument("--looks", type=int, default=3)
    parser.add_argument("--concurrency", type=int, default=1)
    parser.add_argument("--nice", type=int, default=10,
                        help="the known effect's busy neighbour's nice")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--margin", action="append", default=[],
                        metavar="KIND=FRACTION",
                        help="e.g. cpu=0.03 (default: the default 2 %%)")
    parser.add_argument("--tests", default=json.dumps(TESTS),
                        help="JSON list of tests")
    parser.add_argument("--budget-s", type=float, default=4 * 3600,
                        help="the task ends softly after this (default 4 h)")
    parser.add_argument("--env", default="rcbench-local")
    parser.add_argument("--rally-config")
    parser.add_argument("--out", default="instrument-check")
    parser.add_argument("--from", dest="source",
                        help="an exported rally.json of an earlier run")
    parser.add_argument("--verdict-dip-p", type=float,
                        default=equivalence.VERDICT_DIP_P,
                        help="a verdict leaves a dip of the host out at "
                        "this p (default: the report's; 0: every pair "
                        "counts, the rule before 2026-12-07)")
    args = parser.parse_args(argv)
    # the report's verdicts read it when they judge (equivalence)
    equivalence.VERDICT_DIP_P = args.verdict_dip_p
    margins = {"default": equivalence.DEFAULT_MARGIN}
    for item in args.margin:
        kind, _, value = item.partition("=")
        margins[kind] = float(value)
    if args.source:
        with open(args.source) as f:
            document = json.load(f)
    else:
        tests = json.loads(args.tests)
        tests_lib.resolve_all(tests)
        document = run_task(args, plan_of(
            args.runs, args.pairs, args.concurrency, tests, args.seed))
    found = figures(document, margins, known_effect.share(args.nice),
                    args.looks, args.pairs)
    print("verdicts leave a dip of the host out at p %g%s" % (
        args.verdict_dip_p, "" if args.verdict_dip_p else
        " (never: every pair counts)"))
    show(found)
    if args.out and not args.source:
        with open(os.path.join(args.out, "figures.json"), "w") as f:
            json.dump(found, f, indent=2, sort_keys=True)
    alpha = sequential.look_alpha(args.looks)
    return 1 if any(f["false_lower"] is not None and f["false_lower"] > alpha
                    for f in found.values()) else 0


if __name__ == "__main__":
    sys.exit(main())
