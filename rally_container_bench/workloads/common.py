"""What the workload tools share: the Tool protocol, a test's Job and
TestRun, the instance's clock stamp. No Rally import, no engine: a tool
runs through any Executor it is given.
"""

import abc
import contextlib
import dataclasses
import re


class WorkloadError(Exception):
    """A workload could not run or its output could not be read.

    ``raw`` holds the output (stdout and stderr) where there was one.
    An engine's own failure (base.DriverError: a command timed out, SSH
    went away) is not one: it fails the iteration, not just the test.
    """

    def __init__(self, message, raw=None):
        super().__init__(message)
        self.raw = raw


@dataclasses.dataclass(frozen=True)
class TestRun:
    """One test's result; ``result.metrics``: name -> Metric(value, unit).

    started_inside: the instance's clock (epoch seconds) when the tool
    started, where the command was stamped (see ``stamped``).
    """

    spec: object
    command: str
    result: object
    started_inside: float = None


# The instance's clock just before the tool starts, on a line of its own:
# what the Rally host times also holds the command's dispatch (an SSH
# channel, a docker exec), which under 32 at once on 2 cores is seconds.
_STAMP = 'date +%s.%N; exec "$@"'
_STAMP_LINE = re.compile(r"^(\d+\.\d+)\n")
# A date without %N (busybox) prints it literally: no stamp, line dropped.
_UNREADABLE_STAMP_LINE = re.compile(r"^\d+\.[^\n]*\n")
# The same, first sleeping until $1 (epoch ms on the instance's clock),
# at most $2 ms: a clock read wrongly must not stall a test. Integer
# arithmetic only (sh has no other); no wait where date lacks %N.
_STAMP_AT = (
    'now=$(date +%s%N); case $now in *[!0-9]*) now=;; esac; '
    'if [ -n "$now" ]; then w=$(($1 - now / 1000000)); '
    '[ "$w" -gt "$2" ] && w=$2; '
    '[ "$w" -gt 0 ] && sleep "$((w / 1000)).$(printf %03d $((w % 1000)))"; '
    'fi; shift 2; ' + _STAMP)


def stamped(argv, start=None):
    """argv run by sh after the instance's clock is printed.

    start: a Start, where the tool starts at a given moment, not before.
    """
    if start is None:
        return ["sh", "-c", _STAMP, "sh"] + list(argv)
    return ["sh", "-c", _STAMP_AT, "sh", str(int(start.at * 1000)),
            str(int(start.at_most * 1000))] + list(argv)


def split_stamp(stdout):
    """(started_inside or None, the tool's own stdout) of a stamped run."""
    match = _STAMP_LINE.match(stdout)
    if match:
        return float(match.group(1)), stdout[match.end():]
    match = _UNREADABLE_STAMP_LINE.match(stdout)
    return None, stdout[match.end():] if match else stdout


@dataclasses.dataclass(frozen=True)
class Start:
    """A scheduled start of a stamped run.

    at: the instance's clock (epoch seconds) the tool starts at; at_most:
    the longest it waits for it (a clock read wrongly must not stall a
    test).
    """

    at: float
    at_most: float


def untimed(label):
    return contextlib.nullcontext()


@dataclasses.dataclass(frozen=True)
class Job:
    """Where and how one test runs.

    executor: inside the instance (or on the host, for a native run);
    sysbench: sysbench's path there (the other tools are on PATH);
    version: the tool's version there (Tool.version); endpoint(port) ->
    base.Endpoint: where this host reaches a server listening on that
    port inside (network tools), None where it cannot; client: the
    Executor on this host that runs a network tool's client; timed(label):
    the context put around the measured step only; stamp: read the
    instance's clock just before the tool starts; start: a Start, when
    the tool starts at a given moment (a stamped run only); prepared:
    what the test needs before its measured part is there already
    (Tool.prepare ran).
    """

    executor: object
    workdir: str
    timeout: float
    version: str = None
    sysbench: str = "sysbench"
    endpoint: object = None
    client: object = None
    timed: object = untimed
    stamp: bool = False
    start: object = None
    prepared: bool = False


class Tool(abc.ABC):
    """One workload tool, as the rest of the package asks about it.

    Scenarios, validators, the guest image's check and the report ask;
    workloads/tools.py holds the registry.
    """

    #: the name in tests lists, metric names and table titles
    name = None
    #: the program whose version the results record (a server's, where
    #: the tool is its client)
    versioned = None
    #: measured in pairs with a native twin, and re-measured when disturbed
    paired = False
    #: the port a server of the tool listens on inside an instance
    port = None
    #: (executable, Debian package) the tool runs inside an instance
    inside = ()
    #: (executable, Debian package) it always runs on the Rally host
    client = ()
    #: its preset names, in ``rcbench presets`` order
    presets = ()
    #: the errors its spec parsing raises (ValueErrors)
    spec_errors = ()
    #: a test mapping of this tool is {name: {...}}; sysbench's (the
    #: default) is the bare mapping
    keyed = True
    #: the option that gives its path, where one does (then the scenario
    #: checks it, not the tests' validator)
    path_option = None
    #: runs from a shell script whose output is read back afterwards
    #: (Zun's via: logs)
    scripted = False

    @property
    def program(self):
        """The program whose version is recorded: "nginx" for http."""
        return self.versioned or self.name

    @property
    def version_key(self):
        """The environment entry of its version: "sysbench_version"."""
        return "%s_version" % self.program

    @abc.abstractmethod
    def preset(self, name):
        """The spec of one of its presets."""

    @abc.abstractmethod
    def from_dict(self, fields):
        """A spec from a test mapping's fields."""

    @abc.abstractmethod
    def higher_is_better(self, metric):
        """Direction of one of its metrics (its name without the tool)."""

    def file_bytes(self, spec):
        """Bytes of files the test writes in the work directory."""
        return 0

    @abc.abstractmethod
    def version(self, executor, sysbench, timeout):
        """The tool's version where executor runs; WorkloadError if none."""

    def prepare(self, spec, job):
        """Lay out what the test needs before its measured part.

        Whether there was anything to lay out (then run it with
        job.prepared); WorkloadError where it failed. Nothing by default.
        """
        return False

    @abc.abstractmethod
    def run(self, spec, job):
        """Run one test; a TestRun, or WorkloadError."""
