"""Every platform against native: one row per metric x platform x concurrency.

Reads Rally's exported results (report.results), computes the statistics
(report.stats) and returns a plain dict that the renderers (HTML, CSV,
JSON, Markdown) write out. Knows no engine.
"""

import collections
import datetime
import statistics

from rally_container_bench.core import provenance
from rally_container_bench.report import disturbance
from rally_container_bench.report import equivalence
from rally_container_bench.report import instrument
from rally_container_bench.report import margins as margins_lib
from rally_container_bench.report import placement
from rally_container_bench.report import results
from rally_container_bench.report import sequential
from rally_container_bench.report import stats
from rally_container_bench.report import steps as step_checks
from rally_container_bench.workloads import tools

NATIVE = results.NATIVE
PHASE_ORDER = ("build", "network", "cloud_init", results.BUILD_NETWORK,
               "delete",
               results.BOOT_AND_DELETE,
               # ContainerLifecycle's verbs (the ptcr method's table)
               "create", "start", "stop", "remove", "run")
CSV_COLUMNS = ("metric", "unit", "platform", "concurrency", "n", "failed",
               "mean", "sd", "median", "ci_low", "ci_high",
               "ratio_to_native", "ratio_ci_low", "ratio_ci_high",
               "p_value", "cliffs_delta")
EXTRA_COLUMNS = ("higher_is_better", "verdict", "margin", "change",
                 "change_ci_low", "change_ci_high", "equivalence_p",
                 "iterations_needed", "rounds", "round_changes",
                 "iterations", "pairs", "moments", "pair_sd", "pairing",
                 "alpha",
                 "time_to_verdict_s", "note")
# One number per measurement in the headline: a test's MiB/s where it
# moves data (memory, fileio, fio), else the first of these.
PRIMARY_RATES = ("events_per_s", "throughput_gbit_s", "requests_per_s",
                 "iops")
# the kinds of metric and their margins (margins_lib): kept here too
kind_of = margins_lib.kind_of
margin_of = margins_lib.margin_of
mode_of = margins_lib.mode_of


ENVIRONMENT_KEYS = (
    ("driver", "driver"), ("runtime", "runtime"),
    ("acceleration", "acceleration"),
    ("acceleration_reason", "why this acceleration"),
    ("engine_version", "engine version"), ("image", "image"),
    ("network", "network"), ("tuning", "tuning"), ("cpuset", "cpuset"),
    ("workdir", "work directory"), ("workdir_fs", "its filesystem"),
    ("disk_io", "disk I/O"),
    ("vcpus", "vCPUs"), ("known_effect", "known effect"),
    ("pinning", "pinning"),
    ("memory_mb", "memory (MiB)")) + tools.versions_table_keys() + (
    ("sysbench_build", "sysbench build"),
    ("twin_sysbench_build", "its twin's sysbench build"),
    ("sysbench_builds", "builds differ"),
    ("host_cpu_model", "host CPU"), ("host_cpus", "host cores"),
    ("host_kernel", "host kernel"), ("host", "host"))
# Results written before the host_* keys existed name them this way.
_OLD_ENVIRONMENT_KEYS = {"host_cpu_model": "cpu_model", "host_cpus": "cpus",
                         "host_kernel": "kernel"}


