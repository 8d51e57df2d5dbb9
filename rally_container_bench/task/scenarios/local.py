"""LocalInstances: VMs and containers on this machine's own engines."""

import contextlib
import functools

from rally.common import validation
from rally.task import scenario

from rally_container_bench.core import base
from rally_container_bench.core import tuning as tuning_lib
from rally_container_bench.engines.native import instance as native
from rally_container_bench.engines import registry
from rally_container_bench import opts
from rally_container_bench.task.scenarios import measured_runs
from rally_container_bench.task.scenarios import phases
from rally_container_bench.task.scenarios import sysbench_utils
from rally_container_bench.validity import cpu_pairs
from rally_container_bench.validity import hosts

_CONTEXTS = {"rcbench_interrupt@default": {},
             "rcbench_local_cleanup@default": {}}


class LocalInstancesScenario(phases.InstancePhasesMixin,
                             sysbench_utils.SysbenchScenarioMixin,
                             scenario.Scenario):
    """Phases of one instance's life as Rally atomic actions."""

    def _driver(self, driver, tuning=None):
        return registry.prepared_instance(
            driver, opts.register(),
            tuning_lib.from_dict(tuning, driver) if tuning else None)

    @staticmethod
    def _metadata(engine):
        return dict(native.host_facts(), **engine.describe())


@validation.add("enum", param_name="driver",
                values=list(registry.INSTANCE_NAMES))
@validation.add("rcbench_host_capacity", driver_param="driver")
@validation.add("rcbench_engine_ready", driver_param="driver")
@validation.add("rcbench_container_tuning", param_name="tuning",
                driver_param="driver")
@scenario.configure(name="LocalInstances.boot_and_delete",
                    platform="default", context=_CONTEXTS)
class BootAndDelete(LocalInstancesScenario):

    def run(self, driver, tuning=None):
        """Boot an instance on a local engine, wait for SSH, delete it.

        KEK's "boot a server and then delete" without a cloud: atomic
        actions build (create request -> engine says running), network
        (running -> an SSH login succeeds) and delete (delete request ->
        the engine no longer lists it). The engine's own timestamps are
        in the "engine timestamps" table.

        :param driver: local engine: see ``rcbench doctor`` for what
            this host can run
        :param tuning: container knobs (docker, podman-*): network
            ("bridge" or "host"), cpuset ("0-1"), workdir_volume (bool);
            VM knobs (kvm): disk_cache, disk_bus (virtio, scsi), cpuset
        """
        engine = self._driver(driver, tuning)
        self.add_environment(self._metadata(engine))
        with self._instance(engine):
            pass


@validation.add("enum", param_name="driver",
                values=list(registry.INSTANCE_NAMES))
@validation.add("rcbench_host_capacity", driver_param="driver")
@validation.add("rcbench_engine_ready", driver_param="driver")
@validation.add("rcbench_sysbench_tests", param_name="tests")
@validation.add("number", param_name="timeout", minval=1, nullable=True)
@validation.add("number", param_name="repeat", minval=1, integer_only=True,
                nullable=True)
@validation.add("rcbench_container_tuning", param_name="tuning",
                driver_param="driver")
@validation.add("rcbench_local_executable", param_name="sysbench_path",
                conf_default="sysbench_path", if_param="native_twin")
@validation.add("rcbench_pairing", param_name="pairing")
@scenario.configure(name="LocalInstances.boot_sysbench_delete",
                    platform="default", context=_CONTEXTS)
