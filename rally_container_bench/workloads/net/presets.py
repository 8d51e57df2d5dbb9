"""Named iperf3 and http tests: quick ones for tasks and CI.

iperf3: 3 s of TCP, one stream or four, either direction. http: 3 s of
wrk on a 1 KiB file with 1 or 16 connections (the kata-vs-runc HTTP study
steps the connection count; a task lists the counts it wants).
"""

from rally_container_bench.workloads.net import http
from rally_container_bench.workloads.net import iperf3

_PRESETS = {
    "iperf3-quick": (iperf3, dict(time=3)),
    "iperf3-quick-reverse": (iperf3, dict(time=3, reverse=True)),
    "iperf3-quick-4streams": (iperf3, dict(time=3, streams=4)),
    "http-quick-c1": (http, dict(connections=1, duration=3)),
    "http-quick-c16": (http, dict(connections=16, duration=3)),
}
NAMES = tuple(sorted(_PRESETS))
PREFIXES = ("iperf3-", "http-")


class PresetError(ValueError):
    """No such preset."""


def get(name):
    try:
        module, fields = _PRESETS[name]
    except KeyError:
        raise PresetError("unknown network preset %r; known: %s"
                          % (name, ", ".join(NAMES)))
    return module.from_dict(fields)
