"""ComputeHosts.against_twin: a cloud's A/A cell, on its compute hosts.

On a cloud every instance's test is paired with a native twin on the
instance's compute host (CloudInstanceMixin._on_compute_host): the
host's floor through this harness is therefore native against its twin
there, over the same SSH login, in the same order and with the same
foreign-load accounting, on each kind of compute host (QEMU's, LXC's,
Zun's) the run's instances land on. Iteration i runs on the i-th host of
the kind (round robin, sorted by name), as a spread step's instances do.
Its verdict must be "equivalent" (report/instrument.py): any other is a
false decision of the harness on that host.
"""

import contextlib

from rally.common import validation
from rally_openstack.task import scenario

from rally_container_bench.core import abort
from rally_container_bench.core import base
from rally_container_bench.engines.native import instance as native
from rally_container_bench.engines.openstack import nova as nova_driver
from rally_container_bench.engines.openstack import zun as zun_driver
from rally_container_bench import opts
from rally_container_bench.task.scenarios import measured_runs
from rally_container_bench.task.scenarios import sysbench_utils
from rally_container_bench.validity import barrier
from rally_container_bench.validity import compute_host
from rally_container_bench.validity import compute_hosts as host_access
from rally_container_bench.validity import cpu_pairs

SERVICES = ("nova", "zun")


@validation.add("enum", param_name="service", values=SERVICES,
                missed=True)
@validation.add("rcbench_sysbench_tests", param_name="tests")
@validation.add("rcbench_compute_hosts", param_name="compute_hosts")
@validation.add("number", param_name="repeat", minval=1, integer_only=True,
                nullable=True)
@validation.add("number", param_name="timeout", minval=1, nullable=True)
@validation.add("rcbench_pairing", param_name="pairing")
@validation.add("required_platform", platform="openstack", admin=True)
@scenario.configure(name="ComputeHosts.against_twin",
                    platform="openstack",
                    context={"rcbench_interrupt@default": {}})
class AgainstTwinOnHost(sysbench_utils.SysbenchScenarioMixin,
                        scenario.OpenStackScenario):

    def run(self, tests, compute_hosts, service="nova", hypervisor_type=None,
            availability_zone=None, timeout=None, repeat=1, pairing=None):
        """Native against its native twin on a compute host: the cloud's A/A.

        Reported as platform native-aa-on-<kind> (qemu, lxc, zun, ...):
        two identical runs on one compute host, so any verdict but
        "equivalent" is a false decision of the harness there.

        :param tests: sysbench presets or test mappings (see
            NativeHost.sysbench)
        :param compute_hosts: how the Rally host logs in to the compute
            hosts (as NovaInstances.boot_sysbench_delete's)
        :param service: whose compute hosts: nova or zun
        :param hypervisor_type: Nova's hosts of this hypervisor type only
            (kvm: qemu's too), as the cell's instances
        :param availability_zone: Nova's hosts of this zone only
        :param timeout: seconds one sysbench command may take
        :param repeat: measure each test (with its twin) this many times
        :param pairing: "sequential" (default; unpinned, as an unpinned
            instance's twin), "at-once" (both together, each on a core of
            its own of the host, the sides alternating; a host of one
            core pairs in sequence and says so), or {kind: mode}
        """
        abort.check("starting an iteration")
        host, of_kind = self._host(service, hypervisor_type,
                                   availability_zone)
        found = host_access.access(compute_hosts, host)
        view = compute_host.ComputeHost(host, host_access.executor(found),
                                        opts.register())
        with contextlib.ExitStack() as stack:
            stack.callback(view.close)
            cpu, twin_cpu, placed = self._placement(view, host, of_kind,
                                                    pairing)
            scratch, twins = (self._scratch(stack, view, found)
                              for _ in range(2))
            twin = measured_runs.placed_twin(
                lambda on: base.pinned(view.owned(), on), cpu, twin_cpu,
                found.sysbench, twins)
            said = cpu_pairs.pairing_said(placed)
            self.run_tests(
                base.pinned(view.owned(), cpu), tests, found.sysbench, scratch,
                timeout,
                metadata={
                    "driver": native.aa_on(
                        host_access.host_kind(service, hypervisor_type)),
                    "compute_host": host, "twin_host": host,
                    "load_read_on": host,
                    "pairing": "each test paired with a native twin on the "
                               "same compute host %s (%s); %s"
                               % (host, found.describe(), said),
                    "pinning": "unpinned: both where the host's kernel puts "
                               "them, as an unpinned instance's twin"
                               if cpu is None else
                               "on CPU %d of %s, its twin on CPU %d at "
                               "once, on %d in sequence"
                               % (cpu, host, twin_cpu, cpu)},
                twin=twin, host=view, repeat=repeat or 1, pairing=placed)

    def _placement(self, view, host, of_kind, pairing):
        """(native's CPU, the twin's, measured_runs.Pairing) on the host.

        At once: the iteration's pair of two cores of the host (a step's
        iterations on one host each a pair of their own), the sides
        alternating by the host's own waves; where the host has too few,
        in sequence (unpinned) and the Pairing says why.
        """
        asked = cpu_pairs.asked(pairing)
        if asked is None:
            return None, None, measured_runs.Pairing(None, None, None)
        try:
            usable, siblings = view.cpus()
        except base.DriverError as e:
            return None, None, measured_runs.Pairing(asked, str(e), None)
        sync = barrier.current()
        on_host = -(-(sync.concurrency if sync else 1) // of_kind)
        visit = (self.context.get("iteration", 1) - 1) // of_kind
        position = visit % on_host
        pair, why = None, cpu_pairs.one_core(usable, siblings, host)
        if why is None:
            pair, why = cpu_pairs.pair_of(position, on_host, usable,
                                          siblings)
        if pair is None:
            return None, None, measured_runs.Pairing(asked, why, None)
        # a host's own waves take turns (the iterations alternate hosts)
        mine, twins = self._alternated(pair, turn=visit // on_host)
        return mine, twins, measured_runs.Pairing(
            asked, None, "native on CPU %d of %s, twin on CPU %d"
            % (mine, host, twins))

    def _host(self, service, hypervisor_type, availability_zone):
        if service == "zun":
            names = zun_driver.compute_hosts(self.admin_clients("zun"))
        else:
            zones = nova_driver.compute_hosts(self.admin_clients("nova"),
                                              hypervisor_type)
            names = sorted(h for h, zone in zones.items()
                           if availability_zone in (None, zone))
        if not names:
            raise base.DriverError(
                "no %s compute host%s%s is enabled" % (
                    service, " of hypervisor type %s" % hypervisor_type
                    if hypervisor_type else "",
                    " in zone %s" % availability_zone
                    if availability_zone else ""))
        return (names[(self.context.get("iteration", 1) - 1) % len(names)],
                len(names))

    @staticmethod
    def _scratch(stack, view, found):
        path = view.scratch(found.workdir)
        stack.callback(view.remove, path)
        return path