def build(documents, title=None, margins=None):
    """The comparison of the Rally task results in documents.

    margins: {kind or "default": fraction} (kind_of), the equivalence
    margin of each metric's verdict; default 2 %.
    """
    collected = results.collect(documents)
    metrics = _metrics(collected.samples)
    values = collections.defaultdict(list)
    moments = collections.defaultdict(list)  # key -> each value's moment
    by_round = collections.defaultdict(lambda: collections.defaultdict(list))
    for sample in collected.samples:
        key = (sample.metric, sample.platform, sample.concurrency)
        values[key].append(sample.value)
        moments[key].append(sample.moment)
        if sample.round is not None:
            by_round[key][sample.round].append(sample.value)
    idle = collections.defaultdict(collections.Counter)
    pairs = disturbance.pairs(collected.samples, idle)
    alpha = sequential.look_alpha(collected.looks)
    off_host = placement.off_native_host(collected)
    rows = []
    for metric in metrics:
        # a cell whose every run was left out (disturbed) still has its
        # row: n 0, and why
        platforms = {label for (name, label, _) in values
                     if name == metric["name"]} | {
            label for (name, label, _), why in collected.left_out.items()
            if name == metric["name"] and why}
        for label in collected.platforms:
            if label not in platforms:
                continue
            for concurrency in _steps(collected, label):
                key = (metric["name"], label, concurrency)
                if not values.get(key) and not collected.left_out[key] \
                        and not collected.failed[(label, concurrency)]:
                    continue  # e.g. a footprint (concurrency 1 only)
                mode = mode_of(collected, key)
                row = _row(metric, label, concurrency, values, collected,
                           margin_of(metric["name"], margins, mode,
                                     concurrency),
                           pairs.get(key), alpha, moments,
                           off_host.get((label, concurrency)))
                row["pairing"] = mode
                row["note"] = "; ".join(filter(None, (
                    disturbance.idle_note(idle.get(key, {})), row["note"])))
                row.update(_rounds(metric, label, concurrency, by_round))
                row["time_to_verdict_s"] = sequential.time_to_verdict(
                    collected, key, row["verdict"])
                rows.append(row)
    checked = instrument.check(rows, metrics, kind_of,
                               collected.environments)
    steps = step_checks.of(collected)
    levels = placement.native_levels(
        collected.samples, metrics, lambda name: margin_of(name, margins))
    return {
        "title": title or "Native vs VMs vs containers",
        "generated_at": datetime.datetime.now(datetime.timezone.utc)
                                         .strftime("%Y-%m-%d %H:%M UTC"),
        "methods": dict(stats.METHODS, alpha=stats.ALPHA,
                        **margins_lib.equivalence_methods(
                            margins, collected.looks,
                            instrument.device_floors(checked),
                            sorted({c for (_, c) in collected.iterations}))),
        "baseline": NATIVE,
        "platforms": [_platform(label, platform, collected)
                      for label, platform in _baseline_first(
                          collected.platforms)],
        "concurrency": sorted({c for (_, c) in collected.iterations}),
        "metrics": metrics,
        "rows": rows,
        # a cloud's: where each cell's instances ran, rows per host of
        # cells on several hosts, hosts whose native level stands apart
        "placement": placement.of_cells(collected),
        "host_rows": placement.host_rows(
            collected, metrics, lambda metric, label, step, values, pairs:
            _row(metric, label, step, values, collected, margin_of(
                metric["name"], margins, step=step), pairs, alpha,
                off_host=off_host.get((label, step)))),
        "native_levels": levels,
        "cells": collected.cells,
        "steps": steps,
        "tasks": collected.tasks,
        "disturbance": disturbance.of_run(steps),
        # what made the results (Rally host's harness and libraries at the
        # run), and this report (the libraries that computed the verdicts)
        "made_by": {"results": provenance.of_environments(
            collected.environments.values()),
            "report": dict(provenance.facts())},
        "noise": disturbance.noise(rows, kind_of),
        "instrument": checked,
        "warnings": instrument.warnings(checked) + _warnings(collected)
        + placement.off_host_warnings(off_host) + [
            "compute host %(host)s: its native twins measured %(metric)s "
            "at concurrency %(concurrency)s %(verdict)s than the other "
            "hosts' by %(pct)+.1f %%: its hardware or load differs (each "
            "verdict pairs within one host)" % dict(
                level, pct=100 * level["change"]) for level in levels] + [
            "%s at concurrency %s: %s" % (s["platform"], s["concurrency"], f)
            for s in steps for f in s["flags"]],
        # what was handled (disturbed runs measured again, none left out)
        "notes": ["%s at concurrency %s: %s" % (s["platform"],
                                                s["concurrency"], n)
                  for s in steps for n in s.get("notes", [])],
    }


def _baseline_first(platforms):
    """(label, platform) with native first, then in order of appearance.

    Interleaved rounds run platforms in a shuffled order; the tables keep
    the baseline in front.
    """
    return sorted(platforms.items(), key=lambda item: item[0] != NATIVE)


