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

from rally_container_bench.drivers import base
from rally_container_bench.drivers import registry
from rally_container_bench import opts

LOG = logging.getLogger(__name__)


@context.configure(name="rcbench_local_cleanup", platform="default",
                   order=900, hidden=True)
class LocalCleanup(context.Context):
    CONFIG_SCHEMA = {"type": "object", "additionalProperties": False}

    def setup(self):
        pass

    def cleanup(self):
        owner_id = self.get_owner_id()
        owner = scenario.Scenario.get(self.context["scenario_name"])
        found = registry.leftovers(
            opts.register(),
            lambda name: owner.name_matches_object(name, task_id=owner_id),
            on_error=lambda driver, e: LOG.debug(
                "cleanup: %s not asked: %s" % (driver, e)))
        for driver, name in found:
            LOG.warning("cleanup: deleting leftover %s instance %s"
                        % (driver.name, name))
            try:
                driver.remove(name)
            except base.DriverError as e:
                LOG.error("cleanup: could not delete %s: %s" % (name, e))
