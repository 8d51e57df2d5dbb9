"""Build the guest image offline, from Debian packages only.

No registry and no cloud image can be downloaded here, so one mmdebstrap
rootfs (minbase + openssh-server + sysbench + fio + a Debian kernel) is the
source of every form an engine needs:

  rootfs/        the tree (LXC uses it as the lower layer of an overlay)
  rootfs.tar     the tree without /boot and kernel modules (docker/podman
                 import it)
  disk.qcow2     ext4 filesystem image of the whole tree, no bootloader
  vmlinuz, initrd.img   booted directly by QEMU (-kernel/-initrd)
  id_ed25519     the key whose public half is root's authorized key

The rootfs also holds this host's sysbench bundle (sysbench_bundle.py) in
/opt/rcbench/sysbench-<id>/: a guest runs the build its native twin runs.

Everything lives in <cache>/guest-<hash>/, where the hash covers every
input (suite, mirror, packages, init script, builder version): a second
build with the same inputs reuses it. The build runs as root (mmdebstrap:
debootstrap's tree, its packages fetched in parallel and unpacked without
a sync after each file: 106 s against 4-5 min).
"""

import hashlib
import json
import os
import shutil
import subprocess
import sys
import time

from rally_container_bench.core import processes
from rally_container_bench.images import docker_archive
from rally_container_bench.images import sysbench_build
from rally_container_bench.images import sysbench_bundle
from rally_container_bench import opts

BUILDER_VERSION = "4"
SUITE = "bookworm"
DEFAULT_MIRROR = "http://deb.debian.org/debian"
# The cloud kernel: virtio and ext4 are what a guest needs here (QEMU,
# Nova's QEMU); the generic one's modules and initramfs took 40 s of a
# 66 s build (2026-12-05).
PACKAGES = ("openssh-server", "sysbench", "fio", "iperf3", "nginx-light",
            "iproute2", "kmod", "e2fsprogs", "linux-image-cloud-amd64",
            "initramfs-tools", "busybox")
DISK_SIZE = "4G"
KEY_NAME = "id_ed25519"
# A container of the guest image runs its sshd in the foreground, logging
# to stderr (the engine's log).
SSHD = ("/usr/sbin/sshd", "-D", "-e")
ENV = ("PATH=/usr/sbin:/usr/bin:/sbin:/bin",)

# PID 1 of a VM guest (QEMU boots it with init=) and the entry of a system
# container: mounts what sshd needs, brings up the network, runs sshd.
# "vm" (local QEMU): QEMU's user-mode network (10.0.2.15, gateway 10.0.2.2
# inside QEMU's own slirp). "dhcp" (a Nova VM, whose image passes it in
# os_command_line) or a libvirt-LXC container (Nova's LXC driver starts
# /sbin/init with container=lxc-libvirt): DHCP from Neutron.
INIT_SCRIPT = r"""#!/bin/sh
# rally-container-bench guest init: mount, network, sshd.
PATH=/usr/sbin:/usr/bin:/sbin:/bin
export PATH
mode=$1
[ "$container" = lxc-libvirt ] && mode=dhcp
mountpoint -q /proc || mount -t proc proc /proc
mountpoint -q /sys || mount -t sysfs sysfs /sys
mountpoint -q /dev || mount -t devtmpfs devtmpfs /dev
mkdir -p /dev/pts /run/sshd
mountpoint -q /dev/pts || mount -t devpts devpts /dev/pts
if [ "$mode" = vm ] || { [ "$mode" = dhcp ] && [ -e /dev/vda ]; }; then
    mount -o remount,rw / 2>/dev/null
    # The instance's disk may be larger than the image: grow into it
    # (vda on virtio-blk, sda on virtio-scsi: the kernel's root=).
    root=/dev/vda
    for arg in $(cat /proc/cmdline); do
        case "$arg" in root=/dev/*) root=${arg#root=} ;; esac
    done
    resize2fs "$root" >/dev/null 2>&1
    modprobe virtio_net
fi
if [ "$mode" = vm ] || [ "$mode" = dhcp ]; then
    ip link set lo up
    # The first interface that is not lo (udev may rename eth0 to ensN).
    dev=
    for i in $(seq 1 100); do
        for path in /sys/class/net/*; do
            [ "${path##*/}" = lo ] || { dev=${path##*/}; break; }
        done
        [ -n "$dev" ] && break
        sleep 0.1
    done
    echo "rcbench-guest: network on ${dev:-NO INTERFACE}"
    ip link set "$dev" up
    if [ "$mode" = dhcp ]; then
        # Retries until Neutron's dnsmasq answers, then stays to renew.
        busybox udhcpc -i "$dev" -s /sbin/rcbench-dhcp -t 60 -T 1 -b
    else
        ip addr add 10.0.2.15/24 dev "$dev"
        ip route add default via 10.0.2.2
    fi
fi
echo "rcbench-guest: starting sshd"
if [ -n "$RCBENCH_SSH_PORT" ]; then
    # A container in the host's network namespace: loopback, own port.
    exec /usr/sbin/sshd -D -e -p "$RCBENCH_SSH_PORT" -o ListenAddress=127.0.0.1
fi
exec /usr/sbin/sshd -D -e
"""


