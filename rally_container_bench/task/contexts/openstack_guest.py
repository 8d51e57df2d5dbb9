"""rcbench_guest: the offline-built guest image in Glance, and its key.

Uploads the guest image (``rcbench images build``) in the form the target
hypervisor boots, for every tenant of the task:

  qemu, kvm  an ext4 root filesystem image (qcow2, no bootloader) with its
             kernel (aki) and initrd (ari) linked by kernel_id/ramdisk_id
             and an os_command_line that starts the guest init in DHCP mode
  lxc        the same root filesystem image for Nova's libvirt-LXC driver
             (which mounts it and starts /sbin/init)
  docker     a docker-archive (container_format docker) of the root
             filesystem, tagged with the Glance image's name, command sshd:
             what Zun (image_driver glance) and nova-docker load into the
             compute host's Docker

and sets ``hypervisor_type`` on it, so Nova's ImagePropertiesFilter puts
the server on a compute node of that hypervisor. The key pair registered
in Nova holds the image's own public key (the one root's authorized_keys
already lists), so a login works whether or not the cloud injects keys.
With ``upload: false`` only the key pair is created: boot your own image
(e.g. a nova-docker one) that authorizes the same key, or a cloud image
whose cloud-init installs the key pair's key (``config_drive: true``
where the cloud has no metadata service).

``key`` says whose key: ``image`` the guest image's (it must be built
here), ``generated`` a key pair made for this workload (core/ssh_keys:
the private half in a private directory here, removed at cleanup; only
with ``upload: false``: the uploaded image authorizes its own key),
``auto`` (default) the guest image's where it is uploaded or built here,
else a generated one. A site's image needs no build of this project.

With ``shared: true`` and admin credentials the upload is the task's
(guest_share): once per task and form, shared with every workload's
projects, deleted by the workload with ``last: true`` (the task's last to
boot that form) or when the task is aborted; the workload's own
iterations then boot what the task's earlier workloads cached. Else, and
always for the key pair, everything is named with Rally's random names
and deleted at cleanup, also by Rally's resource cleanup when this
context's own cleanup cannot run.
"""

import contextlib
import os
import string
import tempfile

from rally.common import logging
from rally.common import validation
from rally import exceptions
from rally.task import context
from rally_openstack.common import consts
from rally_openstack.common.services.image import image as image_service
from rally_openstack.task import context as os_context

from rally_container_bench.core import ssh_keys
from rally_container_bench.engines import registry
from rally_container_bench.images import guest as guest_lib
from rally_container_bench import opts
from rally_container_bench.task.contexts import guest_share

LOG = logging.getLogger(__name__)

# What the guest init needs from the kernel command line of a Nova VM:
# its root (the image is a filesystem, no partition table) and "dhcp".
VM_COMMAND_LINE = ("root=/dev/vda rw console=ttyS0 net.ifnames=0 "
                   "init=/sbin/rcbench-init -- dhcp")
VM_HYPERVISORS = ("qemu", "kvm")
HYPERVISORS = VM_HYPERVISORS + ("lxc", "docker")
KEY_SOURCES = ("auto", "image", "generated")
# The docker form is written per upload: its tag is the image's name.
DOCKER_ARCHIVE = "<docker-archive named after the image>"


def image_forms(hypervisor_type, image):
    """The Glance images a hypervisor boots, in upload order.

    [(role, disk_format, container_format, path, properties)];
    "{kernel}" and "{ramdisk}" in properties name earlier uploads.
    """
    disk_props = {"hypervisor_type": hypervisor_type,
                  "rcbench_guest_id": image.id}
    if hypervisor_type in VM_HYPERVISORS:
        disk_props.update(kernel_id="{kernel}", ramdisk_id="{ramdisk}",
                          os_command_line=VM_COMMAND_LINE)
        return [("kernel", "aki", "aki", image.kernel, {}),
                ("ramdisk", "ari", "ari", image.initrd, {}),
                ("disk", "qcow2", "bare", image.disk, disk_props)]
    if hypervisor_type == "lxc":
        disk_props["hw_vm_mode"] = "exe"
        return [("disk", "qcow2", "bare", image.disk, disk_props)]
    if hypervisor_type == "docker":
        return [("disk", "raw", "docker", DOCKER_ARCHIVE, disk_props)]
    raise ValueError("no image form for hypervisor_type %r" % hypervisor_type)


