"""The lifecycle view of an engine whose CLI has docker's verbs.

Docker's and Podman's lifecycle views (engines.docker.lifecycle,
engines.podman.lifecycle) are these with their CLI. Instances carry the
label rcbench=lifecycle (core.labels); cleanup lists by the key, so the
instance view's containers go too. The engine runs an OCI runtime of
engines.oci.runtimes (``--runtime``).
"""

import shlex

from rally_container_bench.core import base
from rally_container_bench.core import labels
from rally_container_bench.core import lifecycle
from rally_container_bench.engines.oci import runtimes


class CliEngine(lifecycle.LifecycleDriver):
    """An engine whose CLI has docker's verbs."""

    def _cli(self, *args, timeout=None):
        """CompletedProcess of one CLI call (timeout: engine_call_timeout)."""
        raise NotImplementedError

    def _checked(self, *args):
        proc = self._cli(*args)
        if proc.returncode != 0:
            raise base.DriverError("%s %s failed: %s" % (
                self.name, args[0], (proc.stderr or proc.stdout)
                .strip()[-1500:]))
        return proc.stdout

    def prepare(self):
        if self._cli("image", "inspect", self.image.tag).returncode != 0:
            self._checked("load", "-i", self.image.archive)

    def _create_args(self, name):
        return (["--name", name] + labels.label_args(labels.LIFECYCLE)
                + ["--network", "none"] + self.runtime_args()
                + [self.image.tag])

    def runtime_args(self):
        """create/run options that choose the OCI runtime, if any."""
        return []

    def create(self, name):
        self._checked("create", *self._create_args(name))

    def start(self, name):
        self._checked("start", name)

    def stop(self, name):
        self._checked("stop", "-t", "0", name)

    def remove(self, name):
        self._checked("rm", name)

    def run(self, name):
        self._checked("run", "-d", *self._create_args(name))

    #: the engine's command, for what a user types (by_hand)
    cli_name = "docker"
    #: rm -f flags that kill at once (podman's rm -f waits 10 s for the
    #: shell loop, which ignores SIGTERM, before it kills)
    force_flags = ("-f", "-v")

    def discard(self, name):
        proc = self._cli("rm", *self.force_flags, name)
        if proc.returncode != 0 and "such container" not in proc.stderr:
            raise base.DriverError("%s rm -f %s failed: %s"
                                   % (self.name, name, proc.stderr.strip()))

    def by_hand(self, name):
        return " ".join(map(shlex.quote, (self.cli_name, "rm")
                            + self.force_flags + (name,)))

    def list_ours(self):
        return self._checked("ps", "-a", "--filter", "label=" + labels.KEY,
                             "--format", "{{.Names}}").split()

    def workload_pid(self, name):
        return int(self._checked("inspect", "--format", "{{.State.Pid}}",
                                 name).strip())


class RuntimeCli(CliEngine):
    """An engine's CLI with one OCI runtime of engines.oci.runtimes."""
    oci = runtimes.RUNTIMES["runc"]
    runtime = oci.binary

    def __init__(self, image, conf):
        super().__init__(image, conf)
        # a sandbox's memory is all the instance's, as a VM's
        self.workload_separate = not self.oci.sandbox

    #: the engine's instance view (its checks, its flags)
    instance_class = None

    @classmethod
    def instance_driver(cls):
        """The instance view of the same engine, with the same runtime."""
        return runtimes.with_runtime(cls.instance_class, cls.name,
                                     cls.oci.name)

    def registered_flags(self):
        """The runtime's flags as the engine runs it."""
        raise NotImplementedError

    def describe(self):
        return dict(super().describe(), runtime=self.runtime,
                    **self.oci.facts(self.registered_flags()))

    @classmethod
    def check(cls, conf):
        return cls.instance_driver().check(conf)
