"""Every platform against native: one row per metric x platform x concurrency.

Reads Rally's exported results (report.results), computes the statistics
(report.stats) and returns a plain dict that the renderers (HTML, CSV,
JSON, Markdown) write out. Knows no engine.
"""

import collections
import datetime

from rally_container_bench.report import results
from rally_container_bench.report import stats

NATIVE = "native"
PHASE_ORDER = ("build", "network", results.BUILD_NETWORK, "delete",
               # ContainerLifecycle's verbs (seed 000's ptcr table)
               "create", "start", "stop", "remove", "run")
CSV_COLUMNS = ("metric", "unit", "platform", "concurrency", "n", "failed",
               "mean", "sd", "median", "ci_low", "ci_high",
               "ratio_to_native", "ratio_ci_low", "ratio_ci_high",
               "p_value", "cliffs_delta")
EXTRA_COLUMNS = ("higher_is_better", "verdict", "iterations", "note")
ENVIRONMENT_KEYS = (
    ("driver", "driver"), ("runtime", "runtime"),
    ("acceleration", "acceleration"),
    ("acceleration_reason", "why this acceleration"),
    ("engine_version", "engine version"), ("image", "image"),
    ("network", "network"), ("tuning", "tuning"), ("cpuset", "cpuset"),
    ("workdir", "work directory"), ("workdir_fs", "its filesystem"),
    ("vcpus", "vCPUs"),
    ("memory_mb", "memory (MiB)"), ("sysbench_version", "sysbench"),
    ("fio_version", "fio"), ("iperf3_version", "iperf3"),
    ("nginx_version", "nginx"),
    ("host_cpu_model", "host CPU"), ("host_cpus", "host cores"),
    ("host_kernel", "host kernel"), ("host", "host"))
# Results written before the host_* keys existed name them this way.
_OLD_ENVIRONMENT_KEYS = {"host_cpu_model": "cpu_model", "host_cpus": "cpus",
                         "host_kernel": "kernel"}


def build(documents, title=None):
    """The comparison of the Rally task results in documents."""
    collected = results.collect(documents)
    metrics = _metrics(collected.samples)
    values = collections.defaultdict(list)
    for sample in collected.samples:
        values[(sample.metric, sample.platform, sample.concurrency)].append(
            sample.value)
    rows = []
    for metric in metrics:
        platforms = {label for (name, label, _) in values
                     if name == metric["name"]}
        for label in collected.platforms:
            if label not in platforms:
                continue
            for concurrency in _steps(collected, label):
                if not values.get((metric["name"], label, concurrency)) \
                        and not collected.failed[(label, concurrency)]:
                    continue  # e.g. a footprint (concurrency 1 only)
                rows.append(_row(metric, label, concurrency, values,
                                 collected))
    return {
        "title": title or "Native vs VMs vs containers",
        "generated_at": datetime.datetime.now(datetime.timezone.utc)
                                         .strftime("%Y-%m-%d %H:%M UTC"),
        "methods": dict(stats.METHODS, alpha=stats.ALPHA),
        "baseline": NATIVE,
        "platforms": [_platform(label, platform, collected)
                      for label, platform in collected.platforms.items()],
        "concurrency": sorted({c for (_, c) in collected.iterations}),
        "metrics": metrics,
        "rows": rows,
        "tasks": collected.tasks,
        "warnings": _warnings(collected),
    }


def _steps(collected, label):
    return sorted(c for (name, c) in collected.iterations if name == label)


def _metrics(samples):
    found = {}
    for sample in samples:
        found.setdefault(sample.metric, {
            "name": sample.metric, "unit": sample.unit,
            "higher_is_better": sample.higher_is_better,
            "kind": ("workload" if sample.metric.startswith(
                results.WORKLOAD_METRIC_PREFIXES) else "phase"),
            "all_zero": True})
        if sample.value != 0:
            found[sample.metric]["all_zero"] = False
    for metric in found.values():
        metric["headline"] = not metric["all_zero"] and (
            metric["name"] in PHASE_ORDER
            or metric["name"].startswith("footprint.") or (
                metric["kind"] == "workload" and metric["unit"].endswith("/s")
                and metric["higher_is_better"]))
    order = list(found)  # first appearance: the task's order of tests

    def key(name):
        if name in PHASE_ORDER:
            return (0, PHASE_ORDER.index(name), 0)
        if found[name]["kind"] == "phase":
            return (1, 0, name)
        test = name.rsplit(".", 1)[0]
        first = min(order.index(n) for n in order
                    if n.rsplit(".", 1)[0] == test)
        return (2, first, name)
    return [found[name] for name in sorted(found, key=key)]


def _row(metric, label, concurrency, values, collected):
    name = metric["name"]
    own = values.get((name, label, concurrency), [])
    summary = stats.summarize(own)
    if label == NATIVE:
        comparison = stats.NO_COMPARISON._replace(note="the baseline")
    else:
        comparison = stats.compare(
            own, values.get((name, NATIVE, concurrency), []),
            metric["higher_is_better"])
    notes = [n for n in (summary.note, comparison.note) if n]
    failed = collected.failed[(label, concurrency)]
    if failed:
        notes.insert(0, "%d failed iteration(s) left out" % failed)
    return {
        "metric": name, "unit": metric["unit"], "platform": label,
        "concurrency": concurrency, "n": summary.n, "failed": failed,
        "mean": summary.mean, "sd": summary.sd, "median": summary.median,
        "ci_low": summary.ci_low, "ci_high": summary.ci_high,
        "ratio_to_native": comparison.ratio,
        "ratio_ci_low": comparison.ratio_ci_low,
        "ratio_ci_high": comparison.ratio_ci_high,
        "p_value": comparison.p_value,
        "cliffs_delta": comparison.cliffs_delta,
        "higher_is_better": metric["higher_is_better"],
        "verdict": comparison.verdict,
        "iterations": collected.iterations[(label, concurrency)],
        "note": "; ".join(notes),
    }


def _platform(label, platform, collected):
    environment = dict(collected.environments.get(label, {}))
    for new, old in _OLD_ENVIRONMENT_KEYS.items():
        if new not in environment and old in environment:
            environment[new] = environment[old]
    facts = [(title, environment[key]) for key, title in ENVIRONMENT_KEYS
             if environment.get(key) not in (None, "")]
    return {"label": label, "driver": platform.driver,
            "runtime": platform.runtime,
            "acceleration": platform.acceleration, "environment": facts}


def _warnings(collected):
    warnings = []
    for (label, concurrency), failed in sorted(collected.failed.items()):
        warnings.append(
            "%s at concurrency %s: %d of %d iterations failed; they are "
            "counted in 'failed' and left out of every statistic"
            % (label, concurrency, failed,
               collected.iterations[(label, concurrency)]))
    if NATIVE not in collected.platforms:
        warnings.append("no native baseline in these results: no ratios")
    return warnings


def rows_for(report, metric=None, platform=None, concurrency=None):
    return [row for row in report["rows"]
            if (metric is None or row["metric"] == metric)
            and (platform is None or row["platform"] == platform)
            and (concurrency is None or row["concurrency"] == concurrency)]
