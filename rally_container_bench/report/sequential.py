"""Verdicts looked at after every round, with error rates that hold.

A run that adds rounds until each cell is decided looks at the same cell
again and again; at a fixed alpha each look is another chance of a
wrong verdict. The procedure here spends alpha equally over the planned
looks (Bonferroni: each look at alpha / K, K = the run's maximum number
of rounds). Whatever the stopping rule — stop a cell at its first verdict,
stop the run on a budget — the chance that any look's interval misses the
true ratio is at most alpha, so a false "equivalent" (true difference
beyond the margin) and a false "worse" or "better" (no true difference)
each stay at or below alpha. It is conservative against O'Brien-Fleming
boundaries, but needs no model of how the looks correlate, holds for
Student's t on a handful of pairs, and lets cells drop out as they are
decided. ``simulate`` checks the rates (tests/unit/test_sequential.py).

Pure: numpy and scipy only.
"""

import functools
import math

import numpy as np
from scipy import stats

from rally_container_bench.report import equivalence

METHOD = ("sequential: a look after every round, at most %d per cell, each "
          "at alpha %.3g (alpha spent equally over the looks, Bonferroni): "
          "a cell's verdict is final at its first look that decides it, "
          "and its error rates stay at or below alpha under any stopping")


def look_alpha(looks):
    """Alpha of one look of a run planned for ``looks`` looks (or None)."""
    return equivalence.ALPHA / looks if looks else equivalence.ALPHA


def margin_from_noise(sd, pairs, looks, floor=equivalence.DEFAULT_MARGIN,
                      step=0.005):
    """The margin a run of looks x pairs can settle at pair SD sd.

    Twice the half-width of the interval of its last look for a cell
    with no difference (so a small true difference still fits inside),
    rounded up to step, and never below floor. Chosen from the spread
    alone, never from an effect.
    """
    if sd is None or pairs < 2:
        return floor
    quantile = stats.t.ppf(1 - look_alpha(looks) / 2, pairs - 1)
    half = quantile * sd / math.sqrt(pairs)
    wanted = math.expm1(2 * half)
    return max(floor, math.ceil(round(wanted / step, 6)) * step)


def pair_sd(values, twins, moments=None):
    """SD of the within-pair log ratios: a test's noise, pairs cancelled.

    Of the moments' mean ratios where pairs were measured at once
    (equivalence.paired_effect): the noise of what a verdict counts.
    """
    ratios = equivalence.moment_means(
        np.log(values) - np.log(twins), moments)
    if len(ratios) < 2:
        return None
    return float(np.std(ratios, ddof=1))


# The fewest pairs whose spread leaves one pair out (robust_pair_sd).
ROBUST_FROM = 5


def robust_pair_sd(values, twins, moments=None):
    """A pair SD that one pair cannot carry: the farthest pair left out.

    A dip of the host between the two runs of one pair (-2.3 % among
    pairs within 0.3 %, 2026-12-06) doubled its cell's SD of 6 pairs, and
    with it the margin chosen for every cell of its step. From ROBUST_FROM
    ratios on, the SD of all but the one farthest from their median,
    scaled so that under normal noise it reads what pair_sd reads on
    average; with fewer, pair_sd's own. For choosing margins, never for a
    verdict (each verdict counts every pair).
    """
    ratios = equivalence.moment_means(
        np.log(values) - np.log(twins), moments)
    if len(ratios) < ROBUST_FROM:
        return None if len(ratios) < 2 else float(np.std(ratios, ddof=1))
    trimmed = _sd_without_farthest(np.asarray(ratios)[None, :])[0]
    return float(trimmed * _trim_scale(len(ratios)))


def _sd_without_farthest(rows):
    """SD (ddof 1) of each row without its value farthest from its median."""
    off = np.abs(rows - np.median(rows, axis=1, keepdims=True))
    keep = np.ones(rows.shape, dtype=bool)
    keep[np.arange(len(rows)), np.argmax(off, axis=1)] = False
    kept = rows[keep].reshape(len(rows), rows.shape[1] - 1)
    return np.std(kept, axis=1, ddof=1)