# busybox udhcpc calls it with the lease in the environment.
DHCP_SCRIPT = r"""#!/bin/sh
case "$1" in
deconfig) ip -4 addr flush dev "$interface" ;;
bound|renew)
    ip -4 addr flush dev "$interface"
    ip addr add "$ip/${mask:-24}" dev "$interface"
    for r in $router; do ip route replace default via "$r"; break; done
    echo "rcbench-guest: $interface has $ip"
    ;;
esac
exit 0
"""


class ImageError(Exception):
    """The guest image could not be built; the message says which step."""


def log(message):
    print("[%s] images: %s" % (time.strftime("%H:%M:%S"), message),
          file=sys.stderr, flush=True)


def inputs(mirror=DEFAULT_MIRROR):
    return {"builder": BUILDER_VERSION, "suite": SUITE, "mirror": mirror,
            "packages": list(PACKAGES), "init": INIT_SCRIPT,
            "dhcp": DHCP_SCRIPT,
            "disk_size": DISK_SIZE}


def image_id(mirror=DEFAULT_MIRROR):
    blob = json.dumps(inputs(mirror), sort_keys=True).encode()
    return hashlib.sha256(blob).hexdigest()[:12]


class GuestImage(object):
    """The paths of one built (or to-be-built) guest image."""

    def __init__(self, directory, ident, mirror=DEFAULT_MIRROR):
        self.id = ident
        self.mirror = mirror
        self.dir = directory
        self.rootfs = os.path.join(self.dir, "rootfs")
        self.tarball = os.path.join(self.dir, "rootfs.tar")
        self.disk = os.path.join(self.dir, "disk.qcow2")
        self.kernel = os.path.join(self.dir, "vmlinuz")
        self.initrd = os.path.join(self.dir, "initrd.img")
        self.private_key = os.path.join(self.dir, KEY_NAME)
        self.manifest = os.path.join(self.dir, "manifest.json")

    @classmethod
    def in_cache(cls, cache_dir, mirror=DEFAULT_MIRROR):
        ident = image_id(mirror)
        directory = os.path.join(opts.resolved_dir(cache_dir),
                                 "guest-" + ident)
        return cls(directory, ident, mirror)

    @property
    def tag(self):
        """Name of the image in Docker and Podman: its inputs and its key.

        The key is generated with each build, so two caches (two HOMEs,
        or a rebuild) of the same inputs authorize different keys: an
        engine image named by the inputs alone would be shared by both,
        and sshd inside would refuse one of them.
        """
        return "localhost/rcbench-guest:%s-%s" % (self.id,
                                                  self.key_fingerprint)

    @property
    def key_fingerprint(self):
        """First 8 hex digits of the SHA-256 of the authorized key."""
        try:
            with open(self.private_key + ".pub", "rb") as f:
                blob = f.read().split()[1]
        except (OSError, IndexError):
            raise ImageError("the guest image in %s has no key: run "
                             "'rcbench images build'" % self.dir)
        return hashlib.sha256(blob).hexdigest()[:8]

    def is_built(self):
        return os.path.exists(self.manifest)

    def write_docker_archive(self, path, tag):
        """rootfs.tar as a docker-archive named tag, command: sshd.

        The form Glance serves to Zun and nova-docker (container_format
        docker), which ``docker load`` it under that tag.
        """
        with open(self.tarball, "rb") as layer:
            docker_archive.write(path, layer, tag, SSHD, ENV,
                                 "rally-container-bench guest " + self.id)

    def read_private_key(self):
        with open(self.private_key) as f:
            return f.read()

    def describe(self):
        with open(self.manifest) as f:
            return json.load(f)


