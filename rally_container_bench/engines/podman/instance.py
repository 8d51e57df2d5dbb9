"""Podman (rootful, daemonless) with an OCI runtime of engines.oci.runtimes.

Driven through the podman CLI, as operators do. sshd is published on
127.0.0.1 only. Flags this host needs: cgroupfs (no systemd) and a file
event log; a containers.conf in the cache keeps the nofile ulimit under
root's hard limit. crun 1.8 refuses the hybrid cgroup layout, so on such
hosts every podman command (both runtimes: they share one container store)
runs in one private mount namespace without the cgroup2 mount
(``rcbench engines start podman``). Each podman call passes the
runtime's global flags (``--runtime-flag``).
"""

import json
import os
import re
import shlex
import shutil

from rally_container_bench.core import base
from rally_container_bench.core import labels
from rally_container_bench.core import mounts
from rally_container_bench.core import ports
from rally_container_bench.core import ssh
from rally_container_bench.core import tuning as tuning_lib
from rally_container_bench.engines.oci import containers as oci_containers
from rally_container_bench.engines.oci import runtimes
from rally_container_bench import opts

_CONTAINERS_CONF = """[containers]
default_ulimits = ["nofile=20000:20000", "nproc=20000:20000"]
"""


class PodmanDriver(oci_containers.InspectedContainer, ssh.SshDriver):
    name = "podman-runc"
    oci = runtimes.RUNTIMES["runc"]
    runtime = oci.binary

    def _conf_file(self):
        directory = opts.cache_path(self.conf, "podman")
        os.makedirs(directory, exist_ok=True)
        path = os.path.join(directory, "containers.conf")
        if not os.path.exists(path):
            with open(path, "w") as f:
                f.write(_CONTAINERS_CONF)
        return path

    def _in_namespace(self, argv, timeout=None, env=None):
        """Run argv in podman's mount namespace (where there is one)."""
        return base.run_cli(mounts.entered(self.conf, argv, "podman"),
                            timeout or self.conf.engine_call_timeout, env)

    def command(self, *args, timeout=None):
        """CompletedProcess of one podman CLI call with this runtime."""
        return self._podman(*args, timeout=timeout)

    def runtime_flags(self):
        """podman's global --runtime-flag options for this runtime."""
        return self.oci.flags(self.conf)

    def _podman(self, *args, timeout=None):
        argv = ["podman", "--cgroup-manager=cgroupfs",
                "--events-backend=file", "--runtime", self.runtime]
        for flag in self.runtime_flags():
            argv += ["--runtime-flag", flag.lstrip("-")]
        env = dict(os.environ, CONTAINERS_CONF=self._conf_file())
        return self._in_namespace(argv + list(args), timeout, env)

    def _checked(self, *args):
        return base.output_of(self._podman(*args), "podman " + args[0])

    def prepare(self):
        if self._podman("image", "exists", self.image.tag).returncode == 0:
            return
        self._checked("import", "--change",
                      'CMD ["%s"]' % '", "'.join(oci_containers.SSHD),
                      self.image.tarball, self.image.tag)

    def create(self, name):
        # The port is chosen here, so no inspect is needed before SSH.
        last = None
        for _ in range(3):
            instance = base.Instance(name=name)
            options, command = self._tuned_options(instance)
            if self.conf.container_cpus:
                options += ["--cpus", str(self.conf.container_cpus)]
            proc = self._podman("run", "-d", "--name", name,
                                *labels.label_args(labels.INSTANCE),
                                *options, self.image.tag, *command)
            if proc.returncode == 0:
                instance.id = proc.stdout.strip()
                return instance
            last = proc.stderr.strip()
            # A port taken between our probe and podman's bind: retry.
            self._podman("rm", "-f", "-v", "-t", "0", name)
            if "address already in use" not in last:
                break
        raise base.DriverError("podman run %s failed: %s"
                               % (name, last[-1500:]))

    @property
    def default_workdir(self):
        return oci_containers.volume_or_root(self.tuning)

    def _tuned_options(self, instance):
        """(podman run options, command) of the tuning; sets the port."""
        tuning = self.tuning or tuning_lib.ContainerTuning()
        options, command = [], []
        if tuning.network == "host":
            instance.ssh_port, command = oci_containers.host_network_sshd(
                self.conf)
            instance.private["host_network"] = True
            options += ["--network", "host"]
        else:
            instance.ssh_port = ports.reserve(self.conf)
            options += ["-p", "127.0.0.1:%d:22" % instance.ssh_port]
        if self.cpuset is not None:
            options += ["--cpuset-cpus", self.cpuset]
        if tuning.workdir_volume:
            # An anonymous volume: removed with the container (rm -v).
            options += ["-v", tuning_lib.VOLUME_MOUNT]
        return options, command

    def wait_running(self, instance, timeout):
        """Nothing to wait for: ``podman run -d`` returns once it runs.

        So no extra podman process (~0.1 s each) lands in the build phase.
        """

    def record_engine_times(self, instance):
        attrs = self._inspect(instance)
        oci_containers.running(instance, attrs)
        instance.private["conmon_pid"] = attrs["State"].get("ConmonPid")

    def helper_pids(self, instance):
        # conmon and what it runs (the runtime creating, exec-ing and
        # deleting containers, podman's cleanup) share its cgroup under
        # the cgroupfs manager: with runc 0.09-0.10 s of CPU per create
        # and delete, 0.03-0.04 s per exec (2026-12-01), else foreign
        # load in the window of a run beside them (the other instance of
        # a wave at 2 booting or going). Read from record_engine_times'
        # inspect: no podman process more per instance.
        pid = instance.private.get("conmon_pid")
        return (pid,) if pid else ()

    def _inspect(self, instance):
        proc = self._podman("container", "inspect", instance.id)
        if proc.returncode != 0:
            raise base.DriverError("container %s is gone: %s"
                                   % (instance.name, proc.stderr.strip()))
        return json.loads(proc.stdout)[0]

    def delete(self, instance):
        # -t 0: kill at once (the default waits 10 s for a clean stop).
        proc = self._podman("rm", "-f", "-v", "-t", "0", instance.id or
                            instance.name)
        if proc.returncode not in (0, 1):
            raise base.DriverError("podman could not remove %s: %s"
                                   % (instance.name, proc.stderr.strip()))
        instance.private["removed"] = proc.returncode == 0

    def wait_deleted(self, instance, timeout):
        if instance.private.get("removed"):
            return  # podman rm returns once the container is gone
        base.wait_until(
            lambda: self._podman("container", "exists", instance.id or
                                 instance.name).returncode != 0,
            timeout, self.conf.poll_interval,
            "container %s gone" % instance.name)

    @classmethod
    def check(cls, conf):
        if shutil.which("podman") is None:
            return False, "podman is not installed (apt: podman)"
        if not cls.oci.installed():
            return False, cls.oci.missing()
        if mounts.missing(conf):
            return False, ("hybrid cgroups: podman needs rcbench engines "
                           "start podman")
        return True, "podman with %s" % cls.runtime

    def describe(self):
        version = self._checked("version", "--format",
                                "{{.Client.Version}}").strip()
        facts = dict(super().describe(), runtime=self.runtime,
                     engine_version="podman " + version,
                     acceleration="none (container)",
                     cpu_limit=self.conf.container_cpus or "none",
                     **oci_containers.tuning_facts(
                         self.tuning, "podman's default network, sshd "
                         "published on 127.0.0.1"))
        return self.oci.instance_facts(facts, self.runtime_flags())


