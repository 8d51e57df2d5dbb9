"""rcbench_flavor_owner: the task's own flavors say which task made them.

    contexts:
      flavors: [{name: rcbench-kek-1a2b3c, ...}]   # rally-openstack's
      rcbench_flavor_owner: {names: [rcbench-kek-1a2b3c]}

rally-openstack's flavors context deletes the flavors it made at the end
of the workload; a Rally killed before that leaves them (the task's
random suffix keeps two tasks apart, and so names no owner). Right
after that context (order 340) this one marks each flavor with the
task's uuid in an extra spec of rcbench's namespace, which Nova's
scheduler filters and the report's tuning label ignore; ``rcbench
cleanup --env`` deletes the marked flavors of tasks that no longer run,
or of ``--task``.
"""

from rally.common import logging
from rally.task import context

from rally_container_bench.engines.openstack import nova_facts

LOG = logging.getLogger(__name__)
TASK_SPEC = nova_facts.OWN_SPECS + "task"


@context.configure(name="rcbench_flavor_owner", platform="openstack",
                   order=341)
class FlavorOwner(context.Context):
    """Marks the workload's flavors with the task's uuid."""

    CONFIG_SCHEMA = {
        "type": "object",
        "additionalProperties": False,
        "properties": {"names": {"type": "array", "minItems": 1,
                                 "items": {"type": "string",
                                           "minLength": 1}}},
        "required": ["names"]}

    def setup(self):
        admin = self.context.get("admin")
        if not admin:
            LOG.info("rcbench_flavor_owner: no admin credentials: the "
                     "flavors are not marked")
            return
        nova = admin["credential"].clients().nova()
        wanted = set(self.config["names"])
        task = self.context["task"]["uuid"]
        for flavor in nova.flavors.list(is_public=None):
            if flavor.name in wanted:
                flavor.set_keys({TASK_SPEC: task})

    def cleanup(self):
        """Nothing: the flavors context deletes the flavors."""


def leftovers(nova, running):
    """[(flavor, task)] marked by tasks that do not run any more.

    running(task_id) -> whether that task still runs.
    """
    found = []
    for flavor in nova.flavors.list(is_public=None):
        if not flavor.name.startswith("rcbench-"):
            continue  # one extra-spec request per flavor: ours only
        task = flavor.get_keys().get(TASK_SPEC)
        if task and not running(task):
            found.append((flavor, task))
    return found
