"""What scenarios of instances in an OpenStack cloud share (Nova, Zun)."""

import collections
import contextlib
import functools

from rally.common import logging
from rally.task import atomic

from rally_container_bench.core import base
from rally_container_bench import opts
from rally_container_bench.task.scenarios import measured_runs
from rally_container_bench.validity import compute_host
from rally_container_bench.validity import compute_hosts as host_access

LOG = logging.getLogger(__name__)

# Where an instance's tests are measured from: its compute host's view
# (validity.compute_host.ComputeHost), its native twin there, and why a test
# is not paired (None when it is).
OnHost = collections.namedtuple("OnHost", "view twin unpaired")


def network_ref(neutron, network, seen_by):
    """(id, name) of a Neutron network given by name or id."""
    for key in ("id", "name"):
        found = neutron.list_networks(**{key: network})["networks"]
        if found:
            return found[0]["id"], found[0]["name"]
    raise ValueError("no network %r visible to %s" % (network, seen_by))


def parse_vcpupin(text):
    """The first host CPU of `virsh vcpupin DOMAIN --vcpu 0`, or None."""
    for line in text.splitlines():
        head, _, cpus = line.strip().partition(" ")
        if head.rstrip(":") == "0" and cpus.strip():
            first = cpus.strip().split(",")[0].split("-")[0]
            return int(first) if first.isdigit() else None
    return None


class CloudInstanceMixin:
    """Networks, the network phase, the baseline on the compute host.

    Networks by name or id; the network phase as ping, then SSH; the
    instance's compute host as the place of its native twin.
    """

    def _network_ref(self, network):
        """(id, name) of a network given by name or id; (None, None)."""
        if not network:
            return None, None
        return network_ref(self.clients("neutron"), network,
                           "the task's users")

    def _network(self, driver, instance, conf):
        with atomic.ActionTimer(self, "ping"):
            driver.wait_pingable(instance, conf.ssh_timeout)
        with atomic.ActionTimer(self, "ssh"):
            driver.wait_reachable(instance, conf.ssh_timeout)

    def _tests_on_compute_host(self, driver, instance, environment,
                               compute_hosts, tests, workdir, timeout,
                               repeat):
        """Run tests in the instance, each paired on its compute host."""
        with self._on_compute_host(driver, instance, environment,
                                   compute_hosts) as on, \
                contextlib.closing(driver.executor(instance)) as executor:
            self.run_tests(executor, tests, "sysbench", workdir, timeout,
                           metadata=environment,
                           endpoint=functools.partial(driver.endpoint,
                                                      instance),
                           twin=on.twin, host=on.view, repeat=repeat or 1)

    @contextlib.contextmanager
    def _on_compute_host(self, driver, instance, environment,
                         compute_hosts):
        """OnHost of the instance; environment gets where and how.

        With compute_hosts (validity.compute_hosts), the instance's
        compute host is
        logged in to: its load is read there around every test, the
        instance's CPU there counts as the task's own, and each test is
        paired with a native twin there. Without it, or where the
        instance's host is not known, tests are unpaired and no host's
        load is read (the Rally host's is never taken for it), and
        environment["pairing"] says why.
        """
        host = environment.get("compute_host")
        if compute_hosts is None:
            environment["pairing"] = (
                "unpaired: no compute_hosts given (how the Rally host "
                "logs in to the compute hosts), so no native twin ran on "
                "the instance's host")
            yield OnHost(None, None, environment["pairing"])
            return
        if not host:
            environment["pairing"] = (
                "unpaired: the instance's compute host is not known (Nova "
                "and Zun tell it to admin credentials only)")
            yield OnHost(None, None, environment["pairing"])
            return
        found = host_access.access(compute_hosts, host)
        conf = opts.register()
        view = compute_host.ComputeHost(host, host_access.executor(found),
                                        conf)
        scratch = None
        try:
            try:
                environment["instance_cpu_read"] = view.register(
                    instance.name, driver, instance)
            except base.DriverError as e:
                LOG.warning("%s: its CPU is not told apart from foreign "
                            "load on %s: %s" % (instance.name, host, e))
            scratch = view.scratch(found.workdir)
            cpu = self._pinned_cpu(driver, instance, environment, view)
            owned = view.owned()
            twin = measured_runs.Twin(
                owned if cpu is None else base.PinnedExecutor(owned, cpu),
                found.sysbench, scratch)
            environment.update(
                twin_host=host, load_read_on=host,
                pairing="each test paired with a native twin on the "
                        "instance's compute host %s (%s)"
                        % (host, found.describe()),
                pinning=("instance (its flavor's dedicated vCPU) and its "
                         "native twin on host CPU %s" % cpu
                         if cpu is not None else
                         "unpinned: the flavor does not pin the instance's "
                         "vCPUs (hw:cpu_policy dedicated), so its twin "
                         "runs where the host's kernel puts it"))
            yield OnHost(view, twin, None)
        finally:
            view.discard(instance.name)
            if scratch:
                view.remove(scratch)
            view.close()

    @staticmethod
    def _pinned_cpu(driver, instance, environment, view):
        """The host CPU of the instance's vCPU 0 where its flavor pins it.

        Read on its compute host (libvirt's vcpupin); None elsewhere.
        """
        specs = environment.get("flavor_extra_specs") or ""
        command = getattr(driver, "host_cpu_command", None)
        if "hw:cpu_policy=dedicated" not in specs or command is None:
            return None
        argv = command(instance)
        if not argv:
            return None
        try:
            found = view.executor.run(argv, 60)
        except base.DriverError as e:
            LOG.warning("%s: its vCPU's host CPU not read: %s"
                        % (instance.name, e))
            return None
        return parse_vcpupin(found.stdout)
