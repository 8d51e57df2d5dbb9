"""iperf3 between the Rally host and an instance: spec, argv, parsing.

Pure: no I/O. The server runs inside the instance (one test, then it
exits); the client runs on the Rally host, so "to-instance" is the host
sending and "from-instance" (iperf3 -R) the instance sending. Natively,
both ends are the host (loopback): the baseline.
"""

import dataclasses
import json

from rally_container_bench.workloads import metrics

# name -> (unit, higher is better)
METRICS = {"throughput_gbit_s": ("Gbit/s", True),
           "retransmits": ("count", False)}
MAX_STREAMS = 128


class Iperf3SpecError(ValueError):
    """An iperf3 test description is invalid; the text says how."""


@dataclasses.dataclass(frozen=True)
class Result:
    version: str
    metrics: dict


@dataclasses.dataclass(frozen=True)
class Iperf3Spec:
    """One TCP test: ``streams`` parallel streams for ``time`` seconds."""

    tool = "iperf3"

    streams: int = 1
    reverse: bool = False
    time: int = 5
    name: str | None = None

    def __post_init__(self):
        _check_int("streams", self.streams, 1, MAX_STREAMS)
        _check_int("time", self.time, 1, 3600)
        if not isinstance(self.reverse, bool):
            raise Iperf3SpecError("reverse must be true or false, not %r"
                                  % (self.reverse,))
        metrics.check_name(self.name, Iperf3SpecError)

    @property
    def label(self):
        """to-instance, from-instance-4streams, or the name given."""
        if self.name:
            return self.name
        direction = "from-instance" if self.reverse else "to-instance"
        if self.streams == 1:
            return direction
        return "%s-%dstreams" % (direction, self.streams)

    def to_dict(self):
        return {k: v for k, v in dataclasses.asdict(self).items()
                if v is not None}


def from_dict(fields):
    return metrics.spec_from_dict(Iperf3Spec, fields, Iperf3SpecError,
                                  "an iperf3 test")


def server_argv(port, pidfile, executable="iperf3", address=None):
    """A daemon serving one test on port (of address, else all), once."""
    argv = [executable, "--server", "--one-off", "--daemon",
            "--port", str(port), "--pidfile", pidfile]
    return argv + (["--bind", address] if address else [])


def client_argv(spec, host, port, executable="iperf3"):
    argv = [executable, "--client", host, "--port", str(port), "--json",
            "--time", str(spec.time), "--parallel", str(spec.streams)]
    if spec.reverse:
        argv.append("--reverse")
    return argv


def parse_version(text):
    """'iperf 3.12 (cJSON 1.7.15)' -> '3.12'."""
    words = text.split()
    if len(words) < 2 or words[0] != "iperf":
        raise metrics.ParseError("not iperf3 --version output", text)
    return words[1]


def parse(text):
    """The client's --json output -> Result; ParseError otherwise."""
    try:
        document = json.loads(text)
    except ValueError as e:
        raise metrics.ParseError("not JSON: %s" % e, text)
    if not isinstance(document, dict):
        raise metrics.ParseError("not an iperf3 JSON document", text)
    if document.get("error"):
        raise metrics.ParseError("iperf3: %s" % document["error"], text)
    end = document.get("end") or {}
    received = end.get("sum_received") or {}
    if "bits_per_second" not in received:
        raise metrics.ParseError("no end.sum_received in the output", text)
    found = {"throughput_gbit_s": metrics.measured(
        METRICS, "throughput_gbit_s", received["bits_per_second"] / 1e9)}
    # Only the sender knows its retransmits (Linux TCP_INFO): in reverse
    # mode iperf3 3.x reports the server's.
    sent = end.get("sum_sent") or {}
    if "retransmits" in sent:
        found["retransmits"] = metrics.measured(
            METRICS, "retransmits", float(sent["retransmits"]))
    version = (document.get("start") or {}).get("version", "")
    return Result(version=version.replace("iperf ", ""), metrics=found)


def higher_is_better(name):
    return METRICS.get(name, ("", True))[1]


def _check_int(field, value, minimum, maximum):
    if (not isinstance(value, int) or isinstance(value, bool)
            or not minimum <= value <= maximum):
        raise Iperf3SpecError("%s must be an integer %d..%d, not %r"
                              % (field, minimum, maximum, value))