# Podman keeps each container's network namespace as a bind mount under
# /run/netns. With the private mount namespace (hybrid cgroups) those
# mounts live only as long as the namespace holder: a container that
# outlives it (a killed test run, then ``engines stop``) points at a plain
# file, and from then on every ``podman ps`` fails on it.
_DANGLING_NETNS = re.compile(
    r"joining network namespace of container ([0-9a-f]{64}): retrieving "
    r"network namespace at (/run/netns/netns-[0-9a-f-]+)")
_REPAIR_ROUNDS = 50


def remove_ours(conf, report):
    """Before the namespace holder stops: delete our containers with it."""
    podman = PodmanDriver(None, conf)
    for container_id in podman._checked(
            "ps", "-a", "-q", "--filter", "label=" + labels.KEY).split():
        podman._checked("rm", "-f", "-v", container_id)
        report("podman: removed %s (it cannot outlive podman's mount "
               "namespace)" % container_id[:12])


def remove_orphans(conf, report):
    """After the namespace holder starts: forget our dangling containers.

    Others' are named with the command that removes them, not touched.
    """
    podman = PodmanDriver(None, conf)
    for _ in range(_REPAIR_ROUNDS):
        listing = podman._podman("ps", "-a", "-q")
        if listing.returncode == 0:
            return
        match = _DANGLING_NETNS.search(listing.stderr)
        if match is None:
            raise base.DriverError("podman ps failed: %s"
                                   % listing.stderr.strip())
        container_id = match.group(1)
        label = podman._podman("inspect", "--format",
                               '{{index .Config.Labels "%s"}}' % labels.KEY,
                               container_id).stdout.strip()
        if label not in ("1",) + labels.VIEWS:  # "1": older versions
            short = container_id[:12]
            raise base.DriverError(
                "podman container %s has lost its network namespace and "
                "is not rcbench's: podman rm -f %s" % (short, short))
        # An empty namespace where the old one was lets podman's network
        # teardown run: without it the CNI port mappings stay in iptables
        # and take 127.0.0.1:PORT from whichever engine publishes it next.
        netns = match.group(2)
        podman._in_namespace(["sh", "-c", 'rm -f "$1" && ip netns add "$2"',
                              "sh", netns, os.path.basename(netns)])
        podman._podman("rm", "-f", "-v", container_id)
        podman._in_namespace(["ip", "netns", "delete",
                              os.path.basename(netns)])
        forget_cni_rules(container_id)
        report("podman: removed %s (its network namespace was gone)"
               % container_id[:12])
    raise base.DriverError("podman ps still fails after removing %d "
                           "containers" % _REPAIR_ROUNDS)


def forget_cni_rules(container_id):
    """Delete the NAT rules CNI tagged with this container, and chains.

    What a teardown that could not run leaves: masquerading, and port
    mappings on 127.0.0.1 that would capture another engine's port.
    """
    saved = base.run_cli(["iptables-save", "-t", "nat"])
    if saved.returncode != 0:
        return
    chains = set()
    for line in saved.stdout.splitlines():
        # The comment reads: name: \"podman\" id: \"<64 hex>\"
        if line.startswith("-A ") and container_id in line:
            words = shlex.split(line)
            base.run_cli(["iptables", "-t", "nat", "-D"] + words[1:])
            if "-j" in words:
                target = words[words.index("-j") + 1]
                if target.startswith("CNI-"):
                    chains.add(target)
    for chain in sorted(chains):
        base.run_cli(["iptables", "-t", "nat", "-F", chain])
        base.run_cli(["iptables", "-t", "nat", "-X", chain])


def namespace_holder(conf):
    """The mount namespace holder (core.mounts), with podman's own hooks.

    Starting it removes the containers of ours whose network namespace is
    gone; stopping it removes ours first.
    """
    return mounts.holder(
        conf, after_start=lambda report: remove_orphans(conf, report),
        before_stop=lambda report: remove_ours(conf, report))
