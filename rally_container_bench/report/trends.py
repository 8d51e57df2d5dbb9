"""Drift across runs: the headline metrics' means, run after run.

Rally's own ``rally task trends`` draws each workload's durations over
tasks; this table lines the comparison report's headline metrics up the
same way (platform and concurrency as the report groups them), so a slow
slide across upgrades shows even when each run passed its gate.
"""

import collections

from rally_container_bench.report import comparison


def table(runs):
    """Rows [metric, unit, platform, concurrency, mean of run 1, ...].

    runs: [(label, document)] oldest first; a cell is None where a run
    has no such group.
    """
    means = collections.OrderedDict()
    units = {}
    for index, (_label, document) in enumerate(runs):
        report = comparison.build([document])
        headline = {m["name"] for m in report["metrics"] if m["headline"]}
        for row in report["rows"]:
            if row["metric"] not in headline or row["mean"] is None:
                continue
            key = (row["metric"], row["platform"], row["concurrency"])
            means.setdefault(key, [None] * len(runs))[index] = row["mean"]
            units[row["metric"]] = row["unit"]
    return [[metric, units[metric], platform, concurrency] + values
            for (metric, platform, concurrency), values in means.items()]


def markdown(runs):
    labels = [label for label, _ in runs]
    lines = ["| metric | unit | platform | concurrency | %s |"
             % " | ".join(labels),
             "|" + "---|" * (4 + len(labels))]
    for row in table(runs):
        cells = ["-" if v is None else "%.4g" % v for v in row[4:]]
        lines.append("| %s | %s | %s | %s | %s |"
                     % (row[0], row[1], row[2], row[3], " | ".join(cells)))
    return "\n".join(lines) + "\n"
