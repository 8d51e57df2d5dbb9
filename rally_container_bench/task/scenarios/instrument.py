"""NativeHost.against_twin: the instrument check's cells (report.instrument).

Native as a platform, paired with its own native twin through the path
every instance's test takes (the same commands, order, pinning, waves
and foreign-load accounting): the A/A cell, whose verdict must be
"equivalent"; and, with ``withheld``, the known-effect cell, whose tests
run under a CPU quota (engines.native.throttle) and must come out
"worse" by that much.
"""

import contextlib
import tempfile

from rally.common import validation
from rally.task import scenario

from rally_container_bench.core import abort
from rally_container_bench.engines.native import instance as native
from rally_container_bench.engines.native import throttle
from rally_container_bench import opts
from rally_container_bench.task.scenarios import measured_runs
from rally_container_bench.task.scenarios import sysbench_utils
from rally_container_bench.validity import hosts

# A tenth of the CPU time: beyond the margins this host's pairs allow
# (+-2-5 %), so a run that works detects it; its CI must cover it.
DEFAULT_WITHHELD = 0.10


def cell_name(withheld):
    return native.SLOWED if withheld else native.AA


@validation.add("rcbench_sysbench_tests", param_name="tests")
@validation.add("rcbench_local_executable", param_name="sysbench_path",
                conf_default="sysbench_path")
@validation.add("number", param_name="withheld", minval=0, maxval=0.9,
                nullable=True)
@validation.add("number", param_name="repeat", minval=1, integer_only=True,
                nullable=True)
@validation.add("number", param_name="timeout", minval=1, nullable=True)
@validation.add("rcbench_cpu_quota", param_name="withheld")
@scenario.configure(name="NativeHost.against_twin", platform="default",
                    context={"rcbench_interrupt@default": {}})
class AgainstTwin(sysbench_utils.SysbenchScenarioMixin, scenario.Scenario):

    def run(self, tests, withheld=0, sysbench_path=None, timeout=None,
            repeat=1, pinned=True):
        """Native against its native twin: the instrument's own cells.

        Reported as platform native-aa (withheld 0: the A/A cell, two
        identical runs; any verdict but "equivalent" is a false decision)
        or native-slowed (the known effect: the tests run with that share
        of one CPU's time withheld by the kernel's CPU quota, their twin
        without).

        :param tests: sysbench presets or test mappings (see
            NativeHost.sysbench); CPU-bound ones (cpu, memory) show the
            quota's effect in full
        :param withheld: share of the CPU time withheld from the tests
            (0: none, the A/A cell; 0.1: a known effect of -10 %)
        :param sysbench_path: sysbench of both (default: the
            [container_bench] sysbench_path option)
        :param timeout: seconds one sysbench command may take
        :param repeat: measure each test (with its twin) this many times
        :param pinned: both on one host CPU, as an instance and its twin
            (the wave's iterations each on their own, in turn)
        """
        abort.check("starting an iteration")
        conf = opts.register()
        executable = sysbench_path or conf.sysbench_path
        cpu = self._wave_cpu() if pinned else None
        with contextlib.ExitStack() as stack:
            quota = throttle.Throttle(withheld) if withheld else None
            executor = stack.enter_context(contextlib.closing(
                native.NativeExecutor(cpu, cell_name(withheld), quota)))
            scratch, twins = (stack.enter_context(tempfile.TemporaryDirectory(
                prefix="rcbench-native-", dir=conf.native_workdir))
                for _ in range(2))
            twin = measured_runs.Twin(native.NativeExecutor(cpu), executable,
                                      twins)
            self.run_tests(executor, tests, executable, scratch, timeout,
                           metadata={"pinning": _pinning(cpu)}, twin=twin,
                           host=hosts.LocalHost(conf), repeat=repeat or 1)


def _pinning(cpu):
    if cpu is None:
        return "unpinned: both where the kernel puts them"
    return "both on host CPU %d" % cpu