def _resolved(properties, uploaded):
    return {key: value.format(**uploaded) if isinstance(value, str)
            else value for key, value in properties.items()}


def key_source(config):
    """image or generated: the key an rcbench_guest config logs in with."""
    chosen = (config or {}).get("key", "auto")
    if chosen != "auto":
        return chosen
    if (config or {}).get("upload", True):
        return "image"
    built = guest_lib.GuestImage.in_cache(
        opts.register().image_cache_dir).is_built()
    return "image" if built else "generated"


@validation.add("required_platform", platform="openstack", users=True)
@context.configure(name="rcbench_guest", platform="openstack", order=410)
class GuestImage(os_context.OpenStackContext):
    """Upload the rally-container-bench guest image, register its key."""

    # Docker takes the docker form's name as its repository: lower case.
    RESOURCE_NAME_ALLOWED_CHARACTERS = string.ascii_lowercase + string.digits

    CONFIG_SCHEMA = {
        "type": "object",
        "$schema": consts.JSON_SCHEMA,
        "properties": {
            "hypervisor_type": {"enum": list(HYPERVISORS)},
            "upload": {"type": "boolean"},
            "properties": {"type": "object",
                           "additionalProperties": {"type": "string"}},
            "shared": {"type": "boolean"},
            "config_drive": {"type": "boolean"},
            "last": {"type": "boolean"},
            "key": {"enum": list(KEY_SOURCES)},
        },
        "additionalProperties": False,
    }
    DEFAULT_CONFIG = {"hypervisor_type": "qemu", "upload": True}

    def setup(self):
        upload = self.config.get("upload", True)
        try:
            image = registry.guest_image(opts.register()) \
                if upload or key_source(self.config) == "image" else None
        except Exception as e:
            raise exceptions.ContextSetupFailure(
                ctx_name=self.get_name(), msg=str(e))
        key = self._key(image)
        # removed at cleanup even where setup fails before a tenant has it
        self._key_dir = key.get("generated_key_dir")
        form = self.config.get("hypervisor_type", "qemu")
        shared = self._shared(image, form) if upload else None
        for user, tenant_id in self._iterate_per_tenants():
            clients = user["credential"].clients()
            guest = dict(key, hypervisor_type=form,
                         config_drive=self.config.get("config_drive",
                                                      False))
            keypair = clients.nova().keypairs.create(
                self.generate_random_name(), public_key=guest.pop(
                    "public_key"))
            guest["key_name"] = keypair.name
            if shared is not None:
                guest_share.share(self._admin_glance(), shared[0].values(),
                                  tenant_id)
                guest.update(uploaded=shared[0], image_name=shared[1],
                             shared=True)
            elif upload:
                guest["uploaded"], guest["image_name"] = self._upload(
                    clients, image, form)
            if "uploaded" in guest:
                guest["image"] = guest["uploaded"]["disk"]
            self.context["tenants"][tenant_id]["rcbench_guest"] = guest

    def _key(self, image):
        """The login key's fields of a tenant's rcbench_guest."""
        if image is not None:
            with open(image.private_key + ".pub") as f:
                return {"private_key_file": image.private_key,
                        "public_key": f.read().strip(),
                        "image_dir": image.dir,
                        "key_origin": "the guest image in %s" % image.dir}
        pair = ssh_keys.generate()
        LOG.info("generated the key pair of this workload in %s" % pair.dir)
        return {"private_key_file": pair.private_key_file,
                "public_key": pair.public_key, "generated_key_dir": pair.dir,
                "key_origin": "the key pair generated for this workload"}

    def _admin_glance(self):
        return self.context["admin"]["credential"].clients().glance("2")

    def _shared(self, image, form):
        """({role: id}, disk name) of the task's upload, or None.

        None where it is not asked for, or without the admin's rights
        (each workload then uploads its own).
        """
        if not self.config.get("shared") or not self.context.get("admin"):
            return None
        task_id = self.context["task"]["uuid"]
        found = guest_share.find(self._admin_glance(), task_id, form)
        if "disk" not in found:
            uploaded, _ = self._upload(
                self.context["admin"]["credential"].clients(), image, form,
                task_id=task_id)
            found = guest_share.find(self._admin_glance(), task_id, form)
            if set(found) != set(uploaded):
                raise exceptions.ContextSetupFailure(
                    ctx_name=self.get_name(),
                    msg="the task's guest image was uploaded but Glance "
                        "does not list it by its properties (%s)"
                        % ", ".join(sorted(uploaded.values())))
        else:
            LOG.info("using the task's guest image %s (%s), uploaded by "
                     "an earlier workload" % (found["disk"]["name"],
                                              found["disk"]["id"]))
        return ({role: i["id"] for role, i in found.items()},
                found["disk"]["name"])

    def _upload(self, clients, image, form, task_id=None):
        glance = image_service.Image(
            clients, name_generator=self.generate_random_name,
            atomic_inst=self.atomic_actions())
        uploaded = {}
        for role, disk_format, container_format, path, props in \
                image_forms(form, image):
            props = dict(_resolved(props, uploaded),
                         **self.config.get("properties", {}))
            if task_id:
                name = guest_share.name_of(task_id, form, role)
                props.update({guest_share.TASK_PROPERTY: task_id,
                              guest_share.FORM_PROPERTY: form,
                              guest_share.ROLE_PROPERTY: role})
            else:
                name = self.generate_random_name()
            with _image_file(image, path, name) as location:
                LOG.info("uploading the guest image's %s (%s) to Glance "
                         "as %s" % (role, location, name))
                created = glance.create_image(
                    image_name=name, container_format=container_format,
                    image_location=location, disk_format=disk_format,
                    visibility="shared" if task_id else "private",
                    properties=props)
            uploaded[role] = created.id
        return uploaded, name

    def cleanup(self):
        for user, tenant_id in self._iterate_per_tenants():
            guest = self.context["tenants"][tenant_id].get(
                "rcbench_guest", {})
            clients = user["credential"].clients()
            if guest.get("key_name"):
                with _logged("key pair %s" % guest["key_name"]):
                    clients.nova().keypairs.delete(guest["key_name"])
            if guest.get("generated_key_dir"):
                ssh_keys.remove(guest["generated_key_dir"])
            if guest.get("shared"):
                continue  # the task's: see below
            for image_id in guest.get("uploaded", {}).values():
                with _logged("image %s" % image_id):
                    clients.glance("2").images.delete(image_id)
        if getattr(self, "_key_dir", None):
            ssh_keys.remove(self._key_dir)
        self._cleanup_shared()
        # What the loop above could not see (setup failed half-way). Imported
        # here: the module reads rally-openstack's options at import, which
        # may not be registered yet when Rally loads this package.
        from rally_openstack.task.cleanup import manager as resource_manager
        resource_manager.cleanup(
            names=["glance.images", "nova.keypairs"],
            admin=self.context.get("admin"), users=self.context["users"],
            superclass=self.__class__, task_id=self.get_owner_id())

    def _cleanup_shared(self):
        """The task's image goes with its last workload, or an abort."""
        if not self.config.get("shared") or not self.context.get("admin"):
            return
        task_id = self.context["task"]["uuid"]
        if not self.config.get("last") and not guest_share.aborting(task_id):
            return
        glance = self._admin_glance()
        guest_share.delete(glance, guest_share.find(
            glance, task_id, self.config.get("hypervisor_type", "qemu"))
            .values())


@contextlib.contextmanager
def _image_file(image, path, name):
    """The file to upload: path, or a docker-archive tagged name:latest."""
    if path != DOCKER_ARCHIVE:
        yield path
        return
    with tempfile.TemporaryDirectory(prefix="rcbench-glance-") as tmp:
        archive = os.path.join(tmp, "image.tar")
        image.write_docker_archive(archive, name + ":latest")
        yield archive


@contextlib.contextmanager
def _logged(what):
    try:
        yield
    except Exception as e:
        if "NotFound" not in type(e).__name__ and "404" not in str(e):
            LOG.warning("rcbench_guest cleanup: %s not deleted: %s"
                        % (what, e))
