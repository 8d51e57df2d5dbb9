"""Remove what a task left on the local engines, whatever happened.

A default context of every LocalInstances scenario: at the end of the
workload (also after failures, timeouts and aborts) it asks each local
engine for instances whose names Rally generated for this task, and
deletes them. Engines that are not running are skipped. Rally names a
scenario's instances after the workload (the context's owner id), not the
task.
"""

from rally.common import logging
from rally.task import context
from rally.task import scenario

from rally_container_bench import abort
from rally_container_bench.drivers import base
from rally_container_bench.drivers import registry
from rally_container_bench.lifecycle import registry as lifecycle_registry
from rally_container_bench import opts

LOG = logging.getLogger(__name__)


@context.configure(name="rcbench_local_cleanup", platform="default",
                   order=900, hidden=True)
class LocalCleanup(context.Context):
    CONFIG_SCHEMA = {"type": "object", "additionalProperties": False}

    #: the driver registry whose engines are asked
    registry = registry

    def setup(self):
        # The engines that answer now: one that stops answering during the
        # workload may have left instances behind (a warning at cleanup).
        self._answered = set(self.registry.NAMES)
        self.registry.leftovers(
            opts.register(), lambda name: False,
            on_error=lambda d, e: self._answered.discard(d))

    def cleanup(self):
        with abort.shielded():  # an aborted task's leftovers go too
            self._delete_leftovers()

    def _delete_leftovers(self):
        owner_id = self.get_owner_id()
        owner = scenario.Scenario.get(self.context["scenario_name"])
        task_id = self.context["task"]["uuid"]

        def unreachable(driver, error):
            # An engine that never ran is normal (debug); one that died
            # during the workload may leave instances (warning, the fix).
            if driver in getattr(self, "_answered", ()):
                LOG.warning("cleanup: %s does not answer (%s); once it "
                            "does, run: rcbench cleanup --task %s"
                            % (driver, error, task_id))
            else:
                LOG.debug("cleanup: %s not asked: %s" % (driver, error))

        found = self.registry.leftovers(
            opts.register(),
            lambda name: owner.name_matches_object(name, task_id=owner_id),
            on_error=unreachable)
        for driver, name in found:
            LOG.warning("cleanup: deleting leftover %s instance %s"
                        % (driver.name, name))
            try:
                self._remove(driver, name)
            except base.DriverError as e:
                LOG.error("cleanup: could not delete %s: %s" % (name, e))

    @staticmethod
    def _remove(driver, name):
        driver.remove(name)


@context.configure(name="rcbench_lifecycle_cleanup", platform="default",
                   order=900, hidden=True)
class LifecycleCleanup(LocalCleanup):
    """The same for ContainerLifecycle scenarios' runtimes."""

    registry = lifecycle_registry

    @staticmethod
    def _remove(driver, name):
        driver.force_remove(name)
