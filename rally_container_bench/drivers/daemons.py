"""Start and stop the engine daemons this machine does not start itself.

On an ordinary host systemd runs dockerd and libvirtd; on hosts without an
init system (containers, CI sandboxes) ``rcbench engines start`` does. A
daemon started here is detached (its own session) and its pid is kept in
<daemon_state_dir>/<name>.pid (host-wide, /run/rcbench by default: a
second user's HOME must find the daemons the first one started, not start
its own) so ``rcbench engines stop`` stops exactly what
was started here and nothing else.

Detached daemons are re-parented to PID 1, which may never reap them: a
stopped daemon can linger as a zombie, so liveness is read from
/proc/PID/stat (state Z = gone), never from ``kill -0``.
"""

import functools
import grp
import json
import os
import signal
import socket
import subprocess
import time

from rally_container_bench.drivers import base
from rally_container_bench.drivers import gvisor
from rally_container_bench import opts


class Daemon(object):
    """One engine daemon: how to start it and how to tell it answers.

    Without ``answers`` it answers while the process started here runs.
    """

    def __init__(self, name, argv, state_dir, answers=None, prepare=None,
                 after_start=None, before_stop=None, own_pidfiles=()):
        self.name = name
        self.argv = argv
        self.state_dir = state_dir
        self.answers = answers or (lambda: self.started_pid() is not None)
        self.prepare = prepare
        # after_start(report) / before_stop(report): engine housekeeping
        # that needs the daemon up; report(text) tells the user.
        self.after_start = after_start
        self.before_stop = before_stop
        # The daemon's own pid files: after a crash they name dead (or not
        # yet reaped) processes; dockerd then refuses to start, or waits
        # for the containerd it had started until it times out.
        self.own_pidfiles = own_pidfiles

    def _files(self):
        directory = opts.resolved_dir(self.state_dir)
        os.makedirs(directory, exist_ok=True)
        return (os.path.join(directory, self.name + ".pid"),
                os.path.join(directory, self.name + ".log"))

    def started_pid(self):
        """Pid of the daemon this tool started, if it still runs."""
        pidfile, _ = self._files()
        try:
            with open(pidfile) as f:
                pid = int(f.read())
        except (OSError, ValueError):
            return None
        return pid if alive(pid) else None

    def start(self, timeout=60):
        """Start unless it answers already; True when started here."""
        if self.prepare is not None:
            self.prepare()
        if self.answers():
            return False
        self._remove_stale_own_pidfiles()
        pidfile, logfile = self._files()
        with open(logfile, "ab") as log:
            proc = subprocess.Popen(self.argv, stdin=subprocess.DEVNULL,
                                    stdout=log, stderr=log,
                                    start_new_session=True)
        with open(pidfile, "w") as f:
            f.write(str(proc.pid))
        deadline = time.monotonic() + timeout
        while not self.answers():
            if not alive(proc.pid):
                raise base.DriverError("%s exited at start; see %s"
                                       % (self.name, logfile))
            if time.monotonic() > deadline:
                raise base.DriverError("%s does not answer after %s s; see "
                                       "%s" % (self.name, timeout, logfile))
            time.sleep(0.2)
        return True

    def _remove_stale_own_pidfiles(self):
        for path in self.own_pidfiles:
            try:
                with open(path) as f:
                    pid = int(f.read().strip())
            except (OSError, ValueError):
                continue
            if not alive(pid):
                _remove(path)

    def stop(self, timeout=30):
        """Stop the daemon started here (no other); True when stopped."""
        pid = self.started_pid()
        pidfile, _ = self._files()
        if pid is None:
            _remove(pidfile)
            return False
        os.kill(pid, signal.SIGTERM)
        deadline = time.monotonic() + timeout
        while alive(pid):
            if time.monotonic() > deadline:
                os.kill(pid, signal.SIGKILL)
                deadline = time.monotonic() + 5
            time.sleep(0.2)
        _remove(pidfile)
        return True


def alive(pid):
    """True if pid runs (a zombie does not)."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            state = f.read().rsplit(")", 1)[-1].split()[0]
    except (OSError, IndexError):
        return False
    return state not in ("Z", "X")


def _remove(path):
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass


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
    """The host's daemon.json plus gVisor's runtime (where installed)."""
    def write():
        try:
            with open(host_config) as f:
                text = f.read()
        except FileNotFoundError:
            text = None
        path = _dockerd_config(conf)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            json.dump(gvisor.dockerd_config(conf, text), f, indent=1)
    return write


def _podman_housekeeping(conf, name):
    def run(report):
        from rally_container_bench.drivers import podman
        getattr(podman, name)(conf, report)
    return run


@functools.lru_cache(maxsize=None)
def hybrid_cgroups():
    """True on the hybrid cgroup layout (crun 1.8, libvirt-LXC refuse it).

    Hybrid: cgroup v1 controllers plus a cgroup2 mount at
    /sys/fs/cgroup/unified. Read once per process: every podman command
    asks.
    """
    try:
        with open("/proc/self/mountinfo") as f:
            for line in f:
                # ID PARENT DEV ROOT MOUNTPOINT OPTS ... - FSTYPE SOURCE ...
                mount, _, fs = line.partition(" - ")
                if (mount.split()[4] == "/sys/fs/cgroup/unified"
                        and fs.split()[0] == "cgroup2"):
                    return True
    except OSError:
        pass
    return False


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
    if not hybrid_cgroups():
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
        from rally_container_bench.images import busybox
        from rally_container_bench.lifecycle import containerd
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
        from rally_container_bench.lifecycle import registry
        for runtime in ("cri-containerd", "containerd"):
            driver = registry.driver_class(runtime)(None, conf)
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
        "docker": [Daemon("dockerd", [
            "dockerd", "--host", conf.docker_url, "--pidfile", docker_pid,
            "--config-file", _dockerd_config(conf),
        ], state, _docker_answers(conf), prepare=_write_dockerd_config(conf),
            own_pidfiles=(docker_pid,
                          "/var/run/docker/containerd/containerd.pid"))],
        "kvm": [
            Daemon("virtlogd", ["virtlogd"], state,
                   _socket_answers("/run/libvirt/virtlogd-sock")),
            Daemon("libvirtd", _libvirtd_argv(cache), state,
                   _libvirt_answers(conf), prepare=_before_libvirtd(cache)),
        ],
        # Its own containerd (socket, root, state): Docker's is untouched.
        "containerd": [Daemon(
            "containerd", ["containerd", "--config",
                           _containerd_config(conf)], state,
            _socket_answers(os.path.join(conf.containerd_state_dir,
                                         "containerd.sock")),
            prepare=_write_containerd_config(conf),
            before_stop=_remove_containerd_instances(conf))],
    }
    holder = podman_namespace_holder(conf)
    if holder is not None:
        found["podman"] = [holder]
    return found


def podman_namespace_holder(conf):
    """The process whose mount namespace podman commands enter, or None.

    Not a daemon: on hybrid cgroups, a process holding a private mount
    namespace without the cgroup2 mount (crun 1.8 refuses hybrid cgroups).
    Every podman command, whatever its runtime, enters it (nsenter): the
    netns bind mounts podman makes must be seen by all of them, since they
    share one container store. The host's own mounts are untouched.
    """
    if not hybrid_cgroups():
        return None
    return Daemon("podman-mounts", [
        "unshare", "-m", "--propagation", "private", "sh", "-c",
        "umount /sys/fs/cgroup/unified && exec sleep infinity",
    ], conf.daemon_state_dir,
        after_start=_podman_housekeeping(conf, "remove_orphans"),
        before_stop=_podman_housekeeping(conf, "remove_ours"))
