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
    return _sd(pair_ratios(values, twins, moments))


def pair_ratios(values, twins, moments=None):
    """Each moment's mean within-pair log ratio (values against twins)."""
    return equivalence.moment_means(np.log(values) - np.log(twins), moments)


def _sd(ratios):
    return None if len(ratios) < 2 else float(np.std(ratios, ddof=1))


# A pair is a dip of the host where normal noise would put one as far off
# its cell's other pairs in fewer than this share of cells.
DIP_P = 0.01


def robust_pair_sd(values, twins, moments=None):
    """A pair SD that one dip of the host cannot carry.

    A dip of the host between the two runs of one pair (-2.3 % among
    pairs within 0.3 %, 2026-12-06; a wave of both instances at -30 %
    beside twins at full speed) took its cell's SD of 6 pairs to 1-14 %,
    and with it the margin chosen for every cell of its step. From
    equivalence.DIP_FROM ratios on, the one farthest off the others (externally
    studentized: its distance from their mean in their SD, t with n - 2
    degrees of freedom) is left out where normal noise would put one that
    far in fewer than DIP_P of cells (Bonferroni over the n ratios): in
    ~1 % of cells of normal noise, the SD then ~0.5 % low on average;
    a spread heavy but even leaves none out. For choosing margins; a
    verdict leaves a dip out only at equivalence.VERDICT_DIP_P.
    """
    ratios = pair_ratios(values, twins, moments)
    dipped = dip_of(ratios)
    if dipped is not None:
        ratios = np.delete(ratios, dipped)
    return _sd(ratios)


def dip_of(ratios):
    """The index of the ratio that is a dip of the host, or None."""
    return equivalence.dip_of(ratios, DIP_P)


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
             seed=1, alpha=equivalence.ALPHA, spend=True, dips=None,
             dip_p=equivalence.VERDICT_DIP_P):
    """Rates of each final verdict of a cell decided look by look.

    effect: the true log ratio; sd: of one pair's log ratio. Each repeat
    adds pairs_per_look pairs per look and stops at its first verdict.
    Returns {equivalent, worse_or_better, opposite, undecided} shares,
    opposite: "worse/better" in the direction against the true effect
    (or any, when effect is 0). spend=False: every look at alpha, the
    naive procedure whose errors add up. dips: (share, size) to add dips
    of the host, each pair off by +-size x sd with chance share. Each
    look leaves one dip out at dip_p as the report's verdict does (None:
    every pair counted).
    """
    rng = np.random.default_rng(seed)
    bound = math.log1p(margin)
    per_look = alpha / looks if spend else alpha
    ratios = rng.normal(effect, sd, (repeats, pairs_per_look * looks))
    if dips:
        share, size = dips
        hit = rng.random(ratios.shape) < share
        ratios += hit * rng.choice([-1.0, 1.0], ratios.shape) * size * sd
    open_ = np.ones(repeats, dtype=bool)
    outcome = {"equivalent": 0, "worse_or_better": 0, "opposite": 0}
    for look in range(1, looks + 1):
        n = pairs_per_look * look
        if n < equivalence.MIN_N:
            continue
        d, se, df = _estimates(ratios[:, :n], dip_p)
        equivalent, beyond = decisions(d, se, df, bound, per_look)
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


def _estimates(seen, dip_p):
    """(d, se, df) arrays of each row, a dip left out as a verdict does."""
    n = seen.shape[1]
    d = seen.mean(axis=1)
    se = seen.std(axis=1, ddof=1) / math.sqrt(n)
    df = np.full(len(d), n - 1.0)
    if dip_p is None:
        return d, se, df
    at, found = equivalence.dips(seen, dip_p)
    if not found.any():
        return d, se, df
    kept = seen.copy()
    kept[np.flatnonzero(found), at[found]] = np.nan
    left_d = np.nanmean(kept[found], axis=1)
    left_se = np.nanstd(kept[found], axis=1, ddof=1) / math.sqrt(n - 1)
    d[found], se[found], df[found] = left_d, left_se, n - 2.0
    return d, se, df


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