def _steps(collected, label):
    return sorted(c for (name, c) in collected.iterations if name == label)


def _metrics(samples):
    found = {}
    for sample in samples:
        found.setdefault(sample.metric, {
            "name": sample.metric, "unit": sample.unit,
            "higher_is_better": sample.higher_is_better,
            "kind": ("workload" if sample.metric.startswith(
                results.WORKLOAD_METRIC_PREFIXES) else "phase"),
            "all_zero": True})
        if sample.value != 0:
            found[sample.metric]["all_zero"] = False
    primary = _primary_metrics(found)
    for metric in found.values():
        metric["headline"] = not metric["all_zero"] and (
            metric["name"] in PHASE_ORDER
            or metric["name"].startswith("footprint.")
            or metric["name"] in primary)
    order = list(found)  # first appearance: the task's order of tests

    def key(name):
        if name in PHASE_ORDER:
            return (0, PHASE_ORDER.index(name), 0)
        if found[name]["kind"] == "phase":
            return (1, 0, name)
        test = name.rsplit(".", 1)[0]
        first = min(order.index(n) for n in order
                    if n.rsplit(".", 1)[0] == test)
        return (2, first, name)
    return [found[name] for name in sorted(found, key=key)]


def _primary_metrics(found):
    """Names of the one headline number of each test (or its MiB/s pair).

    MiB/s and ops/s of one memory run, or read MiB/s and reads/s of one
    fileio run, are the same measurement twice.
    """
    tests = collections.defaultdict(list)
    for metric in found.values():
        if (metric["kind"] == "workload" and metric["higher_is_better"]
                and not metric["all_zero"]):
            test, _, name = metric["name"].rpartition(".")
            tests[test].append((name, metric))
    primary = set()
    for test, candidates in tests.items():
        rates = [m["name"] for _, m in candidates if m["unit"] == "MiB/s"]
        if not rates:
            names = dict(candidates)
            rates = [names[n]["name"] for n in PRIMARY_RATES
                     if n in names][:1]
        primary.update(rates)
    return primary


