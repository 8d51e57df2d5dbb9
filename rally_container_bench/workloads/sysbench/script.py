"""sysbench as an instance's own command, its results read from the log.

For engines that run one command and keep its output but offer no way to
run more (Zun: its exec API stops a command after 5 s by default): one
shell script runs every step the SSH path would run (``--version``, then
per test prepare / run / cleanup) and frames each step's output with
marker lines holding its exit code and in-instance clock. ``replay`` turns
the log back into an Executor that answers each argv with what the step
printed, so the ordinary sysbench path (sysbench_run) parses it; the
timer it hands out gives each run the duration measured inside.

No Rally import. The script branches on the sysbench generation the
instance has (0.4 and 1.x spell their options differently).
"""

import contextlib
import dataclasses
import re
import shlex

from rally_container_bench.core import base
from rally_container_bench.images import sysbench_build
from rally_container_bench.workloads.sysbench import command
from rally_container_bench.workloads.sysbench import presets

MARK = "@@rcbench"
# A version of each generation, to spell each branch's argvs.
_GENERATIONS = {command.LEGACY: "0.4.12", command.MODERN: "1.0.20"}
_MARK_RE = re.compile(r"^%s (begin|end) (\d+) (-?\d+) ([0-9.]+)$"
                      % re.escape(MARK))


class ScriptLogError(base.DriverError):
    """The log does not hold what the script prints."""


def steps(specs, version, executable="sysbench"):
    """The argvs of every step, in the order sysbench_run runs them.

    Last, the build's files read (images/sysbench_build.py): the results
    name the build that ran.
    """
    argvs = [[executable, "--version"]]
    for spec in specs:
        phases = (("prepare", "run", "cleanup") if spec.test == "fileio"
                  else ("run",))
        argvs.extend(command.build_argv(spec, version, phase, executable)
                     for phase in phases)
    return argvs + [sysbench_build.own_argv(executable)]


@dataclasses.dataclass(frozen=True)
class Plan:
    specs: tuple
    workdir: str
    executable: str = "sysbench"

    @classmethod
    def of(cls, tests, workdir, executable="sysbench"):
        return cls(tuple(presets.resolve_all(tests)), workdir, executable)

    @property
    def step_count(self):
        return len(steps(self.specs, _GENERATIONS[command.MODERN],
                         self.executable))

    def script(self):
        lines = [
            "mark() { printf '\\n%s %%s %%s %%s %%s\\n' \"$1\" \"$2\" "
            "\"$3\" \"$(date +%%s.%%N)\"; }" % MARK,
            "mkdir -p %s && cd %s || exit 97"
            % (shlex.quote(self.workdir), shlex.quote(self.workdir)),
            "version=$(%s --version 2>&1)"
            % shlex.quote(self.executable),
            "case \"$version\" in",
        ]
        for name, pattern in ((command.LEGACY, "*'sysbench 0.'*"),
                              (command.MODERN, "*")):
            lines.append("%s)" % pattern)
            for index, argv in enumerate(steps(
                    self.specs, _GENERATIONS[name], self.executable)):
                lines.append("  mark begin %d 0; %s 2>&1; mark end %d $?"
                             % (index, command.to_shell(argv), index))
            lines.append("  ;;")
        lines.append("esac")
        return "\n".join(lines)

    def command(self):
        return ("/bin/sh", "-c", self.script())

    def replay(self, log):
        """A ReplayExecutor of the log.

        Its steps are named for the version the instance reported (the
        branch the script took).
        """
        found = parse_log(log)
        try:
            version = command.parse_version(found[0].output)
        except (KeyError, command.VersionError):
            # detect_version reports it, with the output.
            version = _GENERATIONS[command.MODERN]
        return ReplayExecutor(found).bind(
            steps(self.specs, version, self.executable))


@dataclasses.dataclass
class Step:
    output: str
    exit_code: int
    started: float
    finished: float


def parse_log(log):
    """{index: Step} from a script's log; ScriptLogError if none."""
    if isinstance(log, bytes):
        log = log.decode("utf-8", "replace")
    found, current, buffer = {}, None, []
    for line in (log or "").splitlines():
        match = _MARK_RE.match(line.strip())
        if not match:
            if current is not None:
                buffer.append(line)
            continue
        kind, index, code, stamp = match.groups()
        if kind == "begin":
            current, buffer = (int(index), float(stamp)), []
        elif current is not None and current[0] == int(index):
            text = "\n".join(buffer).strip("\n") + "\n"
            found[current[0]] = Step(text, int(code), current[1],
                                     float(stamp))
            current = None
    if not found:
        raise ScriptLogError("the instance's log holds no sysbench step "
                             "(%d characters): %r"
                             % (len(log or ""), (log or "")[-500:]))
    return found


class ReplayExecutor(base.Executor):
    """Answers each argv with the output its step printed in the script.

    Steps are found by argv (the script's generation branch wrote the
    same argvs sysbench_run asks for); ``timed`` gives the next run the
    duration measured in the instance.
    """

    kind = "zun-logs"
    #: answers from a log: nothing can be asked of the instance now
    replays = True

    def __init__(self, found):
        self.found = found
        self.argvs = {}
        self.last = None

    def bind(self, argvs):
        """Name the steps: argvs[i] is the argv of step i."""
        self.argvs = {i: list(argv) for i, argv in enumerate(argvs)}
        return self

    def run(self, argv, timeout, cwd=None):
        argv = list(argv)
        if argv[1:] == ["--version"]:
            index = 0
        else:
            index = next((i for i, known in sorted(self.argvs.items())
                          if known == argv and i in self.found), None)
        if index is None or index not in self.found:
            raise base.DriverError("the script's log has no output of %s "
                                   "(did the instance stop early?)"
                                   % command.to_shell(argv))
        step = self.found.pop(index) if index else self.found[index]
        self.last = step
        return base.CommandResult(command.to_shell(argv), step.exit_code,
                                  step.output, "",
                                  step.finished - step.started)

    @contextlib.contextmanager
    def timed(self, record):
        """Time the next run with the instance's clock: record(start, end)."""
        self.last = None
        yield
        if self.last is not None:
            record(self.last.started, self.last.finished)

    def describe(self):
        return {"driver": self.kind}
