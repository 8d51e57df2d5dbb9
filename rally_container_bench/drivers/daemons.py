"""Start and stop the engine daemons this machine does not start itself.

On an ordinary host systemd runs dockerd and libvirtd; on hosts without an
init system (containers, CI sandboxes) ``rcbench engines start`` does:
each as a daemon_process.Daemon, which keeps its pid file host-wide and
stops only what it started.
"""

import grp
import json
import os
import socket
import subprocess

from rally_container_bench.drivers import base
from rally_container_bench.drivers import daemon_process
from rally_container_bench.drivers import podman
from rally_container_bench.engines import runtimes
from rally_container_bench.images import busybox
from rally_container_bench.lifecycle import containerd
from rally_container_bench.lifecycle import registry as lifecycle_registry
from rally_container_bench import opts


def _docker_answers(conf):
    def answers():
        import docker
        try:
            return docker.DockerClient(base_url=conf.docker_url,
                                       timeout=5).ping()
        except Exception:
            return False
    return answers


def _dockerd_config(conf):
    """The dockerd config rcbench starts dockerd with (host-wide state)."""
    return os.path.join(opts.resolved_dir(conf.daemon_state_dir),
                        "dockerd.json")


def _write_dockerd_config(conf, host_config="/etc/docker/daemon.json"):
    """The host's daemon.json plus our runtimes (engines.runtimes)."""
    def write():
        try:
            with open(host_config) as f:
                text = f.read()
        except FileNotFoundError:
            text = None
        try:
            config = runtimes.dockerd_config(conf, text)
        except ValueError as e:
            raise base.DriverError(
                "%s is not valid JSON (%s): dockerd would refuse it too; "
                "fix it before rcbench engines start docker"
                % (host_config, e))
        path = _dockerd_config(conf)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            json.dump(config, f, indent=1)
    return write


def _socket_answers(path):
    def answers():
        with socket.socket(socket.AF_UNIX) as s:
            try:
                s.connect(path)
                return True
            except OSError:
                return False
    return answers


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
    if not daemon_process.hybrid_cgroups():
        return argv
    # libvirt-LXC (Nova's LXC compute in tools/openstack-aio) refuses the
    # hybrid layout: libvirtd runs in a mount namespace of its own without
    # the cgroup2 mount, as podman does below. QEMU domains do not mind.
    # A slave namespace: it still sees what is mounted on the host later
    # (Nova mounts an LXC instance's root there before libvirt starts it).
    return ["unshare", "-m", "--propagation", "slave", "sh", "-c",
            'umount /sys/fs/cgroup/unified && exec "$@"', "libvirtd"] + argv


def _containerd_config(conf):
    """Where rcbench's own containerd reads its config (written at start)."""
    return opts.cache_path(conf, "containerd", "config.toml")


def _write_containerd_config(conf):
    def write():
        path = _containerd_config(conf)
        cni = os.path.join(os.path.dirname(path), "cni")
        os.makedirs(cni, exist_ok=True)
        tag = busybox.BusyboxImage.in_cache(conf.image_cache_dir).tag
        with open(path, "w") as f:
            f.write(containerd.config_toml(conf, tag, cni))
    return write


def _remove_containerd_instances(conf):
    """Before our containerd stops: its shims would outlive it."""
    def run(report):
        for runtime in ("cri-containerd", "containerd"):
            driver = lifecycle_registry.driver_class(runtime)(None, conf)
            for name in driver.list_names():
                driver.force_remove(name)
                report("%s: removed %s" % (runtime, name))
    return run


def daemons(conf):
    """The daemons local drivers need, by engine name, in start order."""
    docker_socket = conf.docker_url.replace("unix://", "", 1)
    docker_pid = os.path.join(os.path.dirname(docker_socket), "docker.pid")
    cache = conf.image_cache_dir
    state = conf.daemon_state_dir
    found = {
        "docker": [daemon_process.Daemon("dockerd", [
            "dockerd", "--host", conf.docker_url, "--pidfile", docker_pid,
            "--config-file", _dockerd_config(conf),
        ], state, _docker_answers(conf), prepare=_write_dockerd_config(conf),
            own_pidfiles=(docker_pid,
                          "/var/run/docker/containerd/containerd.pid"))],
        "kvm": [
            daemon_process.Daemon(
                "virtlogd", ["virtlogd"], state,
                _socket_answers("/run/libvirt/virtlogd-sock")),
            daemon_process.Daemon(
                "libvirtd", _libvirtd_argv(cache), state,
                _libvirt_answers(conf), prepare=_before_libvirtd(cache)),
        ],
        # Its own containerd (socket, root, state): Docker's is untouched.
        "containerd": [daemon_process.Daemon(
            "containerd", ["containerd", "--config",
                           _containerd_config(conf)], state,
            _socket_answers(os.path.join(conf.containerd_state_dir,
                                         "containerd.sock")),
            prepare=_write_containerd_config(conf),
            before_stop=_remove_containerd_instances(conf))],
    }
    holder = podman.namespace_holder(conf)
    if holder is not None:
        found["podman"] = [holder]
    return found
