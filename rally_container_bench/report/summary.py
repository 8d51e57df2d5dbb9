"""A plain-text summary of Rally task results (``rally task report --json``).

Pure: reads the JSON document (through report.results), knows no engine.
One row per driver and concurrency step: iterations, failures, and the
median of each phase and of sysbench cpu events/s over the iterations
that did not fail. The full statistics are the comparison report's
job; this is what a person checks first after a run.
"""

import collections
import statistics

from rally_container_bench.report import results

PHASES = ("build", "network", "delete")
CPU_METRIC = "sysbench.cpu.events_per_s"


def _median(values):
    return round(statistics.median(values), 3) if values else None


def rows(report):
    """[{platform, concurrency, iterations, failed, build_s, ...}].

    The platform is the driver a workload ran on (native for the host),
    as task files and ``--expect-platforms`` name it; a driver that ran
    on several platforms (nova) gives one row per platform label
    (nova-qemu-tcg, nova-lxc). ``labels``: the platform labels a row
    holds, which ``--expect-platforms`` takes too (nova-lxc where only
    LXC servers ran and the row is "nova").
    """
    collected = results.collect([report])
    labels = collections.defaultdict(set)
    for label, platform in collected.platforms.items():
        labels[platform.driver].add(label)

    def driver(label):
        # A driver that ran on several platforms (nova: QEMU and LXC
        # servers) is split by platform label.
        name = collected.platforms[label].driver
        return label if len(labels[name]) > 1 else name

    values = collections.defaultdict(list)
    for sample in collected.samples:
        values[(driver(sample.platform), sample.concurrency,
                sample.metric)].append(sample.value)
    iterations, failed = collections.Counter(), collections.Counter()
    held = collections.defaultdict(set)
    for (label, concurrency), count in collected.iterations.items():
        key = (driver(label), concurrency)
        iterations[key] += count
        failed[key] += collected.failed[(label, concurrency)]
        held[key].add(label)
    table = []
    for platform, concurrency in sorted(iterations):
        key = (platform, concurrency)
        row = {"platform": platform, "concurrency": concurrency,
               "iterations": iterations[key], "failed": failed[key],
               "labels": sorted(held[key])}
        for phase in PHASES:
            row[phase + "_s"] = _median(values[key + (phase,)])
        row["cpu_events_per_s"] = _median(values[key + (CPU_METRIC,)])
        table.append(row)
    return table


def format_table(summary):
    columns = ("platform", "concurrency", "iterations", "failed", "build_s",
               "network_s", "delete_s", "cpu_events_per_s")
    lines = ["  ".join("%-16s" % c if i == 0 else "%12s" % c
                       for i, c in enumerate(columns))]
    for row in summary:
        cells = []
        for i, column in enumerate(columns):
            value = row[column]
            text = "-" if value is None else str(value)
            cells.append("%-16s" % text if i == 0 else "%12s" % text)
        lines.append("  ".join(cells))
    return "\n".join(lines)
