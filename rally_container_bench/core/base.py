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
import subprocess
import threading
import time

from rally_container_bench.core import abort
from rally_container_bench.core import ports as ports_lib


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
    #: commands run on the host itself (no guest clock to check)
    on_host = False

    @abc.abstractmethod
    def run(self, argv, timeout, cwd=None):
        """Run argv; return a CommandResult; raise CommandTimeout."""

    def describe(self):
        """Metadata of the place commands run (host, kernel, ...)."""
        return {"driver": self.kind}

    def close(self):
        """Release connections; the executor may be used again after."""


def put_archive(executor, data, directory, timeout):
    """Unpack a tar.gz (bytes) into directory where executor runs.

    False where it cannot take one (no executor it wraps can).
    """
    while not hasattr(executor, "put_archive"):
        executor = getattr(executor, "inner", None)
        if executor is None:
            return False
    executor.put_archive(data, directory, timeout)
    return True


def pinned(executor, cpu):
    """executor, its commands confined to cpu where one is given."""
    return executor if cpu is None else PinnedExecutor(executor, cpu)


class PinnedExecutor(Executor):
    """Another executor's commands, confined to one CPU (taskset)."""

    def __init__(self, inner, cpu):
        self.inner = inner
        self.cpu = cpu
        self.kind = inner.kind
        self.on_host = inner.on_host

    def run(self, argv, timeout, cwd=None):
        return self.inner.run(["taskset", "-c", str(self.cpu)] + list(argv),
                              timeout, cwd=cwd)

    def describe(self):
        return self.inner.describe()

    def close(self):
        self.inner.close()


def wait_until(done, timeout, interval, what, last=None):
    """Call done() until it returns a true value, and return that value.

    DriverError("<what> ... within N s") when timeout passes first, with
    last() (the state seen at the last poll, e.g. Zun's status and
    status_reason) when given; abort.Aborted as soon as the task is
    aborted (unless shielded).
    """
    deadline = time.monotonic() + timeout
    while True:
        abort.check(what)
        result = done()
        if result:
            return result
        if time.monotonic() > deadline:
            seen = last() if last else None
            raise DriverError("%s: not within %s s%s" % (
                what, timeout, "; last seen: %s" % seen if seen else ""))
        abort.sleep(interval)


def polled(get, seen, transient):
    """get()'s answer, or None when transient(error) says the poll failed.

    A poll an API failed while busy says nothing of the instance: the
    wait polls again within its bound. seen[:] keeps the last answer, or
    the failure's text, for the error of a wait that runs out.
    """
    try:
        answer = get()
    except Exception as e:
        if not transient(e):
            raise
        seen[:] = ["the API failed the poll (%s: %s)"
                   % (type(e).__name__, str(e)[:300])]
        return None
    seen[:] = [answer]
    return answer


def wait_pingable(address, timeout, interval, what):
    """Return when address answers ICMP echo (an instance's first sign)."""
    def answers():
        proc = subprocess.run(["ping", "-c", "1", "-W", "1", "-n", address],
                              stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)
        return proc.returncode == 0
    wait_until(answers, timeout, interval, what)


def run_cli(argv, timeout=120, env=None):
    """Run an engine's CLI (argv, no shell); CompletedProcess with text."""
    try:
        return subprocess.run(list(argv), capture_output=True, text=True,
                              env=env, timeout=timeout)
    except subprocess.TimeoutExpired:
        raise CommandTimeout("%s %s did not finish within %s s"
                             % (argv[0], argv[1] if len(argv) > 1 else "",
                                timeout))
    except OSError as e:
        raise DriverError("cannot run %s: %s" % (argv[0], e))


def output_of(proc, what):
    """stdout of a finished CLI call, or DriverError naming ``what``."""
    if proc.returncode != 0:
        raise DriverError("%s failed: %s"
                          % (what, proc.stderr.strip()[-1500:]))
    return proc.stdout


@dataclasses.dataclass(frozen=True)
class Endpoint:
    """Where a server inside an instance is reached from the Rally host.

    It listens on listen_port inside (on listen_address, where the
    instance shares the host's network namespace: else on every address
    of its own namespace); the host connects to host:port (the same port,
    a NAT address or a port forward).
    """

    listen_port: int
    host: str
    port: int
    listen_address: str | None = None


def host_network_endpoint(conf, ports, port):
    """The Endpoint of an instance in the host's network namespace.

    A free host port per server port and instance (ports: its cache), so
    concurrent instances never share one. The server listens on
    loopback only: nothing of a test is reachable from another host.
    """
    if port not in ports:
        ports[port] = ports_lib.reserve(conf)
    return Endpoint(ports[port], "127.0.0.1", ports[port],
                    listen_address="127.0.0.1")


@dataclasses.dataclass
class Instance:
    """One VM or container, as a driver created it."""

    name: str
    id: str | None = None
    ssh_host: str = "127.0.0.1"
    ssh_port: int = 22
    ssh_user: str = "root"
    # The engine's own timestamps (epoch seconds): created, started, ...
    engine_times: dict = dataclasses.field(default_factory=dict)
    # Driver-private state (process handles, file paths).
    private: dict = dataclasses.field(default_factory=dict)


