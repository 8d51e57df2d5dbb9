"""Verdicts with a size: equivalent within a margin, or worse/better by X %.

A detectable difference is not a practical one (0.6 % at p < 0.05 is not
"better"), and no difference found is not equivalence. Each comparison of
a platform with a reference (native, or a baseline run) gets one of

- "equivalent": within +-margin, shown by two one-sided tests (TOST at
  alpha / 2 each: the 95 % CI of the ratio, the one shown, lies inside
  the margin; stricter than the usual 90 %, so every verdict reads off
  the interval displayed);
- "worse" / "better" by X % [95 % CI]: the difference is significant
  (two-sided, alpha) and its estimate lies beyond the margin;
- "inconclusive": neither, with the iterations per platform that would
  settle it at the spread observed (power 0.8).

Values are compared on the log scale (every measurement here is positive
and its effects multiplicative): the effect is the ratio of geometric
means exp(mean log x - mean log y), its CI and tests Welch's t on the
logs; the margin m is symmetric there: ratio in [1 / (1 + m), 1 + m].
Pure: numpy and scipy.stats only.
"""

import collections
import math

import numpy as np
from scipy import stats

ALPHA = 0.05
# Each one-sided test of TOST: the 95 % CI inside the margin.
EQUIVALENCE_ALPHA = ALPHA / 2
POWER = 0.8
MIN_N = 3
MAX_N = 10000
DEFAULT_MARGIN = 0.02  # KEK's resolution: "Docker is 2 % worse"

# The fewest moments of which a verdict may leave one out as a dip.
DIP_FROM = 5
# A moment is a dip of the host, left out of its cell's verdict, where
# normal noise would put one as far off the others in fewer than this
# share of cells: 10 times stricter than the one for margins
# (sequential.DIP_P), so that the error rates hold (test_sequential).
VERDICT_DIP_P = 0.001

Effect = collections.namedtuple(
    "Effect", "ratio ci_low ci_high p_value tost_p verdict needed note dip",
    defaults=(None,))
NOT_TESTED = Effect(None, None, None, None, None, None, None, None)


def _welch(x, y):
    """(d, se, df) of mean(log x) - mean(log y)."""
    lx, ly = np.log(x), np.log(y)
    d = float(np.mean(lx) - np.mean(ly))
    v1 = float(np.var(lx, ddof=1)) / len(lx)
    v2 = float(np.var(ly, ddof=1)) / len(ly)
    se = math.sqrt(v1 + v2)
    if se == 0:
        return d, 0.0, float(len(lx) + len(ly) - 2)
    df = (v1 + v2) ** 2 / (v1 ** 2 / (len(lx) - 1) + v2 ** 2 / (len(ly) - 1))
    return d, se, df


def tost_p(d, se, df, bound):
    """p of TOST for H0: |d| >= bound (the larger one-sided p)."""
    if se == 0:
        return 0.0 if abs(d) < bound else 1.0
    p_low = stats.t.sf((d + bound) / se, df)
    p_high = stats.t.cdf((d - bound) / se, df)
    return float(max(p_low, p_high))


def _usable(x, y):
    """None, or the Effect that says why x against y gets no verdict."""
    if min(len(x), len(y)) < MIN_N:
        return NOT_TESTED._replace(note="no verdict below n = %d" % MIN_N)
    if (x <= 0).any() or (y <= 0).any():
        return NOT_TESTED._replace(note="values <= 0: no ratio verdict")
    return None


