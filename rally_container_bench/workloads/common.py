"""What the workload runners (sysbench, fio) share. No Rally import."""

import contextlib
import dataclasses

from rally_container_bench.drivers import base


class WorkloadError(base.DriverError):
    """A workload could not run or its output could not be read.

    ``raw`` holds the output (stdout and stderr) where there was one.
    """

    def __init__(self, message, raw=None):
        super().__init__(message)
        self.raw = raw


@dataclasses.dataclass(frozen=True)
class TestRun:
    """One test's result; ``result.metrics``: name -> Metric(value, unit)."""

    spec: object
    command: str
    result: object


def untimed(label):
    return contextlib.nullcontext()
