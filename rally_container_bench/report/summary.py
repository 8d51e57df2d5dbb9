"""A plain-text summary of Rally task results (``rally task report --json``).

Pure: reads the JSON document, knows no engine. One row per platform and
concurrency step: iterations, failures, and the median of each phase and
of sysbench cpu events/s. The full statistics are the comparison report's
job; this is what a person checks first after a run.
"""

import statistics

PHASES = ("build", "network", "delete")
CPU_ROW = "events_per_s (events/s)"


def _platform(scenario, args):
    """The driver a workload ran on: its ``driver`` argument, or native."""
    if args.get("driver"):
        return args["driver"]
    return "native" if scenario.startswith("NativeHost.") else scenario


def _median(values):
    return round(statistics.median(values), 3) if values else None


def rows(report):
    """[{platform, concurrency, iterations, failed, build_s, ...}]."""
    groups = {}
    for task in report.get("tasks", []):
        for subtask in task.get("subtasks", []):
            for workload in subtask.get("workloads", []):
                scenario, args = next(iter(workload["scenario"].items()))
                platform = _platform(scenario, args or {})
                runner = next(iter(workload["runner"].values()))
                concurrency = runner.get("concurrency", 1)
                for iteration in workload.get("data", []):
                    key = (platform, concurrency)
                    group = groups.setdefault(key, {
                        "iterations": 0, "failed": 0,
                        "phases": {p: [] for p in PHASES}, "cpu": []})
                    group["iterations"] += 1
                    if iteration.get("error"):
                        group["failed"] += 1
                    for action in iteration.get("atomic_actions", []):
                        if action["name"] in PHASES and \
                                action.get("finished_at"):
                            group["phases"][action["name"]].append(
                                action["finished_at"] - action["started_at"])
                    for table in iteration.get("output", {}).get(
                            "additive", []):
                        if table.get("title") == "sysbench cpu":
                            value = dict(table["data"]).get(CPU_ROW)
                            if value is not None:
                                group["cpu"].append(value)
    result = []
    for (platform, concurrency), group in sorted(groups.items()):
        row = {"platform": platform, "concurrency": concurrency,
               "iterations": group["iterations"], "failed": group["failed"]}
        for phase in PHASES:
            row[phase + "_s"] = _median(group["phases"][phase])
        row["cpu_events_per_s"] = _median(group["cpu"])
        result.append(row)
    return result


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
