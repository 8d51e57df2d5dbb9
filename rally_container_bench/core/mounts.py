"""The private mount namespace podman, and runtimes beside it, enter.

On hybrid cgroups crun 1.8 refuses the cgroup layout: a process holding
a private mount namespace without the cgroup2 mount (``rcbench engines
start podman`` starts it) is entered (nsenter) by every podman command,
whatever its runtime, and by a bare runtime whose entry needs it. The
host's own mounts are untouched.
"""

from rally_container_bench.core import base
from rally_container_bench.core import daemon

NAME = "podman-mounts"


def holder(conf, after_start=None, before_stop=None):
    """The process holding the namespace (a daemon.Daemon), or None.

    None: this host needs none (not hybrid cgroups). after_start and
    before_stop: what podman does around it (its own containers).
    """
    if not daemon.hybrid_cgroups():
        return None
    return daemon.Daemon(NAME, [
        "unshare", "-m", "--propagation", "private", "sh", "-c",
        "umount /sys/fs/cgroup/unified && exec sleep infinity",
    ], conf.daemon_state_dir, after_start=after_start,
        before_stop=before_stop)


def entered(conf, argv, who):
    """argv run inside the namespace where this host has one.

    DriverError when it should be held and is not.
    """
    held = holder(conf)
    if held is None:
        return list(argv)
    pid = held.started_pid()
    if pid is None:
        raise base.DriverError(
            "%s needs podman's mount namespace on this host (hybrid "
            "cgroups): rcbench engines start podman" % who)
    return ["nsenter", "--mount", "--target", str(pid)] + list(argv)


def missing(conf):
    """Whether the namespace is needed here and not held."""
    held = holder(conf)
    return held is not None and held.started_pid() is None