def _row(metric, label, concurrency, values, collected, margin,
         paired=None, alpha=equivalence.ALPHA, moments=None, off_host=None):
    name = metric["name"]
    own_key, native_key = (name, label, concurrency), (
        name, NATIVE, concurrency)
    own = values.get(own_key, [])
    moments = moments or {}
    # a wave's values are one observation for every test (equivalence)
    observed = equivalence.moment_means(own, moments.get(own_key))
    summary = stats.summarize(own)
    effect = equivalence.NOT_TESTED
    pair_sd = robust_sd = across = None
    if label == NATIVE:
        comparison = stats.NO_COMPARISON._replace(note="the baseline")
    else:
        native = values.get(native_key, [])
        comparison = stats.compare(
            observed, equivalence.moment_means(native,
                                               moments.get(native_key)),
            metric["higher_is_better"])
        if paired and len(paired[0]) >= equivalence.MIN_N:
            effect = equivalence.paired_effect(
                paired[0], paired[1], metric["higher_is_better"], margin,
                alpha, moments=paired[2])
            if effect.verdict:
                pair_sd = sequential.pair_sd(*paired)
                robust_sd = sequential.robust_pair_sd(*paired)
        elif native:
            effect = equivalence.effect(
                own, native, metric["higher_is_better"], margin, alpha,
                moments.get(own_key), moments.get(native_key))
            effect, across = placement.across_hosts(effect, off_host)
    notes = [n for n in (summary.note, comparison.note) if n]
    if across:
        notes.insert(0, across)
    if effect.dip is not None:
        notes.append("1 wave left out of the verdict as a dip of the host "
                     "(%+.1f %% against its twins, far off the others)"
                     % (100 * effect.dip))
    notes += ["%d %s run(s) left out" % (count, why) for why, count in
              sorted(collected.left_out[(name, label, concurrency)].items())]
    if collected.alike[own_key]:
        notes.append("%d pair(s) measured beside foreign load alike for "
                     "both runs" % collected.alike[own_key])
    failed = collected.failed[(label, concurrency)]
    if failed:
        notes.insert(0, "%d failed iteration(s) left out" % failed)
    decided = effect.verdict not in (None, placement.NOT_COMPARABLE)
    return {
        "metric": name, "unit": metric["unit"], "platform": label,
        "concurrency": concurrency, "n": summary.n, "failed": failed,
        "mean": summary.mean, "sd": summary.sd, "median": summary.median,
        "ci_low": summary.ci_low, "ci_high": summary.ci_high,
        "ratio_to_native": comparison.ratio,
        "ratio_ci_low": comparison.ratio_ci_low,
        "ratio_ci_high": comparison.ratio_ci_high,
        "p_value": comparison.p_value,
        "cliffs_delta": comparison.cliffs_delta,
        "higher_is_better": metric["higher_is_better"],
        "verdict": effect.verdict,
        "margin": margin if decided else None,
        "change": None if effect.ratio is None else effect.ratio - 1,
        "change_ci_low": None if effect.ci_low is None
        else effect.ci_low - 1,
        "change_ci_high": None if effect.ci_high is None
        else effect.ci_high - 1,
        "equivalence_p": effect.tost_p,
        "iterations_needed": effect.needed,
        "iterations": collected.iterations[(label, concurrency)],
        # disturbed to the last attempt (re-measured ones not counted)
        "left_out": collected.left_out[(name, label, concurrency)][
            "disturbed"],
        "pairs": len(paired[0]) if paired else None,
        # the moments (waves measured at once) of the pairs, or of an
        # unpaired platform's values where a wave held several: a verdict's n
        "moments": len(set(paired[2])) if paired else (
            len(observed) if len(observed) < len(own) else None),
        "pair_sd": pair_sd,
        # the change of the moment the verdict left out as a dip, or None
        "dip_left_out": effect.dip,
        # what auto margins are chosen from (a dip of the host left out)
        "pair_sd_robust": robust_sd,
        "alpha": alpha if decided else None,
        "off_host": off_host if across else None,
        "note": "; ".join(notes),
    }


def _rounds(metric, label, concurrency, by_round):
    """The round-to-round spread of a row, and a change of sign.

    rounds: how many rounds measured it; round_changes: each round's
    change from native in the same round (ratio of means - 1); flips: the
    effect is beyond the margin-free zero in both directions.
    """
    own = by_round.get((metric["name"], label, concurrency), {})
    native = by_round.get((metric["name"], NATIVE, concurrency), {})
    changes = {}
    for number, found in sorted(own.items()):
        reference = native.get(number)
        if label != NATIVE and reference and statistics.fmean(reference):
            changes[number] = (statistics.fmean(found)
                               / statistics.fmean(reference) - 1)
    flips = (len(changes) > 1 and min(changes.values()) < 0
             < max(changes.values()))
    return {"rounds": len(own) or None,
            "round_changes": changes or None, "round_flip": flips}


def _platform(label, platform, collected):
    environment = dict(collected.environments.get(label, {}))
    for new, old in _OLD_ENVIRONMENT_KEYS.items():
        if new not in environment and old in environment:
            environment[new] = environment[old]
    facts = [(title, environment[key]) for key, title in ENVIRONMENT_KEYS
             if environment.get(key) not in (None, "")]
    return {"label": label, "driver": platform.driver,
            "runtime": platform.runtime,
            "acceleration": platform.acceleration, "environment": facts}


def _warnings(collected):
    warnings = []
    for (label, concurrency), failed in sorted(collected.failed.items()):
        warnings.append(
            "%s at concurrency %s: %d of %d iterations failed; they are "
            "counted in 'failed' and left out of every statistic"
            % (label, concurrency, failed,
               collected.iterations[(label, concurrency)]))
    if NATIVE not in collected.platforms:
        warnings.append("no native baseline in these results: no ratios")
    return warnings


def rows_for(report, metric=None, platform=None, concurrency=None):
    return [row for row in report["rows"]
            if (metric is None or row["metric"] == metric)
            and (platform is None or row["platform"] == platform)
            and (concurrency is None or row["concurrency"] == concurrency)]
