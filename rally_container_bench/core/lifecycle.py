"""The verbs of the ptcr lifecycle method, one driver per runtime.

    create -> start -> stop -> remove        and        run (create+start)

Each verb is one request to the engine (its CLI, as operators and ptcr
use it) and returns when the engine has done it. ``stop`` kills at once
(SIGKILL: docker/podman ``stop -t 0``, ``lxc-stop -k``, ``virsh destroy``):
the busybox shell loop ignores SIGTERM as PID 1, so a polite stop would
time the grace period, not the runtime. Instances have no network but
loopback: this measures the runtime, not bridge or CNI plumbing.
"""

import abc
import subprocess
import tempfile

from rally_container_bench.core import base
from rally_container_bench.core import processes

DriverError = base.DriverError


def checked(argv, what=None, timeout=120, env=None):
    """Run argv; its stdout, or DriverError with what it printed."""
    proc = base.run_cli(argv, timeout, env)
    return base.output_of(proc, what or " ".join(argv[:2]))


def detached(argv, what, timeout=120, env=None):
    """Run a command whose child keeps its stdio (runc create, run -d).

    Capturing its output with pipes would wait for the container to end:
    stdout goes to /dev/null, stderr to a file read only on failure.
    """
    with tempfile.TemporaryFile(mode="w+") as err:
        try:
            proc = subprocess.run(argv, stdin=subprocess.DEVNULL,
                                  stdout=subprocess.DEVNULL, stderr=err,
                                  env=env, timeout=timeout)
        except subprocess.TimeoutExpired:
            raise base.CommandTimeout("%s did not finish within %s s"
                                      % (what, timeout))
        except OSError as e:
            raise DriverError("cannot run %s: %s" % (argv[0], e))
        if proc.returncode != 0:
            err.seek(0)
            raise DriverError("%s failed: %s" % (what, err.read()[-1500:]))


class LifecycleDriver(abc.ABC):
    """One runtime. Methods are called from many runner threads at once."""

    #: the name task files use
    name = None
    #: False where the engine has no single create+start request (run is
    #: then create and start back to back, and the report says so)
    run_is_one_call = True
    #: False for VMs: the pid the engine reports is the VMM, whose memory
    #: holds the guest (footprint counts all of it as the instance)
    workload_separate = True
    #: a VM: its guest memory counts against the host's (validators)
    own_kernel = False

    def __init__(self, image, conf):
        self.image = image
        self.conf = conf

    def prepare(self):
        """Engine answers and the image is loaded; idempotent, untimed."""

    @abc.abstractmethod
    def create(self, name):
        """Create the instance, not started."""

    @abc.abstractmethod
    def start(self, name):
        """Start a created instance; return once it runs."""

    @abc.abstractmethod
    def stop(self, name):
        """Kill a running instance; return once it is stopped."""

    @abc.abstractmethod
    def remove(self, name):
        """Remove a stopped instance."""

    def run(self, name):
        """Create and start in one request where the engine has one."""
        self.create(name)
        self.start(name)

    def wait_workload(self, name, timeout):
        """Return once the workload runs.

        At once for a container (start returns after its init was exec'd);
        a VM's guest boots later.
        """

    @abc.abstractmethod
    def discard(self, name):
        """Remove in whatever state (cleanup); no error when it is gone."""

    @abc.abstractmethod
    def list_ours(self):
        """Names of the instances this tool made on this engine."""

    def by_hand(self, name):
        """The shell command that removes name when discard cannot."""
        return None

    @abc.abstractmethod
    def workload_pid(self, name):
        """Host pid of a running instance's init (or its VMM)."""

    def daemon_pids(self):
        """Pids of the engine's daemons (empty for daemonless ones)."""
        return []

    def describe(self):
        return {"driver": self.name, "image": self.image.tag
                if self.image is not None else None,
                "acceleration": "none (container)"}

    @classmethod
    def check(cls, conf):
        """(usable, why) on this host."""
        return False, "no check written for %s" % cls.name


def pid_from_file(path):
    """The live process a pid file names (processes.Recorded), or None.

    Ours ('PID START', core.daemon) or a daemon's own (a bare pid).
    """
    recorded = processes.Recorded.in_pidfile(path)
    return recorded.pid if recorded is not None and recorded.alive() \
        else None
