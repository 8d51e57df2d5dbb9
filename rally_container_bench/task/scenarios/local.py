"""LocalInstances: VMs and containers on this machine's own engines."""

import contextlib

from rally.common import logging
from rally.common import validation
from rally.task import atomic
from rally.task import scenario

from rally_container_bench.drivers import native
from rally_container_bench.drivers import registry
from rally_container_bench import opts
from rally_container_bench.task.scenarios import sysbench_utils

LOG = logging.getLogger(__name__)

_CONTEXTS = {"rcbench_interrupt@default": {},
             "rcbench_local_cleanup@default": {}}


class LocalInstancesScenario(sysbench_utils.SysbenchScenarioMixin,
                             scenario.Scenario):
    """Phases of one instance's life as Rally atomic actions."""

    def _driver(self, driver):
        return registry.prepared_driver(driver, opts.register())

    @staticmethod
    def _metadata(engine):
        return dict(native.host_facts(), **engine.describe())

    @contextlib.contextmanager
    def _instance(self, driver):
        """Boot (build + network); always delete, timed when it booted.

        When the iteration already failed and the delete fails too (e.g.
        the engine died), the iteration reports the first error; the
        cleanup context or ``rcbench cleanup`` gets the instance later.
        """
        conf = opts.register()
        instance = None
        failed = False
        try:
            with atomic.ActionTimer(self, "build"):
                instance = driver.create(self.generate_random_name())
                driver.wait_running(instance, conf.boot_timeout)
            with atomic.ActionTimer(self, "network"):
                driver.wait_reachable(instance, conf.ssh_timeout)
            driver.record_engine_times(instance)
            yield instance
        except BaseException:
            failed = True
            raise
        finally:
            if instance is not None:
                try:
                    with atomic.ActionTimer(self, "delete"):
                        driver.delete(instance)
                        driver.wait_deleted(instance, conf.delete_timeout)
                except Exception as e:
                    if not failed:
                        raise
                    LOG.warning("%s was not deleted after the iteration "
                                "failed: %s" % (instance.name, e))
                self.add_output(complete=_engine_times_table(instance))


def _engine_times_table(instance):
    rows = [[key, "" if value is None else "%.6f" % value]
            for key, value in sorted(instance.engine_times.items())]
    return {"title": "engine timestamps",
            "description": "The engine's own clock (epoch seconds) for %s"
                           % instance.name,
            "chart_plugin": "Table",
            "data": {"cols": ["event", "epoch_s"], "rows": rows}}


@validation.add("enum", param_name="driver", values=list(registry.NAMES))
@validation.add("rcbench_host_capacity", driver_param="driver")
@validation.add("rcbench_engine_ready", driver_param="driver")
@scenario.configure(name="LocalInstances.boot_and_delete",
                    platform="default", context=_CONTEXTS)
class BootAndDelete(LocalInstancesScenario):

    def run(self, driver):
        """Boot an instance on a local engine, wait for SSH, delete it.

        KEK's "boot a server and then delete" without a cloud: atomic
        actions build (create request -> engine says running), network
        (running -> an SSH login succeeds) and delete (delete request ->
        the engine no longer lists it). The engine's own timestamps are
        in the "engine timestamps" table.

        :param driver: local engine: see ``rcbench doctor`` for what
            this host can run
        """
        engine = self._driver(driver)
        self.add_environment(self._metadata(engine))
        with self._instance(engine):
            pass


@validation.add("enum", param_name="driver", values=list(registry.NAMES))
@validation.add("rcbench_host_capacity", driver_param="driver")
@validation.add("rcbench_engine_ready", driver_param="driver")
@validation.add("rcbench_sysbench_tests", param_name="tests")
@validation.add("number", param_name="timeout", minval=1, nullable=True)
@scenario.configure(name="LocalInstances.boot_sysbench_delete",
                    platform="default", context=_CONTEXTS)
class BootSysbenchDelete(LocalInstancesScenario):

    def run(self, driver, tests, workdir="/root", timeout=None):
        """Boot an instance, run sysbench inside it over SSH, delete it.

        The phases of boot_and_delete, and between network and delete
        each sysbench test as the atomic action sysbench.<test>, with its
        metrics in the report (as NativeHost.sysbench does on the host).

        :param driver: local engine: see ``rcbench doctor``
        :param tests: sysbench presets or test mappings (see
            NativeHost.sysbench)
        :param workdir: directory inside the instance for fileio files
        :param timeout: seconds one sysbench command may take
        """
        engine = self._driver(driver)
        with self._instance(engine) as instance:
            with contextlib.closing(engine.executor(instance)) as executor:
                self.run_sysbench_tests(executor, tests, "sysbench",
                                        workdir, timeout,
                                        metadata=self._metadata(engine))
