"""Remove what a task left on the local engines, whatever happened.

A default context of every LocalInstances and ContainerLifecycle
scenario: at the end of the workload (also after failures, timeouts and
aborts) it asks each local engine's store for instances whose names Rally
generated for this workload, of either view, and deletes them
(engines.catalog.leftovers, the one cleanup path). Stores that do not
answer are skipped. Rally names a scenario's instances after the workload
(the context's owner id), not the task.
"""

from rally.common import logging
from rally.task import context
from rally.task import scenario

from rally_container_bench.core import abort
from rally_container_bench.engines import catalog
from rally_container_bench import opts

LOG = logging.getLogger(__name__)


@context.configure(name="rcbench_local_cleanup", platform="default",
                   order=900, hidden=True)
class LocalCleanup(context.Context):
    """Removes what the workload left on the local engines, either view.

    At the end of the workload, also after failures, timeouts and aborts:
    every local store is asked for instances Rally named for it. A
    default of every LocalInstances and ContainerLifecycle scenario.
    """

    CONFIG_SCHEMA = {"type": "object", "additionalProperties": False}

    def setup(self):
        # The stores that answer now: one that stops answering during the
        # workload may have left instances behind (a warning at cleanup).
        self._answered = set(catalog.stores())
        catalog.leftovers(opts.register(), lambda name: False,
                          on_error=lambda s, e: self._answered.discard(s))

    def cleanup(self):
        with abort.shielded():  # an aborted task's leftovers go too
            self._delete_leftovers()

    def _delete_leftovers(self):
        owner_id = self.get_owner_id()
        owner = scenario.Scenario.get(self.context["scenario_name"])
        task_id = self.context["task"]["uuid"]

        def unreachable(store, error):
            # A store that never ran is normal (debug); one that died
            # during the workload may keep instances (warning, the fix).
            if store in getattr(self, "_answered", ()):
                LOG.warning("cleanup: %s does not answer (%s); once it "
                            "does, run: rcbench cleanup --task %s"
                            % (store, error, task_id))
            else:
                LOG.debug("cleanup: %s not asked: %s" % (store, error))

        found = catalog.leftovers(
            opts.register(),
            lambda name: owner.name_matches_object(name, task_id=owner_id),
            on_error=unreachable)
        for cleaner, name in found:
            LOG.warning("cleanup: deleting leftover %s instance %s"
                        % (cleaner.name, name))
        conf = opts.register()
        for cleaner, name, why in catalog.discard_all(
                found, conf.cleanup_timeout):
            LOG.error("cleanup: " + catalog.left_line(cleaner, name, why,
                                                      task_id))


@context.configure(name="rcbench_lifecycle_cleanup", platform="default",
                   order=900, hidden=True)
class LifecycleCleanup(LocalCleanup):
    """The same context under its older name (task files may name it)."""
