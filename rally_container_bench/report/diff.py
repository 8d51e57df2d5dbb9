"""Run against run (A/B): what changed between a baseline and a candidate.

Both are exported Rally results of the same platforms. For every metric x
platform x concurrency in both: the change (ratio of geometric means,
candidate / baseline) with its 95 % CI (Welch's t on the logs), a two-
sided permutation test of the difference of the mean logs (exact up to
EXACT_LIMIT arrangements, else a fixed-seed sample), and a verdict:

- "worse" / "better": significant (p < alpha) AND the change beyond the
  effect floor of the metric (Firecracker's A/B rule: both, never one);
- "no change": within the floor or not significant (the note says which);
- "not tested": fewer than MIN_N values on a side.

A platform measured beside its native twins in both runs is compared by
its cost against them (each wave's mean within-pair ratio): what moved
the host between the two runs moved the twins too and cancels, and the
host's own level is native's row. Of 39 consecutive A/A cells 20-60 s
apart on a 2-core VM (benchmarks.instrument_check, 2026-12-07), the
A/A platform failed a 5 % gate 1 (cpu) and 4 (memory read) times by
its levels, 0 and 1 by its pairs; native's level, which no pair
cancels, 2 and 5 (the host's drift between the cells: SD 2.5 % and
4.3 %).

Where earlier runs of the same job are given (drift_of, report.drift), a
cell's floor is at least the host's drift between runs, read from them:
two quickstart runs of one day, 11 h apart, failed a 5 % floor on
native's levels (+8.3 % cpu at 2, +7.1 % memory read), each at p < 0.001.

The periodic job's gate is this with per-metric floors from a thresholds
file (report.gate). Pure: numpy and scipy.stats.
"""

import collections
import math

import numpy as np
from scipy import stats

from rally_container_bench.core import provenance
from rally_container_bench.report import disturbance
from rally_container_bench.report import drift as drift_lib
from rally_container_bench.report import equivalence
from rally_container_bench.report import placement
from rally_container_bench.report import results
from rally_container_bench.report import sequential

ALPHA = 0.05
DEFAULT_FLOOR = 0.05
MIN_N = 3
EXACT_LIMIT = 200000
RESAMPLES = 20000
SEED = 20151020  # any fixed value: the same runs give the same p

# against_twins: compared by the platform's ratios to its native twins
Change = collections.namedtuple(
    "Change", "metric unit higher_is_better platform concurrency "
              "baseline_mean candidate_mean n_baseline n_candidate ratio "
              "ci_low ci_high p_value floor verdict note against_twins drift",
    defaults=(False, None))


def _mean_log_difference(x, y, axis=-1):
    return np.mean(x, axis=axis) - np.mean(y, axis=axis)


def permutation_p(x, y):
    """Two-sided p of mean(log x) - mean(log y) under exchangeability."""
    lx, ly = np.log(x), np.log(y)
    arrangements = math.comb(len(lx) + len(ly), len(lx))
    exact = arrangements <= EXACT_LIMIT
    result = stats.permutation_test(
        (lx, ly), _mean_log_difference, permutation_type="independent",
        alternative="two-sided", vectorized=True,
        n_resamples=np.inf if exact else RESAMPLES,
        random_state=np.random.default_rng(SEED))
    return float(result.pvalue)


def change(candidate, baseline, higher_is_better, floor=DEFAULT_FLOOR,
           alpha=ALPHA):
    """(ratio, ci_low, ci_high, p, verdict, note) of candidate vs baseline."""
    x = np.asarray(candidate, dtype=float)
    y = np.asarray(baseline, dtype=float)
    if min(len(x), len(y)) < MIN_N:
        return (None, None, None, None, "not tested",
                "fewer than %d iterations (waves, at N) on a side" % MIN_N)
    if (x <= 0).any() or (y <= 0).any():
        return (None, None, None, None, "not tested",
                "values <= 0: no ratio")
    d, se, df = equivalence._welch(x, y)
    half = stats.t.ppf(1 - alpha / 2, df) * se if se else 0.0
    p = permutation_p(x, y)
    ratio = math.exp(d)
    # the change as the reports print it (ratio - 1): a throughput 27 %
    # lower is within a 30 % floor, as its "worse by +27.4 %" reads (in
    # logs, -0.317 was beyond log(1.3), and a 30 % floor held 23 %)
    beyond = abs(math.expm1(d)) > floor
    if p < alpha and beyond:
        verdict = "better" if (d > 0) == higher_is_better else "worse"
        note = None
    elif beyond:
        verdict, note = "no change", "not significant (p = %.3g)" % p
    else:
        verdict, note = "no change", "within the floor of %g %%" % (
            100 * floor)
    return (ratio, math.exp(d - half), math.exp(d + half), p, verdict, note)


def _values(documents):
    """({key: values}, {metric: (unit, higher)}, collected).

    A wave's values, measured at once (results.Sample.moment), are one
    value, their mean: what moved the host in that moment moved them all
    (report/equivalence.py), so they are not independent draws.
    """
    collected = results.collect(documents)
    found = collections.defaultdict(lambda: ([], []))
    meta = {}
    for sample in collected.samples:
        values, moments = found[(sample.metric, sample.platform,
                                 sample.concurrency)]
        values.append(sample.value)
        moments.append(sample.moment)
        meta[sample.metric] = (sample.unit, sample.higher_is_better)
    values = {key: equivalence.moment_means(*sides).tolist()
              for key, sides in found.items()}
    return values, meta, collected


