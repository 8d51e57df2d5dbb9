"""rcbench's own containerd (socket, root, state): Docker's is untouched.

Its config is written at start; before it stops, the instances of both
views of it (ctr and CRI) are removed, whose shims would outlive it.
"""

import os
import signal

from rally_container_bench.core import daemon
from rally_container_bench.engines.containerd import cri
from rally_container_bench.engines.containerd import ctr as containerd
from rally_container_bench.images import busybox
from rally_container_bench import opts


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
        for cls in (cri.CriContainerd, containerd.Containerd):
            usable, why = cls.check(conf)
            if not usable:  # e.g. no crictl: README command 1 builds none
                report("%s: not swept (%s)" % (cls.name, why))
                continue
            driver = cls(None, conf)
            for name in driver.list_ours():
                driver.discard(name)
                report("%s: removed %s" % (cls.name, name))
    return run


def daemons(conf):
    """[containerd]."""
    return [daemon.Daemon(
        "containerd", ["containerd", "--config", _containerd_config(conf)],
        conf.daemon_state_dir,
        daemon.socket_answers(os.path.join(conf.containerd_state_dir,
                                           "containerd.sock")),
        prepare=_write_containerd_config(conf),
        before_stop=_remove_containerd_instances(conf),
        dump_signal=signal.SIGUSR1)]  # into its log
