"""What scenarios of instances in an OpenStack cloud share (Nova, Zun)."""

import collections
import contextlib
import functools
import re

from rally.common import logging
from rally.task import atomic

from rally_container_bench.core import base
from rally_container_bench import opts
from rally_container_bench.task.scenarios import measured_runs
from rally_container_bench.validity import compute_host
from rally_container_bench.validity import compute_hosts as host_access
from rally_container_bench.validity import cpu_pairs

LOG = logging.getLogger(__name__)

# Where an instance's tests are measured from: its compute host's view
# (validity.compute_host.ComputeHost), its native twin there, and why a test
# is not paired (None when it is), and how it pairs (measured_runs.Pairing).
OnHost = collections.namedtuple("OnHost", "view twin unpaired pairing")


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


def parse_pinned_cpus(text):
    """{host CPUs} in `virsh vcpupin` and `virsh emulatorpin` outputs."""
    found = set()
    for line in text.splitlines():
        head, _, cpus = line.strip().partition(" ")
        head, cpus = head.rstrip(":"), cpus.strip()
        if (head.isdigit() or head == "*") and re.fullmatch(
                r"[0-9]+(-[0-9]+)?(,[0-9]+(-[0-9]+)?)*", cpus):
            found |= cpu_pairs.parse_cpu_list(cpus)
    return found


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
                               repeat, pairing=None):
        """Run tests in the instance, each paired on its compute host."""
        with self._on_compute_host(driver, instance, environment,
                                   compute_hosts, pairing) as on, \
                contextlib.closing(driver.executor(instance)) as executor:
            self.run_tests(executor, tests, "sysbench", workdir, timeout,
                           metadata=environment,
                           endpoint=functools.partial(driver.endpoint,
                                                      instance),
                           twin=on.twin, host=on.view, repeat=repeat or 1,
                           pairing=on.pairing)

    @contextlib.contextmanager
    def _on_compute_host(self, driver, instance, environment,
                         compute_hosts, pairing=None):
        """OnHost of the instance; environment gets where and how.

        With compute_hosts (validity.compute_hosts), the instance's
        compute host is
        logged in to: its load is read there around every test, the
        instance's CPU there counts as the task's own, and each test is
        paired with a native twin there. Without it, or where the
        instance's host is not known, tests are unpaired and no host's
        load is read (the Rally host's is never taken for it), and
        environment["pairing"] says why. pairing: as a local task's;
        a pair at once takes another CPU of the instance's host for the
        twin (_twin_placement), else pairs in sequence and says why.
        """
        host = environment.get("compute_host")
        if compute_hosts is None:
            environment["pairing"] = (
                "unpaired: no compute_hosts given (how the Rally host "
                "logs in to the compute hosts), so no native twin ran on "
                "the instance's host")
            yield OnHost(None, None, environment["pairing"], None)
            return
        if not host:
            environment["pairing"] = (
                "unpaired: the instance's compute host is not known (Nova "
                "and Zun tell it to admin credentials only)")
            yield OnHost(None, None, environment["pairing"], None)
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
            twin_cpu, placed = self._twin_placement(driver, view, host, cpu,
                                                    pairing)
            twin = measured_runs.placed_twin(
                lambda on: base.pinned(view.owned(), on), cpu, twin_cpu,
                found.sysbench, scratch)
            said = cpu_pairs.pairing_said(placed)
            environment.update(
                twin_host=host, load_read_on=host,
                pairing="each test paired with a native twin on the "
                        "instance's compute host %s (%s)%s"
                        % (host, found.describe(),
                           "; " + said if said else ""),
                pinning=_pinning(cpu, twin_cpu))
            yield OnHost(view, twin, None, placed)
        finally:
            view.discard(instance.name)
            if scratch:
                view.remove(scratch)
            view.close()

    @staticmethod
    def _twin_placement(driver, view, host, cpu, pairing):
        """(the twin's CPU or None, measured_runs.Pairing) on the host.

        In sequence the twin runs on the instance's pinned CPU. Asked at
        once: on another core of the host, free of its instances
        (cpu_pairs.twin_beside), where the instance's vCPU is pinned and
        the host's CPUs are read; else in sequence, and the Pairing says
        why.
        """
        asked = cpu_pairs.asked(pairing)
        if asked is None:
            return cpu, measured_runs.Pairing(None, None, None)
        try:
            usable, siblings = view.cpus()
        except base.DriverError as e:
            return cpu, measured_runs.Pairing(asked, str(e), None)
        command = getattr(driver, "host_pinning_command", None)
        why = cpu_pairs.one_core(usable, siblings, host)
        if why is None and command is None:
            why = ("a container's CPUs on %s are not read by this harness "
                   "(only a Nova server's pinned vCPU is): its processes "
                   "may run on any CPU there, the twin's too" % host)
        elif why is None and cpu is None:
            why = ("the instance's vCPU is not pinned on %s (a flavor with "
                   "hw:cpu_policy dedicated pins it): its threads may run "
                   "on any CPU there, the twin's too" % host)
        if why:
            return cpu, measured_runs.Pairing(asked, why, None)
        try:
            taken = parse_pinned_cpus(view.executor.run(command(), 60).stdout)
        except base.DriverError as e:
            return cpu, measured_runs.Pairing(
                asked, "the instances' CPUs on %s were not read: %s"
                % (host, e), None)
        twin_cpu, why = cpu_pairs.twin_beside(cpu, usable, siblings,
                                              taken | {cpu}, host)
        if why:
            return cpu, measured_runs.Pairing(asked, why, None)
        return twin_cpu, measured_runs.Pairing(
            asked, None, "instance on CPU %d of %s (its flavor's), twin on "
            "CPU %d" % (cpu, host, twin_cpu))

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


def _pinning(cpu, twin_cpu):
    if cpu is None:
        return ("unpinned: the flavor does not pin the instance's vCPUs "
                "(hw:cpu_policy dedicated), so its twin runs where the "
                "host's kernel puts it")
    if twin_cpu not in (None, cpu):
        return ("instance on host CPU %d (its flavor's dedicated vCPU), its "
                "native twin on host CPU %d at once, on %d in sequence"
                % (cpu, twin_cpu, cpu))
    return ("instance (its flavor's dedicated vCPU) and its native twin on "
            "host CPU %s" % cpu)