def _against_twins(collected):
    """{key: each moment's mean ratio of the platform to its twin}."""
    found = {}
    for key, (values, twins, moments) in disturbance.pairs(
            collected.samples).items():
        if min(values) <= 0 or min(twins) <= 0:
            continue  # no ratio: compared by its levels, as before pairs
        found[key] = np.exp(sequential.pair_ratios(
            values, twins, moments)).tolist()
    return found


AGAINST_TWINS = "against its native twins (the host's drift cancels)"


OFF_HOST = ("no native twin on the instance's host: the gate does not "
            "judge this cell (give compute_hosts)")


def gated_values(documents):
    """({key: level values}, {key: ratios to twins}): what compare reads."""
    values, _, collected = _values(documents)
    return values, _against_twins(collected)


def compare(baseline_docs, candidate_docs, floor_of=None, ignored=None,
            drift_of=None):
    """([Change], keys only one run has, {key: candidate's failed}).

    floor_of(metric) -> fraction (default DEFAULT_FLOOR); ignored(metric)
    -> True to leave a metric out; drift_of: {(kind, key):
    report.drift.Drift} of earlier runs, where its floor is the higher
    (kind "paired" for a cell compared by its ratios to its twins, else
    "level").
    """
    base, _, base_collected = _values(baseline_docs)
    cand, meta, collected = _values(candidate_docs)
    base_pairs = _against_twins(base_collected)
    cand_pairs = _against_twins(collected)
    # unpaired cloud cells: neither run's is the platform's own measure
    off_host = {key for side in (base_collected, collected)
                for key, found in placement.off_native_host(side).items()
                if not found["stated_identical"]}
    found = []
    for key in sorted(set(base) & set(cand)):
        metric, platform, concurrency = key
        if ignored is not None and ignored(metric):
            continue
        unit, higher = meta[metric]
        floor = floor_of(metric) if floor_of else DEFAULT_FLOOR
        before, after = base[key], cand[key]
        paired = key in base_pairs and key in cand_pairs
        if paired:
            before, after = base_pairs[key], cand_pairs[key]
            unit = "x native"
        drift = (drift_of or {}).get(
            (drift_lib.PAIRED if paired else drift_lib.LEVEL, key))
        if drift is not None and drift.floor > floor:
            floor = drift.floor
        else:
            drift = None
        ratio, low, high, p, verdict, note = change(
            after, before, higher, floor)
        if (platform, concurrency) in off_host:
            verdict, note = "not tested", OFF_HOST
        elif paired:
            note = "; ".join(filter(None, (AGAINST_TWINS, note)))
        found.append(Change(metric, unit, higher, platform, concurrency,
                            float(np.mean(before)), float(np.mean(after)),
                            len(before), len(after), ratio, low, high, p,
                            floor, verdict, note, paired, drift))
    only = {"baseline": sorted(set(base) - set(cand)),
            "candidate": sorted(set(cand) - set(base))}
    failed = {key: n for key, n in collected.failed.items() if n}
    return found, only, failed


def made_by_changes(baseline_docs, candidate_docs):
    """What made the two runs differently: ["numpy 2.4.6 -> 2.5.0", ...].

    The harness's version and commit, Rally's, Python's, numpy's and
    scipy's, as each run's iterations recorded them (core.provenance).
    The comparison still runs: a change is named, not refused.
    """
    facts = [provenance.of_environments(
        results.collect(docs).environments.values())
        for docs in (baseline_docs, candidate_docs)]
    return provenance.changes(*facts)


def made_by_note(baseline_docs, candidate_docs):
    """A line for rcbench diff and the gate, or None when nothing differs."""
    found = made_by_changes(baseline_docs, candidate_docs)
    if not found:
        return None
    return ("note: the two runs were made by different versions: %s (the "
            "comparison stands, but a change may be the harness's)"
            % "; ".join(found))


def format_changes(changes, only=None, failed=None, everything=True):
    """A text table: every cell (or only the worse/better ones)."""
    shown = [c for c in changes if everything
             or c.verdict in ("worse", "better")]
    lines = ["%-38s %-16s %4s %11s %11s %8s %18s %7s %6s  %s" % (
        "metric", "platform", "conc", "baseline", "candidate", "change",
        "95% CI", "p", "floor", "verdict")]
    for c in shown:
        lines.append("%-38s %-16s %4s %11s %11s %8s %18s %7s %6s  %s" % (
            c.metric[:38], c.platform[:16], c.concurrency,
            "%.4g" % c.baseline_mean, "%.4g" % c.candidate_mean,
            _pct(c.ratio), "[%s, %s]" % (_pct(c.ci_low), _pct(c.ci_high))
            if c.ci_low is not None else "-",
            "%.3f" % c.p_value if c.p_value is not None else "-",
            "%g%%" % (100 * c.floor),
            c.verdict + (" (%s)" % c.note if c.note else "")))
    for side, keys in sorted((only or {}).items()):
        if keys:
            lines.append("only in the %s run: %s" % (side, ", ".join(
                "%s/%s@%s" % key for key in keys[:10])
                + (" ... (%d)" % len(keys) if len(keys) > 10 else "")))
    for (platform, concurrency), n in sorted((failed or {}).items()):
        lines.append("candidate: %d failed iteration(s) of %s at "
                     "concurrency %s (left out of every statistic)"
                     % (n, platform, concurrency))
    counts = collections.Counter(c.verdict for c in changes)
    lines.append("%d cells: %s" % (len(changes), ", ".join(
        "%d %s" % (n, v) for v, n in sorted(counts.items()))))
    return "\n".join(lines)


def _pct(ratio):
    return "-" if ratio is None else "%+.1f%%" % (100 * (ratio - 1))
