"""ContainerLifecycle: the ptcr method's verbs and footprint, any runtime.

create / start / stop / remove / run are Rally atomic actions, so serial
(concurrency 1) and parallel (concurrency 100) profiles are Rally runners,
and VMs (runtime kvm) sit in the same table as containers.
"""

import time

from rally.common import logging
from rally.common import validation
from rally.task import atomic
from rally.task import scenario

from rally_container_bench.core import abort
from rally_container_bench.core import footprint
from rally_container_bench.engines.native import instance as native
from rally_container_bench.engines import registry
from rally_container_bench import opts
from rally_container_bench.task import output_tables as tables
from rally_container_bench.task.scenarios import sysbench_utils
from rally_container_bench.workloads import metrics

LOG = logging.getLogger(__name__)
_CONTEXTS = {"rcbench_interrupt@default": {},
             "rcbench_local_cleanup@default": {}}


class LifecycleScenario(scenario.Scenario):

    def _driver(self, runtime):
        return registry.prepared_lifecycle(runtime, opts.register())

    def _environment(self, driver):
        facts = dict(native.host_facts(), **driver.describe())
        if not driver.run_is_one_call:
            facts["run"] = "create then start (no single request)"
        self.add_output(complete=sysbench_utils.environment_table(facts))

    def _discard(self, driver, name, failed):
        """Untimed removal; an error here does not hide the first one."""
        try:
            with abort.shielded():
                driver.discard(name)
        except Exception as e:
            if not failed:
                raise
            LOG.warning("%s was not removed after the iteration failed: %s"
                        % (name, e))


@validation.add("enum", param_name="runtime",
                values=list(registry.LIFECYCLE_NAMES))
@validation.add("rcbench_lifecycle_ready", runtime_param="runtime")
@scenario.configure(name="ContainerLifecycle.create_start_stop_remove",
                    platform="default", context=_CONTEXTS)
class CreateStartStopRemove(LifecycleScenario):

    def run(self, runtime):
        """Create, start, stop (kill) and remove one instance.

        Each verb is one request to the runtime, timed as the atomic
        action of its name (the ptcr method's table). An instance left by a
        failed verb is removed, untimed.

        :param runtime: docker, docker-runsc, podman-runc, podman-crun,
            podman-runsc, runc, crun, runsc, containerd, cri-containerd,
            lxc or kvm (see rcbench doctor)
        """
        driver = self._driver(runtime)
        self._environment(driver)
        name = self.generate_random_name()
        done, failed = False, False
        try:
            with atomic.ActionTimer(self, "create"):
                driver.create(name)
            with atomic.ActionTimer(self, "start"):
                driver.start(name)
            with atomic.ActionTimer(self, "stop"):
                driver.stop(name)
            with atomic.ActionTimer(self, "remove"):
                driver.remove(name)
            done = True
        except BaseException:
            failed = True
            raise
        finally:
            if not done:
                self._discard(driver, name, failed)


@validation.add("enum", param_name="runtime",
                values=list(registry.LIFECYCLE_NAMES))
@validation.add("rcbench_lifecycle_ready", runtime_param="runtime")
@scenario.configure(name="ContainerLifecycle.run_and_remove",
                    platform="default", context=_CONTEXTS)
class RunAndRemove(LifecycleScenario):

    def run(self, runtime):
        """Run an instance (create + start in one request), remove it.

        The atomic action is run (ptcr's Run); the removal after it is
        not timed.

        :param runtime: see create_start_stop_remove
        """
        driver = self._driver(runtime)
        self._environment(driver)
        name = self.generate_random_name()
        failed = False
        try:
            with atomic.ActionTimer(self, "run"):
                driver.run(name)
        except BaseException:
            failed = True
            raise
        finally:
            self._discard(driver, name, failed)


@validation.add("enum", param_name="runtime",
                values=list(registry.LIFECYCLE_NAMES))
@validation.add("number", param_name="instances", minval=1, maxval=1000,
                integer_only=True)
@validation.add("number", param_name="settle", minval=0, maxval=600,
                nullable=True)
@validation.add("rcbench_lifecycle_ready", runtime_param="runtime",
                instances_param="instances")
@scenario.configure(name="ContainerLifecycle.footprint",
                    platform="default", context=_CONTEXTS)
class Footprint(LifecycleScenario):

    def run(self, runtime, instances=1, settle=2.0):
        """Memory of N idle instances: PSS per instance and the daemons'.

        Runs N instances one after another, waits until each workload
        runs (a VM's guest printed), lets them settle, then sums PSS over
        each instance's processes (/proc/PID/smaps_rollup). Metrics, in
        KiB, with N in their names: instance@N (all of an instance's
        processes, mean), overhead@N (the runtime's part: shim, conmon,
        lxc monitor, CRI pause; all of QEMU for a VM), daemon@N (the
        engine daemons with N running, total) and daemon_share@N (that
        over N), and host_drop@N (the host's MemAvailable before the
        first instance minus after the settle, over N: gVisor's method,
        blind to which process holds what, sensitive to anything else
        the host does meanwhile). Everything is removed.

        :param runtime: see create_start_stop_remove
        :param instances: N, how many run at once
        :param settle: seconds to wait before reading memory
        """
        driver = self._driver(runtime)
        self._environment(driver)
        conf = opts.register()
        names, failed = [], False
        # Memory the previous iteration's instances held comes back for a
        # moment after their removal: read the baseline once it has.
        time.sleep(min(settle, 1.0))
        available_before = footprint.mem_available_kib()
        try:
            for _ in range(instances):
                names.append(self.generate_random_name())
                driver.run(names[-1])
            for name in names:
                driver.wait_workload(name, conf.boot_timeout)
            time.sleep(settle)
            self._measure(driver, names, instances, available_before)
        except BaseException:
            failed = True
            raise
        finally:
            for name in names:
                self._discard(driver, name, failed)

    def _measure(self, driver, names, n, available_before):
        table = footprint.processes()
        daemons = driver.daemon_pids()
        stop_at = footprint.not_instance_pids(daemons, table)
        found = [footprint.of_instance(driver.workload_pid(name), table,
                                       stop_at, driver.workload_separate)
                 for name in names]
        mean = lambda values: sum(values) / len(values)  # noqa: E731
        daemon = float(footprint.of_daemons(daemons))
        values = {
            "instance": mean([f.instance_kib for f in found]),
            "overhead": mean([f.overhead_kib for f in found]),
            "daemon": daemon,
            "daemon_share": daemon / n,
            "host_drop": (available_before
                          - footprint.mem_available_kib()) / n}
        records = [metrics.Record(
            "%s.%s@%d" % (tables.FOOTPRINT, name, n), value, "KiB",
            False, {"instances": n, "runtime": driver.name})
            for name, value in values.items()]
        self.add_output(additive={
            "title": tables.FOOTPRINT, "chart_plugin": "StackedArea",
            "description": "PSS in KiB with %d instances running; "
                           "overhead processes of the first: %s"
                           % (n, ", ".join(found[0].processes) or "none"),
            "data": metrics.stats_rows(records)})
        self.add_output(complete=metrics.records_table(records))
