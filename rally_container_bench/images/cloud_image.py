"""A stand-in for a site's own cloud image, built offline.

What an operator boots (Debian's, CentOS's or Ubuntu's generic cloud
images): a whole disk with a partition table and a boot loader, cloud-init
and sshd, no sysbench and no key baked in; the login is cloud-init's
default user, root's is refused. This image is one such, made here from
Debian packages only because no cloud image can be downloaded: the
harness must treat it exactly as a site's image (the key through
cloud-init from a seed, a config drive or the metadata service, the wait
for cloud-init, its sysbench pushed). It is labelled a stand-in wherever
it is used.

  disk.qcow2     MBR, one ext4 partition (the root), extlinux, 2 GiB
  manifest.json  its inputs, kernel, the login user

Cached in <cache>/cloud-standin-<hash>/ by its inputs.
"""

import hashlib
import json
import os
import shutil
import subprocess
import tempfile
import time
import uuid

from rally_container_bench.images import guest
from rally_container_bench import opts

BUILDER_VERSION = "1"
PACKAGES = ("linux-image-cloud-amd64", "initramfs-tools", "systemd-sysv",
            "udev", "cloud-init", "openssh-server", "ifupdown",
            "isc-dhcp-client", "extlinux", "syslinux-common", "e2fsprogs",
            "sudo", "locales")
USER = "debian"  # Debian's cloud.cfg default_user
DISK_MB = 2048
PART_START = 1 << 20  # bytes: the partition starts at 1 MiB
# what the build runs on this host, and Debian's package of each
TOOLS = (("mmdebstrap", "mmdebstrap"), ("sfdisk", "fdisk"),
         ("mkfs.ext4", "e2fsprogs"), ("losetup", "mount"),
         ("qemu-img", "qemu-utils"))
MBR = "/usr/lib/syslinux/mbr/mbr.bin"  # in the rootfs (syslinux-common)
# Where cloud-init looks, in order: a seed labelled cidata (NoCloud: this
# host's tests), a config drive, the metadata service.
CLOUD_CFG = """# rally-container-bench cloud image stand-in
datasource_list: [NoCloud, ConfigDrive, OpenStack, None]
# the one locale every glibc has (no locale-gen in the image)
locale: C.UTF-8
"""
EXTLINUX_CONF = """DEFAULT linux
TIMEOUT 0
PROMPT 0
LABEL linux
  KERNEL /boot/vmlinuz-%(kernel)s
  INITRD /boot/initrd.img-%(kernel)s
  APPEND root=UUID=%(uuid)s ro console=ttyS0,115200 net.ifnames=0
"""


class CloudImage(object):
    def __init__(self, directory, ident):
        self.id = ident
        self.dir = directory
        self.disk = os.path.join(directory, "disk.qcow2")
        self.manifest = os.path.join(directory, "manifest.json")

    def is_built(self):
        return os.path.exists(self.manifest)

    def describe(self):
        with open(self.manifest) as f:
            return json.load(f)


def inputs(mirror=guest.DEFAULT_MIRROR):
    return {"builder": BUILDER_VERSION, "suite": guest.SUITE,
            "mirror": mirror, "packages": list(PACKAGES),
            "cloud_cfg": CLOUD_CFG, "extlinux": EXTLINUX_CONF,
            "disk_mb": DISK_MB}


def in_cache(cache_dir, mirror=guest.DEFAULT_MIRROR):
    ident = hashlib.sha256(json.dumps(inputs(mirror), sort_keys=True)
                           .encode()).hexdigest()[:12]
    return CloudImage(os.path.join(opts.resolved_dir(cache_dir),
                                   "cloud-standin-" + ident), ident)


