"""What qualifies a comparison's verdicts: pairs, disturbed runs, noise.

Pure: reads the samples and the per-run validity rows report.results
collected, and the comparison's rows.
"""

import collections
import statistics

from rally_container_bench.task import output_tables as tables


def pairs(samples, idle=None):
    """(metric, label, concurrency) -> (values, twin values, moments).

    Lists in step: each pair's platform value, its twin's, and the moment
    it was measured in (results.Sample.moment: the pairs of one wave
    share one). A pair one of whose runs read 0 or less while the other
    did not (a run that did no work: a docker container wrote 0.0 MiB/s
    beside its twin's 22.5, 2026-12-06) has no ratio: it is left out, and
    counted in idle[key][side] ("platform" or "twin") where idle is
    given, so that one stalled run neither hides the cell's verdict nor
    goes unsaid.
    """
    found = collections.defaultdict(dict)
    for sample in samples:
        if sample.pair is not None:
            label = sample.twin_of or sample.platform
            side = 1 if sample.twin_of else 0
            found[(sample.metric, label, sample.concurrency)].setdefault(
                sample.pair, [None, None, sample.moment])[
                side] = sample.value
    paired = {}
    for key, by_pair in found.items():
        complete = []
        for pair in by_pair.values():
            if None in pair:
                continue
            stalled = _stalled_side(pair[0], pair[1])
            if stalled is None:
                complete.append(pair)
            elif idle is not None:
                idle[key][stalled] += 1
        if complete:
            paired[key] = tuple(list(side) for side in zip(*complete))
    return paired


def _stalled_side(value, twin):
    """"platform" or "twin" where that run alone read 0 or less; else None."""
    if value <= 0 < twin:
        return "platform"
    if twin <= 0 < value:
        return "twin"
    return None


def idle_note(counts):
    """The row's note of the pairs pairs() left out for a run that idled."""
    said = []
    if counts.get("platform"):
        said.append("%d pair(s) left out: this platform's run read 0 (did "
                    "no work) beside a twin that did" % counts["platform"])
    if counts.get("twin"):
        said.append("%d pair(s) left out: the native twin read 0 (did no "
                    "work) beside a run that did" % counts["twin"])
    return "; ".join(said)


def runs_of(checks):
    """Test runs of a step, the disturbed ones and what became of them."""
    watched = [c for c in checks if c.get("foreign_cores") not in (None, "")]
    hit = [c for c in watched if c.get("disturbed") == "yes"]
    slow = [c for c in checks if c.get("disturbed") == tables.BELOW_LEVEL]
    foreign = [float(c["foreign_cores"]) for c in hit]
    return {"runs": len(watched), "disturbed": len(hit),
            "foreign_cores": statistics.median(foreign) if foreign else None,
            # foreign cores within the run's limit: flagged for Rally's
            # unplaced CPU (foreign_load.disturbed), which may hide some
            "for_harness": sum(1 for c in hit if _within_limit(c)),
            "remeasured": sum(1 for c in watched
                              if int(c.get("attempt") or 1) > 1),
            "left_out": sum(1 for c in hit
                            if c.get("verdicts") == "left out: disturbed"),
            # used as pairs beside foreign load alike for both runs
            "alike": sum(1 for c in hit
                         if c.get("verdicts") == tables.USED_ALIKE),
            # runs far below their side's level (validity.run_level),
            # the twins' of them, and those kept at the last attempt
            "below_level_runs": len(slow),
            "below_level_twins": sum(1 for c in slow
                                     if c.get("run") == "native twin"),
            "below_level_kept": sum(1 for c in slow
                                    if c.get("verdicts") != "re-measured")}


def _within_limit(check):
    limit = check.get("limit_cores")
    return limit not in (None, "") and \
        float(check["foreign_cores"]) <= float(limit)


def more_said(runs):
    """"; N ..." of runs_of(): pairs beside load, Rally's CPU alone."""
    said = ""
    if runs.get("alike"):
        said += ("; %d used as pairs beside foreign load alike for both "
                 "runs, a CPU free for it" % runs["alike"])
    if runs.get("for_harness"):
        said += ("; %d of the disturbed for Rally's own CPU on the host "
                 "alone (above the limit on a host with some of the "
                 "machine's CPUs, where it may hide foreign load)"
                 % runs["for_harness"])
    return said


def below_level_said(runs, short=False):
    """What became of the runs far below their side's level, or "".

    short: a step's note (the findings say the rest once).
    """
    if not runs.get("below_level_runs"):
        return ""
    count = "%d run(s) (%d of them twins)" % (runs["below_level_runs"],
                                              runs["below_level_twins"])
    if short:
        return ("%s far below their side's level, measured again; %d "
                "kept, flagged" % (count, runs["below_level_kept"]))
    return ("%s read far below the recent runs of their side (the "
            "platform's, or native's for twins) with no foreign load over "
            "the limit (the host slowed beneath the guest: "
            "validity.run_level), their pairs measured again; %d kept at "
            "the last attempt, flagged 'below its level'"
            % (count, runs["below_level_kept"]))


def findings(runs):
    """The findings' lines of of_run(): foreign load, runs below level."""
    lines = []
    if runs.get("runs"):
        if runs["disturbed"]:
            lines.append(
                "Foreign load: %d of %d test runs disturbed (up to %.2f "
                "cores of other work on the host, median per step), "
                "re-measured %d time(s); %d left out of verdicts%s."
                % (runs["disturbed"], runs["runs"], runs["foreign_cores"],
                   runs["remeasured"], runs["left_out"], more_said(runs)))
        else:
            lines.append("Foreign load: none of %d test runs disturbed."
                         % runs["runs"])
    dips = below_level_said(runs)
    if dips:
        lines.append("Dips: %s." % dips)
    return lines


def of_run(steps):
    """The whole run's disturbed test runs: {runs, disturbed, ...}."""
    total = collections.Counter()
    foreign = []
    for step in steps:
        runs = step["runs"]
        for key in ("runs", "disturbed", "remeasured", "left_out", "alike",
                    "for_harness", "below_level_runs", "below_level_twins",
                    "below_level_kept"):
            total[key] += runs[key]
        if runs["foreign_cores"] is not None:
            foreign.append(runs["foreign_cores"])
    found = dict(total)
    found["foreign_cores"] = max(foreign) if foreign else None
    return found


def noise(rows, kind_of):
    """Per kind of workload metric: the median SD of within-pair ratios."""
    found = collections.defaultdict(list)
    for row in rows:
        if row.get("pair_sd") is not None:
            found[kind_of(row["metric"])].append(row["pair_sd"])
    return [{"kind": kind, "pair_sd": statistics.median(sds),
             "cells": len(sds)} for kind, sds in sorted(found.items())]
