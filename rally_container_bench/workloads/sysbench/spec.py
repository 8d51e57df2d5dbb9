"""What one sysbench test is: a validated, immutable description.

Pure: no I/O. The same spec turns into the argv of sysbench 0.4.x or 1.0.x
(see command.py), so a task file means the same on both generations.
"""

import dataclasses
import re

TESTS = ("cpu", "memory", "fileio")
MEMORY_OPERS = ("read", "write", "none")
MEMORY_ACCESS_MODES = ("seq", "rnd")
SEQUENTIAL_FILE_MODES = ("seqwr", "seqrewr", "seqrd")
RANDOM_FILE_MODES = ("rndrd", "rndwr", "rndrw")
FILE_TEST_MODES = SEQUENTIAL_FILE_MODES + RANDOM_FILE_MODES
FILE_EXTRA_FLAGS = ("direct", "sync", "dsync")

# Parameters that belong to one test only.
_TEST_PARAMS = {
    "cpu": ("cpu_max_prime",),
    "memory": ("memory_oper", "memory_access_mode", "memory_block_size",
               "memory_total_size"),
    "fileio": ("file_test_mode", "file_num", "file_block_size",
               "file_total_size", "file_extra_flags"),
}
_SIZE_RE = re.compile(r"^[1-9][0-9]*[KMGT]?$")
_SIZE_FACTORS = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30,
                 "T": 1 << 40}
# sysbench's own fileio defaults (the same in 0.4.12 and 1.0.20).
DEFAULT_FILE_TOTAL_SIZE = "2G"
DEFAULT_FILE_BLOCK_SIZE = "16K"


class SpecError(ValueError):
    """A sysbench test description is invalid; the text says how."""


def size_in_bytes(size):
    """'4K' -> 4096 (sysbench's binary suffixes K, M, G, T)."""
    suffix = size[-1] if size[-1] in _SIZE_FACTORS else ""
    number = size[:-1] if suffix else size
    return int(number) * _SIZE_FACTORS[suffix]


@dataclasses.dataclass(frozen=True)
class TestSpec:
    """One sysbench test.

    ``time`` (seconds) and ``events`` (a count) bound the run; 0.4 names
    them --max-time / --max-requests, 1.0 --time / --events. Giving
    ``events`` and no ``time`` is the fixed-work mode: the same work on
    both versions, compared by total_time_s.
    """

    tool = "sysbench"

    test: str
    threads: int = 1
    time: int | None = None
    events: int | None = None
    cpu_max_prime: int | None = None
    memory_oper: str | None = None
    memory_access_mode: str | None = None
    memory_block_size: str | None = None
    memory_total_size: str | None = None
    file_test_mode: str | None = None
    file_num: int | None = None
    file_block_size: str | None = None
    file_total_size: str | None = None
    file_extra_flags: str | None = None

    def __post_init__(self):
        _check_choice("test", self.test, TESTS)
        _check_int("threads", self.threads, minimum=1)
        _check_int("time", self.time, minimum=1)
        _check_int("events", self.events, minimum=1)
        for test, params in _TEST_PARAMS.items():
            if test == self.test:
                continue
            for param in params:
                if getattr(self, param) is not None:
                    raise SpecError(
                        "%s applies to the %s test, not to %s"
                        % (param, test, self.test))
        getattr(self, "_check_" + self.test)()

    def _check_cpu(self):
        _check_int("cpu_max_prime", self.cpu_max_prime, minimum=3)
        if self.time is None and self.events is None:
            raise SpecError("cpu needs time (seconds) or events (a count "
                            "for the fixed-work mode)")

    def _check_memory(self):
        _check_choice("memory_oper", self.memory_oper, MEMORY_OPERS)
        _check_choice("memory_access_mode", self.memory_access_mode,
                      MEMORY_ACCESS_MODES)
        _check_size("memory_block_size", self.memory_block_size)
        _check_size("memory_total_size", self.memory_total_size)
        if self.events is not None:
            raise SpecError("events does not apply to memory: its work is "
                            "memory_total_size (add time to cap it)")

    def _check_fileio(self):
        if self.file_test_mode is None:
            raise SpecError("fileio needs file_test_mode, one of %s"
                            % ", ".join(FILE_TEST_MODES))
        _check_choice("file_test_mode", self.file_test_mode, FILE_TEST_MODES)
        _check_int("file_num", self.file_num, minimum=1)
        _check_size("file_block_size", self.file_block_size)
        _check_size("file_total_size", self.file_total_size)
        _check_choice("file_extra_flags", self.file_extra_flags,
                      FILE_EXTRA_FLAGS)
        if self.is_sequential_fileio():
            if self.events is not None:
                raise SpecError(
                    "events does not apply to sequential fileio modes "
                    "(sysbench 0.4 ignores it there): give time, or neither "
                    "for exactly one pass over the files on both versions")
        elif self.time is None and self.events is None:
            raise SpecError("random fileio modes need time (seconds) or "
                            "events (a count for the fixed-work mode)")

    def is_sequential_fileio(self):
        return self.file_test_mode in SEQUENTIAL_FILE_MODES

    @property
    def label(self):
        """Short name of what is measured: cpu, memory.read, fileio.rndrd."""
        if self.test == "memory":
            return "memory.%s" % (self.memory_oper or "write")
        if self.test == "fileio":
            return "fileio.%s" % self.file_test_mode
        return self.test

    def one_pass_events(self):
        """Events of one pass over the fileio files (1.0 needs the count)."""
        total = size_in_bytes(self.file_total_size or DEFAULT_FILE_TOTAL_SIZE)
        block = size_in_bytes(self.file_block_size or DEFAULT_FILE_BLOCK_SIZE)
        return max(1, total // block)

    def with_threads(self, threads):
        return dataclasses.replace(self, threads=threads)

    def to_dict(self):
        """The non-default fields, as a task file would give them."""
        return {f.name: getattr(self, f.name)
                for f in dataclasses.fields(self)
                if getattr(self, f.name) != f.default or f.name == "test"}


FIELDS = tuple(f.name for f in dataclasses.fields(TestSpec))


def from_dict(values):
    """Build a TestSpec from a task-file mapping; unknown keys are errors."""
    if not isinstance(values, dict):
        raise SpecError("a sysbench test is a mapping, not %r" % (values,))
    unknown = sorted(set(values) - set(FIELDS))
    if unknown:
        raise SpecError("unknown sysbench parameter(s) %s; known: %s"
                        % (", ".join(unknown), ", ".join(FIELDS)))
    if "test" not in values:
        raise SpecError("a sysbench test needs 'test', one of %s"
                        % ", ".join(TESTS))
    values = dict(values)
    for key in ("memory_block_size", "memory_total_size", "file_block_size",
                "file_total_size"):
        if isinstance(values.get(key), str):
            values[key] = values[key].upper()
    return TestSpec(**values)


def _check_choice(name, value, allowed):
    if value is not None and value not in allowed:
        raise SpecError("%s is %r; allowed: %s"
                        % (name, value, ", ".join(allowed)))


def _check_int(name, value, minimum):
    if value is None:
        return
    if isinstance(value, bool) or not isinstance(value, int):
        raise SpecError("%s must be a whole number, not %r" % (name, value))
    if value < minimum:
        raise SpecError("%s must be >= %d, not %d" % (name, minimum, value))


def _check_size(name, value):
    if value is None:
        return
    if not isinstance(value, str) or not _SIZE_RE.match(value):
        raise SpecError("%s must be a size like 4K, 100M, 8G (a whole "
                        "number with an optional K/M/G/T suffix), not %r"
                        % (name, value))
