"""One guest image per task in Glance, shared with the task's projects.

rcbench_guest (shared: true) uploads a form of the guest image once per
Rally task, as the admin, with visibility "shared", and adds each
workload's projects as members (a member may boot an image shared with
it whatever its member status). Later workloads of the task find it by
its name and properties; the task's last workload booting the form
(last: true), or any workload when the task is being aborted, deletes
it. ``rcbench cleanup --env`` deletes the ones of tasks that no longer
run (a Rally killed before its cleanup).

The image also keeps which compute hosts already cached it
(rcbench_warm_hosts): warm-up contexts boot there only once per task.
"""

from rally.common import logging
from rally.common import objects
from rally import consts

LOG = logging.getLogger(__name__)
TASK_PROPERTY = "rcbench_task"
FORM_PROPERTY = "rcbench_form"
ROLE_PROPERTY = "rcbench_role"
WARM_PROPERTY = "rcbench_warm_hosts"
PREFIX = "rcbench-guest-"


def name_of(task_id, form, role):
    """The Glance name of a role (disk, kernel, ramdisk) of a task's form.

    Lower case: Docker takes the docker form's name as its repository.
    """
    suffix = "" if role == "disk" else "-" + role
    return ("%s%s-%s%s" % (PREFIX, task_id, form, suffix)).lower()


def find(glance, task_id, form):
    """{role: image} of the task's uploaded form ({} when there is none)."""
    found = {}
    for image in glance.images.list(filters={TASK_PROPERTY: task_id,
                                             FORM_PROPERTY: form}):
        if image.get("status") == "active":
            found[image.get(ROLE_PROPERTY, "disk")] = image
    return found


def share(glance, image_ids, project_id):
    """Make the task's project a member of each image (idempotent)."""
    for image_id in image_ids:
        members = {m["member_id"] for m in glance.image_members.list(
            image_id)}
        if project_id not in members:
            glance.image_members.create(image_id, project_id)


def warm_hosts(image):
    """The compute hosts that cached the image during the task."""
    return set(filter(None, (image.get(WARM_PROPERTY) or "").split(",")))


def add_warm_hosts(glance, image, hosts):
    hosts = warm_hosts(image) | set(hosts)
    glance.images.update(image["id"], **{WARM_PROPERTY: ",".join(
        sorted(hosts))})


def aborting(task_id):
    """Whether the task is being aborted: the image goes now.

    Its later workloads will not run.
    """
    try:
        return objects.Task.get_status(task_id) in (
            consts.TaskStatus.ABORTING, consts.TaskStatus.SOFT_ABORTING,
            consts.TaskStatus.ABORTED)
    except Exception:  # no such task in this DB: keep the image
        return False


def delete(glance, images):
    for image in images:
        try:
            glance.images.delete(image["id"])
            LOG.info("deleted the task's shared guest image %s (%s)"
                     % (image["name"], image["id"]))
        except Exception as e:
            if "NotFound" not in type(e).__name__ and "404" not in str(e):
                LOG.warning("shared guest image %s (%s) not deleted: %s"
                            % (image["name"], image["id"], e))


def leftovers(glance, running):
    """Shared guest images of tasks that do not run any more.

    running(task_id) -> whether that task still runs.
    """
    return [image for image in glance.images.list(
        filters={"visibility": "shared"})
        if image.get(TASK_PROPERTY) and not running(image[TASK_PROPERTY])]
