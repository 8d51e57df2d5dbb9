"""What qualifies a comparison's verdicts: pairs, disturbed runs, noise.

Pure: reads the samples and the per-run validity rows report.results
collected, and the comparison's rows.
"""

import collections
import statistics

from rally_container_bench.task import output_tables as tables


def pairs(samples):
    """(metric, label, concurrency) -> (values, twin values, moments).

    Lists in step: each pair's platform value, its twin's, and the moment
    it was measured in (results.Sample.moment: the pairs of one wave
    share one).
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
        complete = [p for p in by_pair.values() if None not in p]
        if complete:
            paired[key] = tuple(list(side) for side in zip(*complete))
    return paired


def runs_of(checks):
    """Test runs of a step, the disturbed ones and what became of them."""
    watched = [c for c in checks if c.get("foreign_cores") not in (None, "")]
    hit = [c for c in watched if c.get("disturbed") == "yes"]
    foreign = [float(c["foreign_cores"]) for c in hit]
    return {"runs": len(watched), "disturbed": len(hit),
            "foreign_cores": statistics.median(foreign) if foreign else None,
            "remeasured": sum(1 for c in watched
                              if int(c.get("attempt") or 1) > 1),
            "left_out": sum(1 for c in hit
                            if c.get("verdicts") == "left out: disturbed"),
            # used as pairs beside foreign load alike for both runs
            "alike": sum(1 for c in hit
                         if c.get("verdicts") == tables.USED_ALIKE)}


def alike_said(runs):
    """"; N used as pairs ..." where runs_of() used pairs beside load."""
    if not runs.get("alike"):
        return ""
    return ("; %d used as pairs beside foreign load alike for both runs, "
            "a CPU free for it" % runs["alike"])


def of_run(steps):
    """The whole run's disturbed test runs: {runs, disturbed, ...}."""
    total = collections.Counter()
    foreign = []
    for step in steps:
        runs = step["runs"]
        for key in ("runs", "disturbed", "remeasured", "left_out", "alike"):
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