def require_tools(tools):
    """ImageError naming the first (tool, Debian package) not on PATH."""
    for tool, package in tools:
        if shutil.which(tool) is None:
            raise ImageError("%s is missing: apt-get install %s "
                             "(tools/install-deps.sh installs it)"
                             % (tool, package))


def build(cache_dir, mirror=DEFAULT_MIRROR, force=False):
    """Build the guest image unless it is cached; return a GuestImage."""
    image = GuestImage.in_cache(cache_dir, mirror)
    if image.is_built() and not force:
        log("guest image %s is cached in %s" % (image.id, image.dir))
        return image
    if os.geteuid() != 0:
        raise ImageError("building the guest image needs root (mmdebstrap)")
    require_tools((("mmdebstrap", "mmdebstrap"), ("mkfs.ext4", "e2fsprogs"),
                   ("qemu-img", "qemu-utils"),
                   ("ssh-keygen", "openssh-client")))
    started = time.monotonic()
    staged = GuestImage(image.dir + ".partial", image.id, mirror)
    shutil.rmtree(staged.dir, ignore_errors=True)
    os.makedirs(staged.dir)
    _bootstrap(staged)
    _configure(staged)
    baked = _bake_sysbench(staged)
    _export(staged)
    with open(staged.manifest, "w") as f:
        json.dump(dict(inputs(mirror), id=image.id,
                       kernel_version=_kernel_version(staged),
                       sysbench=_sysbench_version(staged),
                       sysbench_bundle=baked,
                       built_at=time.strftime("%Y-%m-%dT%H:%M:%SZ",
                                              time.gmtime())),
                  f, indent=2, sort_keys=True)
    shutil.rmtree(image.dir, ignore_errors=True)
    os.rename(staged.dir, image.dir)
    log("guest image %s built in %.0f s: %s"
        % (image.id, time.monotonic() - started, image.dir))
    return image


def _run(argv, what):
    # Its own process group: when the build is interrupted, the whole step
    # goes (a bootstrap leaves dpkg and maintainer scripts in the chroot).
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    try:
        out, err = proc.communicate()
    except BaseException:
        processes.end_group(proc)
        raise
    if proc.returncode != 0:
        raise ImageError("%s failed (exit %d): %s"
                         % (what, proc.returncode, (err or out)[-2000:]))
    return out


def _bootstrap(image):
    bootstrap(image.rootfs, image.mirror, PACKAGES)


def bootstrap(rootfs, mirror, packages):
    """A minbase tree of SUITE with packages, into rootfs (1-4 min)."""
    log("mmdebstrap %s minbase + %s (1-4 min) ..."
        % (SUITE, ", ".join(packages)))
    # force-unsafe-io: no fsync per unpacked file (a half-built tree is
    # thrown away whole anyway: it is built in a staging directory).
    _run(["mmdebstrap", "--variant=minbase", "--dpkgopt=force-unsafe-io",
          "--include=" + ",".join(packages), SUITE, rootfs, mirror],
         "mmdebstrap")


def drop_apt_caches(rootfs):
    """Keep an image small: apt's lists and downloads are not needed."""
    for sub in ("var/cache/apt/archives", "var/lib/apt/lists"):
        path = os.path.join(rootfs, sub)
        for name in os.listdir(path):
            target = os.path.join(path, name)
            if os.path.isfile(target):
                os.unlink(target)


