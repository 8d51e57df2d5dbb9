"""fio's JSON output -> metrics with units. Pure: no I/O.

Per direction that moved data (read, write): iops, MiB/s and completion
latency percentiles; a job that reports an error is an error here.
"""

import dataclasses
import json

from rally_container_bench.workloads import metrics

# name (after "<direction>_") -> (unit, higher is better)
METRICS = {
    "iops": ("IOPS", True),
    "mib_per_s": ("MiB/s", True),
    "clat_avg_ms": ("ms", False),
    "clat_p50_ms": ("ms", False),
    "clat_p99_ms": ("ms", False),
}
DIRECTIONS = ("read", "write")
_PERCENTILES = {"clat_p50_ms": "50.000000", "clat_p99_ms": "99.000000"}


ParseError = metrics.ParseError
Metric = metrics.Metric


@dataclasses.dataclass(frozen=True)
class Result:
    version: str
    metrics: dict


def higher_is_better(name):
    _direction, _, metric = name.partition("_")
    return METRICS.get(metric, ("", True))[1]


def parse(text):
    """fio --output-format=json stdout -> Result; ParseError otherwise.

    fio may print notes before the JSON document: they are skipped.
    """
    start = (text or "").find("{")
    if start < 0:
        raise ParseError("no JSON document in fio's output", text)
    try:
        document = json.loads(text[start:])
        job = document["jobs"][0]
    except (ValueError, KeyError, IndexError, TypeError) as e:
        raise ParseError("fio's JSON output is unreadable: %s" % e, text)
    if job.get("error"):
        raise ParseError("fio job failed with error %s" % job["error"], text)
    metrics = {}
    for direction in DIRECTIONS:
        stats = job.get(direction) or {}
        if not stats.get("io_bytes"):
            continue
        metrics.update(_direction_metrics(direction, stats))
    if not metrics:
        raise ParseError("fio moved no data", text)
    version = str(document.get("fio version", "")).replace("fio-", "")
    return Result(version=version, metrics=metrics)


def _direction_metrics(direction, stats):
    bytes_per_s = stats.get("bw_bytes", stats.get("bw", 0) * 1024)
    values = {"iops": stats["iops"], "mib_per_s": bytes_per_s / (1 << 20)}
    clat = stats.get("clat_ns") or {}
    if "mean" in clat:
        values["clat_avg_ms"] = clat["mean"] / 1e6
    percentiles = clat.get("percentile") or {}
    for name, key in _PERCENTILES.items():
        if key in percentiles:
            values[name] = percentiles[key] / 1e6
    return {"%s_%s" % (direction, name):
            metrics.measured(METRICS, name, round(float(value), 4))
            for name, value in values.items()}
