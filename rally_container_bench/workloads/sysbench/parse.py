"""sysbench output text -> metrics with units, for 0.4.x and 1.0.x.

Pure: no I/O. A metric is present only when the output states it (or, for
0.4's fileio throughput, states the bytes it derives from). 0.4 prints
"MB/sec" and "Mb/sec" where it means MiB: its sizes are powers of 1024
(sb_print_value_size divides by 1024), which the golden tests check
against the bytes moved.
"""

import dataclasses
import re

from rally_container_bench.workloads import metrics
from rally_container_bench.workloads.sysbench import command

# name -> (unit, higher is better)
METRICS = {
    "events_per_s": ("events/s", True),
    "total_time_s": ("s", False),
    "latency_min_ms": ("ms", False),
    "latency_avg_ms": ("ms", False),
    "latency_max_ms": ("ms", False),
    "latency_p95_ms": ("ms", False),
    "ops_per_s": ("ops/s", True),
    "mib_per_s": ("MiB/s", True),
    "requests_per_s": ("requests/s", True),
    "reads_per_s": ("reads/s", True),
    "writes_per_s": ("writes/s", True),
    "fsyncs_per_s": ("fsyncs/s", True),
    "read_mib_per_s": ("MiB/s", True),
    "written_mib_per_s": ("MiB/s", True),
}

_NUMBER = r"([0-9]+(?:\.[0-9]+)?(?:e[+-]?[0-9]+)?)"
_FILE_MODES = {
    "sequential write (creation)": "seqwr",
    "sequential rewrite": "seqrewr",
    "sequential read": "seqrd",
    "random read": "rndrd",
    "random write": "rndwr",
    "random r/w": "rndrw",
}
_TEST_MARKERS = (
    ("cpu", re.compile(r"Doing CPU performance benchmark|"
                       r"^Prime numbers limit:", re.M)),
    ("memory", re.compile(r"Doing memory operations speed test|"
                          r"^Running memory speed test", re.M)),
    ("fileio", re.compile(r"^Extra file open flags:", re.M)),
)
_MODE_RE = re.compile(r"^Doing (.+) test$", re.M)
_MEMORY_OPER_RE = re.compile(
    r"^\s*(?:Memory operations type|operation):\s+(\w+)", re.M)
_THREADS_RE = re.compile(r"^Number of threads:\s+(\d+)", re.M)
# One metric stated on one line: (name, pattern whose last group is it).
_SIMPLE = (
    ("total_time_s", r"^\s*total time:\s+%ss$"),
    ("events_per_s", r"^\s*events per second:\s+%s$"),
    ("latency_min_ms", r"^\s*min:\s+%s(?:ms)?$"),
    ("latency_avg_ms", r"^\s*avg:\s+%s(?:ms)?$"),
    ("latency_max_ms", r"^\s*max:\s+%s(?:ms)?$"),
    ("ops_per_s", r"^(?:Operations performed|Total operations): \d+ "
                  r"\(\s*%s (?:ops/sec|per second)\)"),
    ("mib_per_s", r"^\s*[0-9.]+ Mi?B transferred \(\s*%s Mi?B/sec\)"),
    ("requests_per_s", r"^\s*%s Requests/sec executed"),
    ("reads_per_s", r"^\s*reads/s:\s+%s$"),
    ("writes_per_s", r"^\s*writes/s:\s+%s$"),
    ("fsyncs_per_s", r"^\s*fsyncs/s:\s+%s$"),
    ("read_mib_per_s", r"^\s*read, MiB/s:\s+%s$"),
    ("written_mib_per_s", r"^\s*written, MiB/s:\s+%s$"),
)
_SIMPLE_RES = tuple((name, re.compile(pattern % _NUMBER, re.M))
                    for name, pattern in _SIMPLE)
_PERCENTILE_RE = re.compile(
    r"^\s*(?:approx\.\s+(\d+) percentile|(\d+)th percentile):\s+%s(?:ms)?$"
    % _NUMBER, re.M)
# 0.4 fileio: "... Total transferred 158.82Mb  (79.407Mb/sec)"
_LEGACY_FILE_RATE_RE = re.compile(
    r"Total transferred \S+b\s+\(%s([KMGT]?)b/sec\)" % _NUMBER)
_BINARY = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}


ParseError = metrics.ParseError
Metric = metrics.Metric


@dataclasses.dataclass(frozen=True)
class Result:
    version: str
    test: str
    threads: int | None
    # fileio test mode (seqrd, ...) or memory operation (read, write).
    mode: str | None
    metrics: dict

    def to_json_dict(self):
        """The form ``rcbench sysbench-parse`` prints."""
        return {
            "version": self.version,
            "test": self.test,
            "metrics": {name: {"value": m.value, "unit": m.unit}
                        for name, m in self.metrics.items()},
        }


def parse(text):
    """Parse the output of one ``sysbench ... run``."""
    try:
        version = command.parse_version(text)
    except command.VersionError:
        raise ParseError("no sysbench version header in the output", text)
    test = _detect_test(text)
    values = {}
    for name, regex in _SIMPLE_RES:
        match = regex.search(text)
        if match:
            values[name] = float(match.group(1))
    values.update(_percentile(text))
    if test == "fileio":
        values.update(_legacy_fileio_rate(text))
    if "total_time_s" not in values:
        raise ParseError("no 'total time' in the sysbench %s output (did the "
                         "run fail?)" % test, text)
    metrics = {name: Metric(value, unit(name), higher_is_better(name))
               for name, value in values.items()}
    return Result(version=version, test=test, threads=_threads(text),
                  mode=_mode(text, test), metrics=metrics)


def higher_is_better(name):
    if name in METRICS:
        return METRICS[name][1]
    return not name.startswith("latency_")


def unit(name):
    """Unit of a metric name, including latency_pNN_ms."""
    if name in METRICS:
        return METRICS[name][0]
    if name.startswith("latency_"):
        return "ms"
    raise KeyError(name)


def _detect_test(text):
    for test, marker in _TEST_MARKERS:
        if marker.search(text):
            return test
    raise ParseError("cannot tell which sysbench test (cpu, memory, fileio) "
                     "produced this output", text)


def _threads(text):
    match = _THREADS_RE.search(text)
    return int(match.group(1)) if match else None


def _mode(text, test):
    if test == "fileio":
        match = _MODE_RE.search(text)
        return _FILE_MODES.get(match.group(1)) if match else None
    if test == "memory":
        match = _MEMORY_OPER_RE.search(text)
        return match.group(1) if match else None
    return None


def _percentile(text):
    match = _PERCENTILE_RE.search(text)
    if not match:
        return {}
    rank = match.group(1) or match.group(2)
    return {"latency_p%s_ms" % rank: float(match.group(3))}


def _legacy_fileio_rate(text):
    match = _LEGACY_FILE_RATE_RE.search(text)
    if not match:
        return {}
    rate_bytes = float(match.group(1)) * _BINARY[match.group(2)]
    return {"mib_per_s": rate_bytes / _BINARY["M"]}
