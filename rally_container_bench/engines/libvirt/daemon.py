"""virtlogd and libvirtd, where no init system starts them.

``rcbench engines start kvm``: /dev/kvm shared as udev would, hugetlbfs
mounted as systemd would, libvirtd without polkit.
"""

import grp
import os
import subprocess

from rally_container_bench.core import daemon
from rally_container_bench import opts


def _libvirt_answers(conf):
    def answers():
        return subprocess.run(["virsh", "-c", conf.libvirt_uri, "version"],
                              capture_output=True).returncode == 0
    return answers


def share_kvm_device():
    """Give /dev/kvm the owner udev gives it on Debian (root:kvm 0660).

    Hosts without udev leave it root-only; libvirt then finds KVM
    unusable for its QEMU user and re-probes QEMU's capabilities on every
    domain definition (44 s each on a TCG-only host, and serialized).
    """
    try:
        info = os.stat("/dev/kvm")
        group = grp.getgrnam("kvm").gr_gid
    except (OSError, KeyError):
        return
    if info.st_gid != group or info.st_mode & 0o060 != 0o060:
        os.chown("/dev/kvm", -1, group)
        os.chmod("/dev/kvm", (info.st_mode & 0o7777) | 0o660)


def mount_hugetlbfs(mounts="/proc/mounts", target="/dev/hugepages"):
    """Mount hugetlbfs where systemd would (none here), unless one is.

    libvirtd looks for it when it starts; without one a VM tuned with
    hugepages cannot start. Mounting reserves no memory.
    """
    with open(mounts) as f:
        if any(line.split()[2] == "hugetlbfs" for line in f
               if len(line.split()) > 2):
            return
    os.makedirs(target, exist_ok=True)
    subprocess.run(["mount", "-t", "hugetlbfs", "hugetlbfs", target],
                   capture_output=True)


def _before_libvirtd(cache):
    def prepare():
        share_kvm_device()
        mount_hugetlbfs()
        write_libvirtd_config(cache)
    return prepare


def _libvirtd_config(cache):
    return os.path.join(opts.resolved_dir(cache), "libvirt", "libvirtd.conf")


def write_libvirtd_config(cache):
    """libvirtd's config: local socket without polkit (none runs here).

    Written when libvirtd is started, not when its argv is asked for.
    """
    path = _libvirtd_config(cache)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write('auth_unix_rw = "none"\nauth_unix_ro = "none"\n')
    return path


def _libvirtd_argv(cache):
    argv = ["libvirtd", "--config", _libvirtd_config(cache)]
    if not daemon.hybrid_cgroups():
        return argv
    # libvirt-LXC (Nova's LXC compute in tools/openstack-aio) refuses the
    # hybrid layout: libvirtd runs in a mount namespace of its own without
    # the cgroup2 mount, as podman does below. QEMU domains do not mind.
    # A slave namespace: it still sees what is mounted on the host later
    # (Nova mounts an LXC instance's root there before libvirt starts it).
    return ["unshare", "-m", "--propagation", "slave", "sh", "-c",
            'umount /sys/fs/cgroup/unified && exec "$@"', "libvirtd"] + argv


def daemons(conf):
    """[virtlogd, libvirtd], in start order."""
    cache, state = conf.image_cache_dir, conf.daemon_state_dir
    return [
        daemon.Daemon("virtlogd", ["virtlogd"], state,
                      daemon.socket_answers("/run/libvirt/virtlogd-sock")),
        daemon.Daemon("libvirtd", _libvirtd_argv(cache), state,
                      _libvirt_answers(conf),
                      prepare=_before_libvirtd(cache)),
    ]
