"""Whether a Glance image can boot on a Nova hypervisor, from its fields.

What Nova would refuse only once a server is scheduled (ImageProperties
filter's "No valid host", a libvirt driver that cannot start the disk),
read from the image before anything boots. Pure: the image is Glance's
v2 record as a dict.
"""

# disk_format -> boots as a whole VM disk; aki/ari are a kernel and an
# initrd (they boot no server of their own), ami a filesystem that needs
# them linked.
VM_DISK_FORMATS = ("raw", "qcow2", "vmdk", "vdi", "vhd", "vhdx", "iso",
                   "ploop")
LXC_DISK_FORMATS = ("raw", "qcow2")
# hw_vm_mode Nova's libvirt driver gives each hypervisor.
VM_MODES = {"qemu": "hvm", "kvm": "hvm", "lxc": "exe"}
# QEMU and KVM hosts are both libvirt's qemu driver.
_FAMILY = {"kvm": "qemu"}


def _family(hypervisor_type):
    hypervisor_type = (hypervisor_type or "").lower()
    return _FAMILY.get(hypervisor_type, hypervisor_type)


def problems(image, hypervisor_type, architecture=None):
    """[why the image cannot boot there], empty where nothing is seen.

    image: Glance's record ({"status", "disk_format", "container_format",
    "hypervisor_type", "hw_vm_mode", "architecture", ...}); architecture:
    the machine the harness's pushed sysbench build runs on (None: any).
    """
    found = []
    status = image.get("status")
    if status and status != "active":
        found.append("its status is %s, not active" % status)
    wanted = _family(hypervisor_type)
    own = image.get("hypervisor_type")
    if own and wanted and _family(own) != wanted:
        found.append("its hypervisor_type is %s: Nova's "
                     "ImagePropertiesFilter puts it on %s hosts only, not "
                     "on %s" % (own, own, hypervisor_type))
    disk = image.get("disk_format")
    container = image.get("container_format")
    if wanted == "qemu":
        ami = disk == "ami" and container == "ami"
        if ami and not image.get("kernel_id"):
            found.append("it is an ami without kernel_id: a root "
                         "filesystem boots with a kernel of its own")
        elif disk and disk not in VM_DISK_FORMATS and not ami:
            found.append("its disk_format is %s, not a disk a VM boots "
                         "(%s)" % (disk, ", ".join(VM_DISK_FORMATS)))
        if container and container not in ("bare", "ovf", "ova") \
                and not ami:
            found.append("its container_format is %s: a VM boots bare "
                         "(or ovf) images" % container)
    elif wanted == "lxc":
        if disk and disk not in LXC_DISK_FORMATS:
            found.append("its disk_format is %s: libvirt-LXC mounts a raw "
                         "or qcow2 filesystem" % disk)
        if container and container != "bare":
            found.append("its container_format is %s, not bare"
                         % container)
    elif wanted == "docker" and container and container != "docker":
        found.append("its container_format is %s: a Docker host loads "
                     "docker archives" % container)
    mode = image.get("hw_vm_mode") or image.get("vm_mode")
    if mode and wanted in VM_MODES and mode != VM_MODES[wanted]:
        found.append("its hw_vm_mode is %s; %s runs %s" % (
            mode, hypervisor_type, VM_MODES[wanted]))
    arch = image.get("architecture")
    if arch and architecture and _arch(arch) != _arch(architecture):
        found.append("its architecture is %s: the sysbench build pushed "
                     "to it is %s (set [container_bench] sysbench_build = "
                     "image to run the image's own)" % (arch, architecture))
    return found


def _arch(name):
    name = name.lower()
    return {"amd64": "x86_64", "x64": "x86_64", "arm64": "aarch64"}.get(
        name, name)


def flavor_problems(image, ram_mb, disk_gb):
    """[why Nova refuses the image on a flavor of that RAM and disk].

    disk_gb 0 is a flavor whose root disk takes the image's size.
    """
    found = []
    if image.get("min_ram") and ram_mb is not None and \
            ram_mb < image["min_ram"]:
        found.append("it needs min_ram %d MiB, the flavor has %d"
                     % (image["min_ram"], ram_mb))
    if not disk_gb:
        return found
    if image.get("min_disk") and disk_gb < image["min_disk"]:
        found.append("it needs min_disk %d GB, the flavor's disk is %d"
                     % (image["min_disk"], disk_gb))
    size = image.get("virtual_size") or 0
    if size > disk_gb << 30:
        found.append("its disk is %.1f GiB, larger than the flavor's %d GB "
                     "(Nova: FlavorDiskSmallerThanImage)"
                     % (size / float(1 << 30), disk_gb))
    return found
