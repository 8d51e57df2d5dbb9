"""HTTP load: nginx inside the instance, wrk on the Rally host.

Pure: no I/O. As the kata-vs-runc HTTP study loads a web server in a kata or
runc container from outside: requests/s and latency percentiles of a static
file, at a given number of connections. Natively both are on the host
(loopback).
"""

import dataclasses
import re

from rally_container_bench.workloads import metrics

# name -> (unit, higher is better)
METRICS = {"requests_per_s": ("req/s", True),
           "latency_p50_ms": ("ms", False),
           "latency_p75_ms": ("ms", False),
           "latency_p90_ms": ("ms", False),
           "latency_p99_ms": ("ms", False),
           "errors": ("count", False)}
FILE_NAME = "rcbench.bin"
MAX_SIZE = 64 << 20
_UNITS_MS = {"us": 0.001, "ms": 1.0, "s": 1000.0, "m": 60000.0}
_PERCENTILE_RE = re.compile(r"^\s*(50|75|90|99)%\s+([0-9.]+)(us|ms|s|m)\s*$",
                            re.M)
_RATE_RE = re.compile(r"^Requests/sec:\s+([0-9.]+)\s*$", re.M)
_SOCKET_RE = re.compile(r"Socket errors: connect (\d+), read (\d+), "
                        r"write (\d+), timeout (\d+)")
_NON_2XX_RE = re.compile(r"Non-2xx or 3xx responses: (\d+)")


class HttpSpecError(ValueError):
    """An http test description is invalid; the text says how."""


@dataclasses.dataclass(frozen=True)
class Result:
    version: str
    metrics: dict


@dataclasses.dataclass(frozen=True)
class HttpSpec:
    """One wrk run against nginx.

    ``connections`` open connections for ``duration`` seconds, each
    request fetching a static file of ``size`` bytes.
    """

    tool = "http"

    connections: int = 8
    duration: int = 5
    size: int = 1024
    threads: int | None = None
    name: str | None = None

    def __post_init__(self):
        _check_int("connections", self.connections, 1, 10000)
        _check_int("duration", self.duration, 1, 3600)
        _check_int("size", self.size, 0, MAX_SIZE)
        if self.threads is not None:
            _check_int("threads", self.threads, 1, self.connections)
        metrics.check_name(self.name, HttpSpecError)

    @property
    def wrk_threads(self):
        """wrk needs connections >= threads; 2 threads unless told."""
        return self.threads or min(2, self.connections)

    @property
    def label(self):
        """c16 (16 connections), or the name given."""
        return self.name or "c%d" % self.connections

    def to_dict(self):
        return {k: v for k, v in dataclasses.asdict(self).items()
                if v is not None}


def from_dict(fields):
    return metrics.spec_from_dict(HttpSpec, fields, HttpSpecError,
                                  "an http test")


def nginx_conf(directory, port, address=None):
    """An nginx config serving ``directory``/www on port (of address).

    All its state is in ``directory`` (pid, logs, temp files): no system
    file is touched.
    """
    return "\n".join([
        "user root;",  # ignored (with a warning) when not run as root
        "worker_processes auto;",
        "daemon on;",
        "pid %s/nginx.pid;" % directory,
        "error_log %s/error.log;" % directory,
        "events { worker_connections 4096; }",
        "http {",
        "    access_log off;",
        "    client_body_temp_path %s/tmp;" % directory,
        "    server {",
        "        listen %s reuseport;" % (
            "%s:%d" % (address, port) if address else port),
        "        root %s/www;" % directory,
        "    }",
        "}", ""])


def wrk_argv(spec, host, port, executable="wrk"):
    url = "http://%s:%d/%s" % (host, port, FILE_NAME)
    return [executable, "--latency", "--threads", str(spec.wrk_threads),
            "--connections", str(spec.connections),
            "--duration", "%ds" % spec.duration, "--timeout", "10s", url]


def parse_nginx_version(text):
    """'nginx version: nginx/1.22.1' (nginx -v prints it on stderr)."""
    match = re.search(r"nginx/([0-9][^\s]*)", text)
    if not match:
        raise metrics.ParseError("not nginx -v output", text)
    return match.group(1)


def parse(text, version=""):
    """wrk --latency output -> Result; ParseError otherwise.

    errors: socket errors (connect, read, write, timeout) plus responses
    that were not 2xx or 3xx; wrk counts those as requests too.
    """
    rate = _RATE_RE.search(text)
    percentiles = _PERCENTILE_RE.findall(text)
    if not rate or len(percentiles) != 4:
        raise metrics.ParseError("no Requests/sec and latency distribution "
                                 "(wrk --latency) in the output", text)
    found = {"requests_per_s": metrics.measured(
        METRICS, "requests_per_s", float(rate.group(1)))}
    for percentile, value, unit in percentiles:
        name = "latency_p%s_ms" % percentile
        found[name] = metrics.measured(METRICS, name,
                                       float(value) * _UNITS_MS[unit])
    errors = sum(int(n) for n in (_SOCKET_RE.findall(text) or [()])[0])
    non_2xx = _NON_2XX_RE.search(text)
    errors += int(non_2xx.group(1)) if non_2xx else 0
    found["errors"] = metrics.measured(METRICS, "errors", float(errors))
    return Result(version=version, metrics=found)


def higher_is_better(name):
    return METRICS.get(name, ("", True))[1]


def _check_int(field, value, minimum, maximum):
    if (not isinstance(value, int) or isinstance(value, bool)
            or not minimum <= value <= maximum):
        raise HttpSpecError("%s must be an integer %d..%d, not %r"
                            % (field, minimum, maximum, value))
