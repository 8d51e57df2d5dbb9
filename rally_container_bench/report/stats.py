"""The statistics of the comparison report, all from numpy and scipy.stats.

- mean, SD (n - 1), median;
- 95 % CI of the mean: Student's t interval (scipy.stats.t, standard error
  from scipy.stats.sem);
- ratio of means to the native baseline with a 95 % CI: percentile
  bootstrap over both samples (scipy.stats.bootstrap, 9999 resamples,
  fixed seed so a report is reproducible);
- significance: two-sided Mann-Whitney U (scipy.stats.mannwhitneyu, exact
  for small samples without ties) and Cliff's delta from its U statistic,
  delta = 2 U / (n1 n2) - 1 = P(x > y) - P(x < y).

Below MIN_N values a group gets no CI and no test, with the reason.
"""

import collections

import numpy as np
from scipy import stats

CONFIDENCE = 0.95
ALPHA = 1 - CONFIDENCE
MIN_N = 3
BOOTSTRAP_RESAMPLES = 9999
BOOTSTRAP_SEED = 20150601  # any fixed value; the KEK study's year

METHODS = {
    "mean_ci": "Student's t interval of the mean, 95 %",
    "ratio_ci": "percentile bootstrap of mean(platform) / mean(native), "
                "%d resamples, seed %d, 95 %%"
                % (BOOTSTRAP_RESAMPLES, BOOTSTRAP_SEED),
    "p_value": "two-sided Mann-Whitney U (scipy.stats.mannwhitneyu)",
    "cliffs_delta": "2 U / (n1 n2) - 1 from the Mann-Whitney U statistic; "
                    "> 0: platform values larger than native",
    "min_n": "no CI and no test below n = %d" % MIN_N,
}

Summary = collections.namedtuple(
    "Summary", "n mean sd median ci_low ci_high note")
Comparison = collections.namedtuple(
    "Comparison",
    "ratio ratio_ci_low ratio_ci_high p_value cliffs_delta verdict note")

NO_COMPARISON = Comparison(None, None, None, None, None, None, None)


def summarize(values):
    values = np.asarray(values, dtype=float)
    n = len(values)
    if n == 0:
        return Summary(0, None, None, None, None, None, "no values")
    mean = float(np.mean(values))
    median = float(np.median(values))
    if n < 2:
        return Summary(n, mean, None, median, None, None,
                       "n = 1: no SD and no CI")
    sd = float(np.std(values, ddof=1))
    if n < MIN_N:
        return Summary(n, mean, sd, median, None, None,
                       "n = %d < %d: no CI" % (n, MIN_N))
    sem = float(stats.sem(values))
    if sem == 0:
        low = high = mean
    else:
        low, high = stats.t.interval(CONFIDENCE, n - 1, loc=mean, scale=sem)
    return Summary(n, mean, sd, median, float(low), float(high), None)


def _ratio_of_means(x, y, axis=-1):
    return np.mean(x, axis=axis) / np.mean(y, axis=axis)


def compare(values, baseline, higher_is_better):
    """Comparison of values (a platform) with baseline (native)."""
    x = np.asarray(values, dtype=float)
    y = np.asarray(baseline, dtype=float)
    if len(y) == 0:
        return NO_COMPARISON._replace(note="no native baseline")
    if len(x) == 0:
        return NO_COMPARISON._replace(note="no values")
    if np.mean(y) == 0:
        return NO_COMPARISON._replace(note="native mean is 0: no ratio")
    ratio = float(_ratio_of_means(x, y))
    if min(len(x), len(y)) < MIN_N:
        return NO_COMPARISON._replace(
            ratio=ratio, note="no ratio CI and no test below n = %d" % MIN_N)
    ci = stats.bootstrap(
        (x, y), _ratio_of_means, n_resamples=BOOTSTRAP_RESAMPLES,
        confidence_level=CONFIDENCE, method="percentile",
        rng=np.random.default_rng(BOOTSTRAP_SEED), vectorized=True,
    ).confidence_interval
    test = stats.mannwhitneyu(x, y, alternative="two-sided")
    delta = 2.0 * float(test.statistic) / (len(x) * len(y)) - 1.0
    p_value = float(test.pvalue)
    return Comparison(ratio, float(ci.low), float(ci.high), p_value, delta,
                      verdict(ratio, p_value, higher_is_better), None)


def verdict(ratio, p_value, higher_is_better):
    """"better", "worse" (p < ALPHA) or "ns" (not significant)."""
    if p_value is None or p_value >= ALPHA or ratio == 1:
        return "ns"
    return "better" if (ratio > 1) == higher_is_better else "worse"