def effect(values, reference, higher_is_better, margin=DEFAULT_MARGIN,
           alpha=ALPHA, moments=None, reference_moments=None):
    """The Effect of values against reference (e.g. a platform vs native).

    moments, reference_moments: when each value was measured, as in
    paired_effect. The values of one wave share their moment, so each
    moment's mean is one observation of Welch's test and ``needed`` is
    converted back to values.
    """
    x = np.asarray(values, dtype=float)
    y = np.asarray(reference, dtype=float)
    unusable = _usable(x, y)
    if unusable:
        return unusable
    values_per_moment = len(x)
    x = moment_means(x, moments)
    y = moment_means(y, reference_moments)
    per_moment = values_per_moment / len(x)
    if min(len(x), len(y)) < MIN_N:
        return NOT_TESTED._replace(
            note="no verdict below %d waves measured at once" % MIN_N)
    d, se, df = _welch(x, y)
    sd = math.sqrt((np.var(np.log(x), ddof=1)
                    + np.var(np.log(y), ddof=1)) / 2)

    def needed_at(bound):
        found = iterations_needed(sd, d, bound, alpha)
        return found and math.ceil(found * per_moment)

    return _verdict(d, se, df, higher_is_better, margin, alpha, needed_at)


def paired_effect(values, twins, higher_is_better, margin=DEFAULT_MARGIN,
                  alpha=ALPHA, moments=None):
    """The Effect of values[i] against twins[i], measured side by side.

    From the within-pair log ratios (one-sample t), so whatever moved
    both of a pair (the host's drift) cancels; ``needed`` is in pairs.
    moments[i]: when pair i was measured. The pairs of one wave (N
    instances at once, their N twins at once) share what moved the host
    in their moment, which does not cancel (their ratios correlated at
    0.5-0.7 for cpu at 2, 2026-11-30): their mean is one observation,
    so n and the t's degrees of freedom count moments, not pairs.
    """
    x = np.asarray(values, dtype=float)
    y = np.asarray(twins, dtype=float)
    unusable = _usable(x, y)
    if unusable:
        return unusable
    ratios = moment_means(np.log(x) - np.log(y), moments)
    if len(ratios) < MIN_N:
        return NOT_TESTED._replace(
            note="no verdict below %d waves measured at once" % MIN_N)
    per_moment = len(x) / len(ratios)
    dip = dip_of(ratios, VERDICT_DIP_P)
    left_out = None
    if dip is not None:
        left_out = math.expm1(ratios[dip])
        ratios = np.delete(ratios, dip)
    n = len(ratios)
    sd = float(np.std(ratios, ddof=1))
    d = float(np.mean(ratios))

    def needed_at(bound):
        found = iterations_needed(sd, d, bound, alpha, paired=True)
        return found and math.ceil(found * per_moment)

    return _verdict(d, sd / math.sqrt(n), float(n - 1), higher_is_better,
                    margin, alpha, needed_at)._replace(dip=left_out)


def dips(ratios, p):
    """Where each row of ratios (2-D) has a dip of the host, and whether.

    (index, found) arrays, one per row. A row's candidate is the ratio
    farthest off the row's others (externally studentized: its distance
    from their mean in their SD, t with n - 2 degrees of freedom); it is
    a dip where normal noise would put one that far in fewer than p of
    rows (Bonferroni over the n ratios). Rows under DIP_FROM have none.
    """
    ratios = np.atleast_2d(np.asarray(ratios, dtype=float))
    rows, n = ratios.shape
    farthest, at = np.zeros(rows), np.zeros(rows, dtype=int)
    if n < DIP_FROM:
        return at, np.zeros(rows, dtype=bool)
    for index in range(n):
        others = np.delete(ratios, index, axis=1)
        spread = others.std(axis=1, ddof=1) * math.sqrt(1 + 1 / (n - 1))
        distance = np.abs(ratios[:, index] - others.mean(axis=1))
        off = np.divide(distance, spread, out=np.zeros(rows),
                        where=spread > 0)
        further = off > farthest
        farthest = np.where(further, off, farthest)
        at = np.where(further, index, at)
    found = (farthest > 0) & (n * 2 * stats.t.sf(farthest, n - 2) < p)
    return at, found


def dip_of(ratios, p):
    """The index of the ratio (1-D) that is a dip of the host, or None."""
    at, found = dips(ratios, p)
    return int(at[0]) if found[0] else None


