"""The protocol every engine driver follows, and its typed errors.

No Rally import here: drivers are usable (and tested) without Rally's task
machinery. An instance's life is

    create() -> wait_running() -> wait_reachable() -> run(argv) -> delete()

and the phases build / network / delete are timed around those calls by the
scenarios. A workload only needs something that can ``run(argv)``: the
host itself (native) or an instance reached over SSH.
"""

import abc
import dataclasses


class DriverError(Exception):
    """An engine operation failed; the message says which and why."""


class CommandTimeout(DriverError):
    """A command ran longer than it was allowed to."""


class CommandFailed(DriverError):
    """A command exited non-zero; ``result`` holds its output."""

    def __init__(self, message, result):
        super().__init__(message)
        self.result = result


@dataclasses.dataclass(frozen=True)
class CommandResult:
    command: str
    exit_code: int
    stdout: str
    stderr: str
    duration_s: float

    def check(self, what):
        """Raise CommandFailed (with the output) unless it exited 0."""
        if self.exit_code != 0:
            raise CommandFailed(
                "%s failed with exit code %d: %s"
                % (what, self.exit_code,
                   (self.stderr or self.stdout).strip()[-2000:]), self)
        return self


class Executor(abc.ABC):
    """Runs one command (an argv list, never a shell string) somewhere."""

    #: Where commands run, for result metadata: "native", "docker", ...
    kind = None

    @abc.abstractmethod
    def run(self, argv, timeout, cwd=None):
        """Run argv; return a CommandResult; raise CommandTimeout."""

    def describe(self):
        """Metadata of the place commands run (host, kernel, ...)."""
        return {"driver": self.kind}