class Driver(abc.ABC):
    """One engine. Scenarios time the phases around these calls:

    build = create() + wait_running(); network = wait_reachable();
    delete = delete() + wait_deleted().
    Methods are called from several Rally runner threads at once.
    """

    #: the name task files use: "docker", "podman", "kvm", ...
    name = None
    #: what the engine's timestamps are, for the report
    engine_times_note = "The engine's own clock (epoch seconds)"

    #: tuning knobs (tuning.ContainerTuning / VmTuning) where supported
    tuning = None
    #: where tests write their files inside an instance, unless told
    default_workdir = "/root"
    #: the ports a workload's server may listen on inside an instance
    #: (the registry sets them from the workload tools): an engine that
    #: must forward ports at creation forwards these
    server_ports = ()
    #: the instance runs a kernel of its own (a VM): its /proc/uptime at
    #: the first login is its boot time, measured inside
    own_kernel = False

    @property
    def pinned_cpu(self):
        """The host CPU the scenario pins this thread's instance to.

        A pinned pair's native twin runs there too; None: where the
        engine puts it. Per thread: a Rally worker process runs several
        iterations at once in threads that share this driver, each with
        a CPU of its own. Set on the driver itself, the last thread's
        CPU was every thread's: at 4 and 8 at once on two CPUs a wave's
        containers landed on one CPU while their twins used both, and
        the instances read half their twins' rate (KEK's campaign,
        2026-12-06: pair SD 17-33 % against the A/A's 0.5-1.7 %).
        """
        return getattr(self._pins(), "cpu", None)

    @pinned_cpu.setter
    def pinned_cpu(self, cpu):
        self._pins().cpu = cpu

    def _pins(self):
        # dict.setdefault is atomic: one threading.local per driver
        return self.__dict__.setdefault("_thread_pins", threading.local())

    @property
    def cpuset(self):
        """The host CPUs the instance runs on; None: any.

        The tuning's cpuset, else the pinned CPU.
        """
        tuned = getattr(self.tuning, "cpuset", None)
        if tuned is not None:
            return tuned
        return None if self.pinned_cpu is None else str(self.pinned_cpu)

    def __init__(self, image, conf):
        self.image = image
        self.conf = conf

    def prepare(self):
        """Make the engine ready (daemon up, image imported); idempotent.

        Runs before the first iteration, outside every timed phase.
        """

    @abc.abstractmethod
    def create(self, name):
        """Send the create request; return the Instance."""

    @abc.abstractmethod
    def wait_running(self, instance, timeout):
        """Return when the engine reports the instance running."""

    @abc.abstractmethod
    def wait_reachable(self, instance, timeout):
        """Return when the instance takes commands (SSH: a login)."""

    @abc.abstractmethod
    def executor(self, instance):
        """An Executor that runs commands inside the instance."""

    def endpoint(self, instance, port):
        """Where the Rally host reaches a server inside the instance.

        port: the one the server listens on (one of server_ports). By
        default the instance's SSH address at that port.
        """
        return Endpoint(port, instance.ssh_host, port)

    def host_pid(self, instance):
        """The instance's main process on this host, or None.

        Its cgroup (or its process tree) is what the foreign-load check
        counts as the measurement's own CPU; None where the instance runs
        on another host or the engine does not say.
        """
        return None

    def helper_pids(self, instance):
        """Engine processes working for the instance outside its cgroup.

        Pids on this host (Podman's conmon), or (); known once
        record_engine_times ran. Their cgroup's CPU counts as the task's
        own, like the instance's.
        """
        return ()

    def disk_in_host_kernel(self, instance):
        """Whether the host's kernel serves the instance's disk I/O.

        True where the engine mounts the instance's disk on its host (a
        loop or nbd device): that work runs in the kernel's threads, not
        in the instance's cgroup, and counts as the task's own there
        (foreign_load.KERNEL_THREADS).
        """
        return False

    def host_pid_command(self, instance):
        """The argv that prints the instance's main process id there.

        Run on the instance's (compute) host; None where the engine
        cannot say. For an instance on another host (a cloud's): its CPU
        there is counted as the measurement's own
        (validity.compute_host.ComputeHost).
        """
        return None

    def record_engine_times(self, instance):
        """Fill instance.engine_times, if not yet done; called untimed."""

    def lost(self, instance):
        """Why the engine has lost the instance, or None while it has not.

        A container whose shim or conmon died: the engine may still say
        it runs while nothing runs it, or can no longer follow it. Read
        after the instance's work (and when it failed), so that such an
        iteration fails, saying so, instead of counting.
        """
        return None

    @abc.abstractmethod
    def delete(self, instance):
        """Send the delete request."""

    @abc.abstractmethod
    def wait_deleted(self, instance, timeout):
        """Return when the engine no longer lists the instance."""

    def describe(self):
        """Metadata of every result: driver, runtime, acceleration, ..."""
        return {"driver": self.name, "image": self.image.id}

    @classmethod
    def check(cls, conf):
        """(usable, why) for ``rcbench doctor``: can this host run it?"""
        return False, "no check written for %s" % cls.name
