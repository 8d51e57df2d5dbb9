"""NativeHost.against_twin: the instrument check's cells (report.instrument).

Native as a platform, paired with its own native twin through the path
every instance's test takes (the same commands, order, pinning, waves
and foreign-load accounting): the A/A cell, whose verdict must be
"equivalent"; and, with ``neighbour_nice``, the known-effect cell, whose
tests share their CPU with a busy loop of known weight
(engines.native.known_effect) and must come out "worse" by its share.
"""

import contextlib

from rally.common import validation
from rally.task import scenario

from rally_container_bench.core import abort
from rally_container_bench.engines.native import instance as native
from rally_container_bench.engines.native import known_effect
from rally_container_bench import opts
from rally_container_bench.task.scenarios import measured_runs
from rally_container_bench.task.scenarios import sysbench_utils
from rally_container_bench.validity import cpu_pairs
from rally_container_bench.validity import hosts


def cell_name(neighbour_nice, pairing=None):
    if neighbour_nice:
        return native.SLOWED
    return native.AA_AT_ONCE if pairing == cpu_pairs.AT_ONCE else native.AA


@validation.add("rcbench_sysbench_tests", param_name="tests")
@validation.add("rcbench_local_executable", param_name="sysbench_path",
                conf_default="sysbench_path")
@validation.add("number", param_name="repeat", minval=1, integer_only=True,
                nullable=True)
@validation.add("number", param_name="timeout", minval=1, nullable=True)
@validation.add("rcbench_known_effect", param_name="neighbour_nice",
                pinned_param="pinned")
@validation.add("rcbench_pairing", param_name="pairing")
@scenario.configure(name="NativeHost.against_twin", platform="default",
                    context={"rcbench_interrupt@default": {}})
class AgainstTwin(sysbench_utils.SysbenchScenarioMixin, scenario.Scenario):

    def run(self, tests, neighbour_nice=None, sysbench_path=None,
            timeout=None, repeat=1, pinned=True, pairing=None):
        """Native against its native twin: the instrument's own cells.

        Reported as platform native-aa (no neighbour: the A/A cell, two
        identical runs; any verdict but "equivalent" is a false decision)
        or native-slowed (the known effect: each test shares its CPU with
        a busy loop at nice neighbour_nice, which the kernel's scheduler
        gives a known share of it, 9.70 % at nice 10; the twin runs
        alone).

        :param tests: sysbench presets or test mappings (see
            NativeHost.sysbench); CPU-bound ones (cpu, memory) lose the
            neighbour's share in full
        :param neighbour_nice: the busy neighbour's nice level, 1 to 19
            (10: -9.70 %; none: the A/A cell)
        :param sysbench_path: sysbench of both (default: the
            [container_bench] sysbench_path option)
        :param timeout: seconds one sysbench command may take
        :param repeat: measure each test (with its twin) this many times
        :param pinned: both on one host CPU, as an instance and its twin
            (the wave's iterations each on their own, in turn); the known
            effect needs it (the neighbour shares the test's CPU)
        :param pairing: as LocalInstances.boot_sysbench_delete's; the A/A
            with pairing "at-once" is reported as native-aa-at-once
            (rcbench decide measures the A/A both ways first)
        """
        abort.check("starting an iteration")
        conf = opts.register()
        executable = sysbench_path or conf.sysbench_path
        cpu = twin_cpu = placed = None
        if pinned:
            cpu, twin_cpu, placed = self._pair_placement(pairing)
        neighbour = known_effect.Neighbour(neighbour_nice) \
            if neighbour_nice else None
        executor = native.NativeExecutor(
            cpu, cell_name(neighbour_nice, pairing), neighbour)
        with contextlib.ExitStack() as stack:
            scratch, twins = (self._scratch_here(stack) for _ in range(2))
            twin = measured_runs.placed_twin(
                native.NativeExecutor, cpu, twin_cpu, executable, twins)
            self.run_tests(executor, tests, executable, scratch, timeout,
                           metadata={"pinning": _pinning(cpu, twin_cpu),
                                     "pairing": cpu_pairs.pairing_said(
                                         placed)},
                           twin=twin, host=hosts.LocalHost(conf),
                           repeat=repeat or 1, pairing=placed)


def _pinning(cpu, twin_cpu):
    if cpu is None:
        return "unpinned: both where the kernel puts them"
    if twin_cpu != cpu:
        return ("on host CPU %d, its twin on host CPU %d at once, on %d in "
                "sequence" % (cpu, twin_cpu, cpu))
    return "both on host CPU %d" % cpu