def build(cache_dir, mirror=guest.DEFAULT_MIRROR, force=False):
    """Build the stand-in unless it is cached; return a CloudImage."""
    image = in_cache(cache_dir, mirror)
    if image.is_built() and not force:
        return image
    if os.geteuid() != 0:
        raise guest.ImageError("building the cloud image stand-in needs "
                               "root (mmdebstrap, a loop device)")
    # before the minutes of mmdebstrap: sfdisk is Debian's fdisk package,
    # not essential (a fresh machine lacked it: CI 2026-12-08)
    guest.require_tools(TOOLS)
    started = time.monotonic()
    staged = image.dir + ".partial"
    shutil.rmtree(staged, ignore_errors=True)
    os.makedirs(staged)
    try:
        rootfs = os.path.join(staged, "rootfs")
        guest.log("cloud image stand-in %s" % image.id)
        guest.bootstrap(rootfs, mirror, PACKAGES)
        root_uuid = str(uuid.uuid4())
        kernel = _configure(rootfs, root_uuid)
        _disk(rootfs, root_uuid, os.path.join(staged, "disk.qcow2"))
        shutil.rmtree(rootfs)
        with open(os.path.join(staged, "manifest.json"), "w") as f:
            json.dump(dict(inputs(mirror), id=image.id, kernel=kernel,
                           user=USER, stand_in=True, root_uuid=root_uuid,
                           built_at=time.strftime("%Y-%m-%dT%H:%M:%SZ",
                                                  time.gmtime())),
                      f, indent=2, sort_keys=True)
        shutil.rmtree(image.dir, ignore_errors=True)
        os.rename(staged, image.dir)
    except BaseException:
        shutil.rmtree(staged, ignore_errors=True)
        raise
    guest.log("cloud image stand-in %s built in %.0f s: %s"
              % (image.id, time.monotonic() - started, image.dir))
    return image


def _configure(rootfs, root_uuid):
    """fstab, boot loader config, cloud-init's sources; the kernel name."""
    kernels = sorted(n for n in os.listdir(os.path.join(rootfs, "boot"))
                     if n.startswith("vmlinuz-"))
    if not kernels:
        raise guest.ImageError("no kernel under %s/boot" % rootfs)
    with open(os.path.join(rootfs, "etc", "fstab"), "w") as f:
        f.write("UUID=%s / ext4 defaults 0 1\n" % root_uuid)
    kernel = kernels[-1][len("vmlinuz-"):]
    extlinux = os.path.join(rootfs, "boot", "extlinux")
    os.makedirs(extlinux, exist_ok=True)
    with open(os.path.join(extlinux, "extlinux.conf"), "w") as f:
        f.write(EXTLINUX_CONF % {"uuid": root_uuid, "kernel": kernel})
    with open(os.path.join(rootfs, "etc", "cloud", "cloud.cfg.d",
                           "90_rcbench_standin.cfg"), "w") as f:
        f.write(CLOUD_CFG)
    with open(os.path.join(rootfs, "etc", "hostname"), "w") as f:
        f.write("rcbench-cloud-standin\n")
    guest.drop_apt_caches(rootfs)
    return kernel


def _disk(rootfs, root_uuid, qcow2):
    """rootfs as a bootable whole disk: MBR, one partition, extlinux."""
    raw = qcow2 + ".raw"
    size = DISK_MB << 20
    with open(raw, "wb") as f:
        f.truncate(size)
    guest._run(["sh", "-c", 'echo "start=%d, type=83, bootable" | '
                'sfdisk -q "$1"' % (PART_START // 512), "sh", raw],
               "sfdisk")
    # extlinux reads ext4 without the 64bit feature
    guest._run(["mkfs.ext4", "-q", "-F", "-O", "^64bit", "-U", root_uuid,
                "-L", "root", "-E", "offset=%d" % PART_START, "-d", rootfs,
                raw, "%dk" % ((size - PART_START) >> 10)], "mkfs.ext4")
    mount = tempfile.mkdtemp(prefix="rcbench-cloud-standin-")
    loop = guest._run(["losetup", "--find", "--show", "--offset",
                       str(PART_START), raw], "losetup").strip()
    try:
        guest._run(["mount", loop, mount], "mount")
        try:
            # the image's own extlinux, run from this host on the mount
            guest._run([os.path.join(mount, "usr", "bin", "extlinux"),
                        "--install", os.path.join(mount, "boot",
                                                  "extlinux")], "extlinux")
        finally:
            subprocess.run(["umount", mount], check=False)
    finally:
        subprocess.run(["losetup", "-d", loop], check=False)
        os.rmdir(mount)
    with open(os.path.join(rootfs, MBR.lstrip("/")), "rb") as f:
        mbr = f.read(440)
    with open(raw, "r+b") as f:
        f.write(mbr)
    guest._run(["qemu-img", "convert", "-O", "qcow2", raw, qcow2],
               "qemu-img convert")
    os.unlink(raw)
