"""The host's drift between runs, from a job's earlier runs: the floor a
gate's comparison needs so that drift alone does not fail it.

Within one run the permutation test sees only that run's spread. Two runs
hours apart also differ by what moved the host between them: on a 2-core
VM native's level moved between consecutive quickstart runs by up to 8 %
(cpu at 2) and 7 % (memory read), and boot-and-delete by up to 21 %, at
p < 0.05 each time, with the same engines and tests (2026-12-07). No
number of iterations inside a run shows that; the runs before it do.

Each earlier run gives one value per gated cell: the mean log of what the
gate compares there (its level, or its ratios to its native twins where
paired, report.diff). The drift is read from the differences between
consecutive runs, not from the runs' spread: one step in the series (a
real regression that stayed) is one large difference, not a spread that
grows with every run after it and would hide the step from then on. The
floor holds a one-sided 95 % of pure drift between two runs: t(0.95,
d - 1) times the SD of the d differences. Their median absolute
deviation instead held too little: the drift comes in rare large jumps
(native memory read over 39 consecutive A/A runs: 4 of 34 failed with
it, 11.8 %). Fewer than MIN_RUNS runs of a cell: no floor, its threshold
alone. Pure: numpy and scipy.stats.
"""

import collections
import math

import numpy as np
from scipy import stats

MIN_RUNS = 6
LEVEL, PAIRED = "level", "paired"

# floor: a fraction (0.09 = 9 %); sd: of the log differences between
# consecutive runs; runs: how many runs it came from
Drift = collections.namedtuple("Drift", "floor sd runs")


def run_means(levels, pairs):
    """{(kind, key): mean log} of one run (report.diff.gated_values)."""
    found = {}
    for kind, series in ((LEVEL, levels), (PAIRED, pairs)):
        for key, values in series.items():
            values = np.asarray(values, dtype=float)
            if len(values) and (values > 0).all():
                found[(kind, key)] = float(np.mean(np.log(values)))
    return found


def floors(runs, min_runs=MIN_RUNS):
    """{(kind, key): Drift} from earlier runs' run_means, oldest first."""
    series = collections.defaultdict(list)
    for means in runs:
        for cell, value in means.items():
            series[cell].append(value)
    found = {}
    for cell, values in series.items():
        if len(values) < max(min_runs, 3):
            continue
        sd = float(np.std(np.diff(values), ddof=1))
        found[cell] = Drift(
            math.expm1(stats.t.ppf(0.95, len(values) - 2) * sd), sd,
            len(values))
    return found