def _bake_sysbench(image):
    """This host's sysbench bundle into the rootfs; its build id or None.

    A guest then runs the very build its native twin runs here without a
    push (task/scenarios/sysbench_builds.py finds it by its id).
    """
    try:
        made = sysbench_bundle.of_executable()
    except sysbench_bundle.BundleError as e:
        log("no sysbench bundle baked in: %s" % e)
        return None
    target = image.rootfs + sysbench_build.baked_dir(made.build.id)
    shutil.copytree(made.dir, target, symlinks=True,
                    ignore=shutil.ignore_patterns(sysbench_bundle.ARCHIVE))
    log("sysbench bundle %s (of %s) baked into %s"
        % (made.build.short(), made.source,
           sysbench_build.baked_dir(made.build.id)))
    return made.build.id


def _configure(image):
    log("configuring sshd, key, init")
    root = image.rootfs
    init = os.path.join(root, "sbin", "rcbench-init")
    with open(init, "w") as f:
        f.write(INIT_SCRIPT)
    os.chmod(init, 0o755)
    dhcp = os.path.join(root, "sbin", "rcbench-dhcp")
    with open(dhcp, "w") as f:
        f.write(DHCP_SCRIPT)
    os.chmod(dhcp, 0o755)
    # Nova's libvirt-LXC driver always starts /sbin/init.
    sbin_init = os.path.join(root, "sbin", "init")
    if not os.path.lexists(sbin_init):
        os.symlink("rcbench-init", sbin_init)
    os.makedirs(os.path.join(root, "run", "sshd"), exist_ok=True)
    _run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C",
          "rally-container-bench guest", "-f", image.private_key],
         "ssh-keygen")
    ssh_dir = os.path.join(root, "root", ".ssh")
    os.makedirs(ssh_dir, mode=0o700, exist_ok=True)
    shutil.copy(image.private_key + ".pub",
                os.path.join(ssh_dir, "authorized_keys"))
    os.chmod(os.path.join(ssh_dir, "authorized_keys"), 0o600)
    conf = os.path.join(root, "etc", "ssh", "sshd_config.d", "rcbench.conf")
    with open(conf, "w") as f:
        f.write("PermitRootLogin prohibit-password\nPasswordAuthentication "
                "no\nUseDNS no\n")
    with open(os.path.join(root, "etc", "hostname"), "w") as f:
        f.write("rcbench-guest\n")
    # Logins must not wait for a missing DNS server.
    with open(os.path.join(root, "etc", "resolv.conf"), "w") as f:
        f.write("")
    drop_apt_caches(root)


def _export(image):
    root = image.rootfs
    boot = os.path.join(root, "boot")
    kernels = sorted(n for n in os.listdir(boot) if n.startswith("vmlinuz-"))
    initrds = sorted(n for n in os.listdir(boot) if n.startswith("initrd."))
    if not kernels or not initrds:
        raise ImageError("no kernel/initrd under %s" % boot)
    shutil.copy(os.path.join(boot, kernels[-1]), image.kernel)
    shutil.copy(os.path.join(boot, initrds[-1]), image.initrd)
    log("writing rootfs.tar (containers: no kernel, no modules)")
    _run(["tar", "--numeric-owner", "--exclude=./boot",
          "--exclude=./lib/modules", "--exclude=./usr/lib/modules", "-C",
          root, "-cf", image.tarball, "."], "tar")
    log("writing disk.qcow2 (ext4 of the tree, %s)" % DISK_SIZE)
    raw = image.disk + ".raw"
    _run(["mkfs.ext4", "-q", "-F", "-L", "rcbench", "-d", root, raw,
          DISK_SIZE], "mkfs.ext4")
    _run(["qemu-img", "convert", "-O", "qcow2", raw, image.disk],
         "qemu-img convert")
    os.unlink(raw)


def _kernel_version(image):
    modules = os.path.join(image.rootfs, "lib", "modules")
    names = sorted(os.listdir(modules)) if os.path.isdir(modules) else []
    return names[-1] if names else None


def _sysbench_version(image):
    out = _run(["chroot", image.rootfs, "sysbench", "--version"],
               "sysbench --version in the rootfs")
    return out.strip()