class BootSysbenchDelete(LocalInstancesScenario):

    def run(self, driver, tests, workdir=None, timeout=None, tuning=None,
            native_twin=False, sysbench_path=None, repeat=1, pinned=True,
            pairing=None):
        """Boot an instance, run sysbench inside it over SSH, delete it.

        The phases of boot_and_delete, and between network and delete
        each sysbench test as the atomic action sysbench.<test>, with its
        metrics in the report (as NativeHost.sysbench does on the host).

        :param driver: local engine: see ``rcbench doctor``
        :param tests: sysbench presets or test mappings (see
            NativeHost.sysbench)
        :param workdir: directory inside the instance for test files
            (default /root, or the volume with tuning.workdir_volume)
        :param timeout: seconds one sysbench command may take
        :param tuning: container knobs, as in boot_and_delete
        :param native_twin: pair each sysbench or fio test with its native
            twin: the same test on this host at the same concurrency,
            right before or after it (the order alternates); the
            comparison report then builds the verdict from the pairs'
            ratios, so the host's drift cancels
        :param sysbench_path: the native twin's sysbench (default: the
            [container_bench] sysbench_path option)
        :param repeat: measure each test (with its twin) this many times
            in the instance: more pairs per boot, where booting costs
            more than testing (a VM under TCG)
        :param pinned: with native_twin, the instance and its twin run on
            one host CPU (the instances of a wave each on their own, in
            turn): the container's cpuset, the VM's vCPUs, the twin's
            affinity; a tuning's cpuset wins. false: where the engine
            and the kernel put them
        :param pairing: with native_twin and pinned, how a test meets its
            twin: "sequential" (default: right before or after it, on
            one CPU), "at-once" (together, each on a CPU of its own core,
            released at one instant; cpu and memory tests only), or a
            mapping of kind (cpu, memory) to mode. A step whose pairs
            cannot each have two CPUs pairs in sequence and says why
        """
        engine = self._driver(driver, tuning)
        workdir = workdir or engine.default_workdir
        conf = opts.register()
        cpu = twin_cpu = placed = None
        if native_twin and pinned:
            # the tuning's, not engine.cpuset: this process's engine is
            # shared by its iterations, and the last one's pinned CPU
            # is no tuning (taken for one, every other iteration of a
            # worker ran unpinned until 2026-12-04)
            cpu, twin_cpu, placed = self._pair_placement(
                pairing, getattr(engine.tuning, "cpuset", None),
                vm=engine.own_kernel)
        engine.pinned_cpu = cpu
        with contextlib.ExitStack() as stack:
            twin = None
            if native_twin:
                twin = measured_runs.placed_twin(
                    native.NativeExecutor, cpu, twin_cpu,
                    sysbench_path or conf.sysbench_path,
                    self._scratch_here(stack))
            instance = stack.enter_context(self._instance(engine))
            executor = stack.enter_context(
                contextlib.closing(engine.executor(instance)))
            metadata = dict(self._metadata(engine), workdir=workdir,
                            workdir_fs=filesystem_type(executor, workdir),
                            pinning=pinning(native_twin, cpu, engine,
                                            twin_cpu))
            if native_twin:
                metadata["pairing"] = cpu_pairs.pairing_said(placed)
            self.run_tests(executor, tests, "sysbench", workdir, timeout,
                           metadata=metadata, twin=twin,
                           host=hosts.LocalHost(conf),
                           repeat=repeat or 1, pairing=placed,
                           endpoint=functools.partial(engine.endpoint,
                                                      instance))


def pinning(native_twin, cpu, engine, twin_cpu=None):
    """How the instance and its twin were placed on the host's CPUs."""
    if not native_twin:
        return "no twin"
    if cpu is not None and twin_cpu not in (None, cpu):
        return ("instance on host CPU %d, its native twin on host CPU %d "
                "at once, on %d in sequence" % (cpu, twin_cpu, cpu))
    if cpu is not None:
        return "instance and its native twin on host CPU %d" % cpu
    if engine.cpuset is not None:
        return ("unpinned pair: the instance on the tuning's CPUs %s, its "
                "twin anywhere" % engine.cpuset)
    return "unpinned: instance and twin where the kernel puts them"


def filesystem_type(executor, path):
    """The type of the filesystem under path (overlay, ext2/ext3, ...)."""
    try:
        result = executor.run(["stat", "-f", "-c", "%T", path], 60)
    except base.DriverError:
        return "unknown"
    return result.stdout.strip() if result.exit_code == 0 else "unknown"