@functools.lru_cache(maxsize=None)
def _trim_scale(n, draws=20000):
    """E[SD of n] / E[SD of n, farthest left out], for normal noise.

    From draws seeded by n: the same figure in every run (to ~0.3 %).
    """
    rows = np.random.default_rng(n).standard_normal((draws, n))
    return float(np.mean(np.std(rows, axis=1, ddof=1))
                 / np.mean(_sd_without_farthest(rows)))


def time_to_verdict(collected, key, verdict):
    """Seconds from the run's first iteration to the cell's last, or None.

    Only for a sequential run's decided cells: a decided cell is measured
    no more, so its last iteration ended the round that decided it.
    """
    if not collected.looks or verdict in (None, "inconclusive"):
        return None
    ended = collected.ended.get(key)
    if ended is None or collected.started is None:
        return None
    return round(ended - collected.started, 1)


def decisions(d, se, df, bound, alpha):
    """Arrays of (equivalent, beyond) of estimates d with standard errors."""
    quantile = stats.t.ppf(1 - alpha / 2, df)
    low, high = d - quantile * se, d + quantile * se
    equivalent = (low > -bound) & (high < bound)
    beyond = ~equivalent & (np.abs(d) > quantile * se) & (np.abs(d) > bound)
    return equivalent, beyond


def simulate(effect, sd, pairs_per_look, looks, margin, repeats=4000,
             seed=1, alpha=equivalence.ALPHA, spend=True):
    """Rates of each final verdict of a cell decided look by look.

    effect: the true log ratio; sd: of one pair's log ratio. Each repeat
    adds pairs_per_look pairs per look and stops at its first verdict.
    Returns {equivalent, worse_or_better, opposite, undecided} shares,
    opposite: "worse/better" in the direction against the true effect
    (or any, when effect is 0). spend=False: every look at alpha, the
    naive procedure whose errors add up.
    """
    rng = np.random.default_rng(seed)
    bound = math.log1p(margin)
    per_look = alpha / looks if spend else alpha
    ratios = rng.normal(effect, sd, (repeats, pairs_per_look * looks))
    open_ = np.ones(repeats, dtype=bool)
    outcome = {"equivalent": 0, "worse_or_better": 0, "opposite": 0}
    for look in range(1, looks + 1):
        n = pairs_per_look * look
        if n < equivalence.MIN_N:
            continue
        seen = ratios[:, :n]
        d = seen.mean(axis=1)
        se = seen.std(axis=1, ddof=1) / math.sqrt(n)
        equivalent, beyond = decisions(d, se, n - 1, bound, per_look)
        equivalent &= open_
        beyond &= open_
        outcome["equivalent"] += int(equivalent.sum())
        wrong_way = (np.sign(d) != np.sign(effect)) if effect else beyond
        outcome["opposite"] += int((beyond & wrong_way).sum())
        outcome["worse_or_better"] += int(beyond.sum())
        open_ &= ~(equivalent | beyond)
    shares = {k: v / repeats for k, v in outcome.items()}
    shares["undecided"] = float(open_.mean())
    return shares


def decided_line(report):
    """The report's line: decided and undecided headline cells.

    Those too small for any verdict apart.

    A cell with under 3 pairs (a round of 1 pair, runs left out) has no
    verdict and says no pairs it needs: counted as undecided all the same.
    """
    kinds = {m["name"]: m["kind"] for m in report["metrics"]}
    headline_rows = [r for r in report["rows"]
                     if _is_headline(report, r["metric"])]
    timed = [r["time_to_verdict_s"] for r in headline_rows
             if r.get("time_to_verdict_s") is not None]
    undecided = [r for r in headline_rows
                 if kinds.get(r["metric"]) != "phase"
                 and r["platform"] != report.get("baseline")
                 and r.get("verdict") in (None, "inconclusive")]
    too_few = sum(1 for r in undecided if not r.get("alpha"))
    return ("Sequential: %d headline cell(s) decided, time to verdict %s; "
            "%d undecided (each says the pairs it needs%s)."
            % (len(timed), "%.0f-%.0f s" % (min(timed), max(timed))
               if timed else "-", len(undecided),
               "; %d too few for any verdict" % too_few if too_few else ""))


def _is_headline(report, name):
    return any(m["name"] == name and m["headline"]
               for m in report["metrics"])
