"""What the workload runners (sysbench, fio) share. No Rally import."""

import contextlib
import dataclasses
import re

from rally_container_bench.core import base


class WorkloadError(base.DriverError):
    """A workload could not run or its output could not be read.

    ``raw`` holds the output (stdout and stderr) where there was one.
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


def stamped(argv):
    """argv run by sh after the instance's clock is printed."""
    return ["sh", "-c", _STAMP, "sh"] + list(argv)


def split_stamp(stdout):
    """(started_inside or None, the tool's own stdout) of a stamped run."""
    match = _STAMP_LINE.match(stdout)
    if match:
        return float(match.group(1)), stdout[match.end():]
    match = _UNREADABLE_STAMP_LINE.match(stdout)
    return None, stdout[match.end():] if match else stdout


def untimed(label):
    return contextlib.nullcontext()
