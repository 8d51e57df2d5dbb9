"""What one fio job is: a validated, immutable description.

Pure: no I/O. The alternative to sysbench fileio for users who prefer fio:
one job on one file in the work directory, O_DIRECT by default (as the
sysbench fileio presets), group reporting, JSON output.
"""

import dataclasses
import re

from rally_container_bench.workloads import metrics

RW_MODES = ("read", "write", "randread", "randwrite", "readwrite", "randrw")
MIXED_MODES = ("readwrite", "randrw")
IO_ENGINES = ("psync", "sync", "libaio", "io_uring", "posixaio", "mmap")
_SIZE_RE = re.compile(r"^[1-9][0-9]*[kKmMgG]?$")
_SIZE_FACTORS = {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30}


class FioSpecError(ValueError):
    """A fio job description is invalid; the text says how."""


def size_in_bytes(size):
    """'4k' -> 4096 (fio's binary suffixes, any case)."""
    suffix = size[-1].lower() if size[-1].isalpha() else ""
    number = size[:-1] if suffix else size
    return int(number) * _SIZE_FACTORS[suffix]


@dataclasses.dataclass(frozen=True)
class FioSpec:
    """One fio job.

    ``runtime`` (seconds) makes the job time-based: it repeats over the
    file until then; without it the job moves ``size`` once (fixed work).
    """

    tool = "fio"

    rw: str
    bs: str = "4k"
    size: str = "64M"
    runtime: int | None = None
    iodepth: int = 1
    numjobs: int = 1
    direct: bool = True
    ioengine: str = "psync"
    rwmixread: int | None = None
    name: str | None = None

    def __post_init__(self):
        _check_choice("rw", self.rw, RW_MODES)
        _check_choice("ioengine", self.ioengine, IO_ENGINES)
        for field in ("bs", "size"):
            value = getattr(self, field)
            if not isinstance(value, str) or not _SIZE_RE.match(value):
                raise FioSpecError("%s must be a size such as 4k or 64M, "
                                   "not %r" % (field, value))
        if size_in_bytes(self.bs) > size_in_bytes(self.size):
            raise FioSpecError("bs %s is larger than size %s"
                               % (self.bs, self.size))
        _check_int("runtime", self.runtime, 1, optional=True)
        _check_int("iodepth", self.iodepth, 1)
        _check_int("numjobs", self.numjobs, 1)
        if not isinstance(self.direct, bool):
            raise FioSpecError("direct must be true or false, not %r"
                               % (self.direct,))
        if self.rwmixread is not None:
            if self.rw not in MIXED_MODES:
                raise FioSpecError("rwmixread applies to rw %s only"
                                   % " or ".join(MIXED_MODES))
            _check_int("rwmixread", self.rwmixread, 0, maximum=100)
        metrics.check_name(self.name, FioSpecError)

    @property
    def label(self):
        """randread, or the name given: the report's fio.<label>."""
        return self.name or self.rw

    def to_dict(self):
        return {key: value for key, value in dataclasses.asdict(self).items()
                if value is not None}


def from_dict(fields):
    if isinstance(fields, dict) and fields and "rw" not in fields:
        raise FioSpecError("a fio job needs rw (one of %s)"
                           % ", ".join(RW_MODES))
    return metrics.spec_from_dict(FioSpec, fields, FioSpecError, "a fio job",
                                  required=("rw",))


def _check_choice(field, value, choices):
    if value not in choices:
        raise FioSpecError("%s must be one of %s, not %r"
                           % (field, ", ".join(choices), value))


def _check_int(field, value, minimum, optional=False, maximum=None):
    if value is None and optional:
        return
    if (not isinstance(value, int) or isinstance(value, bool)
            or value < minimum or (maximum is not None and value > maximum)):
        bound = ("%d..%d" % (minimum, maximum) if maximum is not None
                 else ">= %d" % minimum)
        raise FioSpecError("%s must be an integer %s, not %r"
                           % (field, bound, value))