def moment_means(ratios, moments=None):
    """The mean of each moment's values (ratios), in order of first one.

    Without moments (or with one per value) the values themselves; a
    value whose moment is None is a moment of its own.
    """
    ratios = np.asarray(ratios, dtype=float)
    if moments is None or len(set(moments)) == len(moments):
        return ratios
    groups = {}
    for index, (ratio, moment) in enumerate(zip(ratios, moments)):
        key = (None, index) if moment is None else moment
        groups.setdefault(key, []).append(ratio)
    return np.array([np.mean(group) for group in groups.values()])


def _verdict(d, se, df, higher_is_better, margin, alpha, needed_at):
    bound = math.log1p(margin)
    half = stats.t.ppf(1 - alpha / 2, df) * se
    p_diff = (0.0 if d != 0 else 1.0) if se == 0 else float(
        2 * stats.t.sf(abs(d) / se, df))
    p_equiv = tost_p(d, se, df, bound)
    if p_equiv < alpha / 2:
        verdict = "equivalent"
    elif p_diff < alpha and abs(d) > bound:
        verdict = "better" if (d > 0) == higher_is_better else "worse"
    else:
        verdict = "inconclusive"
    needed = needed_at(bound) if verdict == "inconclusive" else None
    return Effect(math.exp(d), math.exp(d - half), math.exp(d + half),
                  p_diff, p_equiv, verdict, needed, None)


def _design(n, sd, paired):
    """(df, se) of n per group, or of n pairs (sd: of their differences)."""
    if paired:
        return n - 1, sd / math.sqrt(n)
    return 2 * n - 2, sd * math.sqrt(2.0 / n)


def tost_power(n, sd, d, bound, alpha=EQUIVALENCE_ALPHA, paired=False):
    """Power of TOST with n per group (noncentral t approximation).

    alpha: of each one-sided test.
    """
    if sd == 0:
        return 1.0 if abs(d) < bound else 0.0
    df, se = _design(n, sd, paired)
    critical = stats.t.ppf(1 - alpha, df)
    power = (stats.nct.sf(critical, df, (bound + d) / se)
             + stats.nct.sf(critical, df, (bound - d) / se) - 1)
    return max(0.0, float(power))


def difference_power(n, sd, d, alpha=ALPHA, paired=False):
    """Power of the two-sided t test of d != 0 with n per group."""
    if sd == 0:
        return 1.0
    df, se = _design(n, sd, paired)
    ncp = d / se
    critical = stats.t.ppf(1 - alpha / 2, df)
    return float(stats.nct.sf(critical, df, ncp)
                 + stats.nct.cdf(-critical, df, ncp))


def beyond_power(n, sd, d, bound, alpha=ALPHA, paired=False):
    """Chance of "worse/better": significant, estimate beyond the margin."""
    if sd == 0:
        return 1.0
    se = _design(n, sd, paired)[1]
    beyond = float(stats.norm.cdf((abs(d) - bound) / se))
    return min(difference_power(n, sd, d, alpha, paired), beyond)


def iterations_needed(sd, d, bound, alpha=ALPHA, power=POWER, paired=False):
    """Iterations per group that settle a verdict with the given power.

    Inside the margin (|d| < bound): TOST's; beyond it: the difference
    test's, with the estimate beyond the margin too. None when no number
    of iterations can (the effect sits on the margin) or more than MAX_N
    would be needed.
    """
    if abs(d) < bound:
        achieved = lambda n: tost_power(n, sd, d, bound, alpha / 2,  # noqa
                                        paired)
    elif abs(d) > bound:
        achieved = lambda n: beyond_power(n, sd, d, bound, alpha,  # noqa
                                          paired)
    else:
        return None
    low, high = 2, 2
    while achieved(high) < power:
        if high >= MAX_N:
            return None
        low, high = high, min(high * 2, MAX_N)
    while low < high:  # the smallest n reaching the power
        middle = (low + high) // 2
        if achieved(middle) >= power:
            high = middle
        else:
            low = middle + 1
    return high
