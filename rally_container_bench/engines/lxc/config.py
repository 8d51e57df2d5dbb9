"""LXC 5 through its tools: the config, listing and removal both views use.

Each container's root is an overlay: an image tree read-only below, a
per-instance upper directory on top, so creating one copies nothing.
lxc-create has no form that lays an overlay over a shared tree (it checks
the overlay spec as a path; a ``dir:`` root would be deleted by
lxc-destroy), so the config is written the way ``lxc-create -t none``
does, its first line marking it as ours (core.labels).
"""

import os
import shutil

from rally_container_bench.core import base
from rally_container_bench.core import labels
from rally_container_bench import opts

LXC_PATH = "/var/lib/lxc"
_CONFIG = """{header}
lxc.uts.name = {hostname}
lxc.rootfs.path = overlay:{lower}:{upper}
lxc.net.0.type = {network}
lxc.init.cmd = {init}
{environment}{cpuset}lxc.mount.auto = proc:mixed sys:mixed cgroup:mixed
lxc.autodev = 1
lxc.tty.max = 0
lxc.pty.max = {ptys}
lxc.apparmor.profile = unconfined
lxc.log.file = {log}
lxc.log.level = WARN
"""


def config_dir(name):
    return os.path.join(LXC_PATH, name)


def instance_dir(conf, name):
    """An instance-view container's files in the cache (its upper dir)."""
    return opts.cache_path(conf, "instances", name)


def write_config(name, view, lower, upper, init, network, hostname, ptys,
                 environment=(), cpuset=None):
    """Write container ``name``'s config.

    network: none (the host's namespace) or empty (loopback only).
    cpuset: the host CPUs it runs on (None: any).
    """
    directory = config_dir(name)
    os.makedirs(directory, exist_ok=True)
    env = "".join("lxc.environment = %s\n" % item for item in environment)
    if cpuset is not None:
        key = "lxc.cgroup.cpuset.cpus" if os.path.isdir(
            "/sys/fs/cgroup/cpuset") else "lxc.cgroup2.cpuset.cpus"
        cpuset = "%s = %s\n" % (key, cpuset)
    with open(os.path.join(directory, "config"), "w") as f:
        f.write(_CONFIG.format(
            header=labels.lxc_header(view, name), hostname=hostname,
            lower=lower, upper=upper, network=network, init=init,
            environment=env, ptys=int(ptys), cpuset=cpuset or "",
            log=os.path.join(directory, "lxc.log")))


def list_ours():
    """Containers whose config says they are ours (any view, any version)."""
    found = []
    names = sorted(os.listdir(LXC_PATH)) if os.path.isdir(LXC_PATH) else []
    for name in names:
        try:
            with open(os.path.join(config_dir(name), "config")) as f:
                if labels.is_lxc_header(f.readline()):
                    found.append(name)
        except OSError:
            continue
    return found


def forget(conf, name):
    """Remove ``name``'s directories, of either view."""
    for directory in (config_dir(name), instance_dir(conf, name)):
        shutil.rmtree(directory, ignore_errors=True)


def discard(conf, name):
    """Stop and destroy ``name`` in whatever state, and its directories."""
    base.run_cli(["lxc-stop", "-n", name, "-k"])
    base.run_cli(["lxc-destroy", "-n", name])
    forget(conf, name)


def check(tools, what):
    """(usable, why) for doctor: every tool of ``tools`` is installed."""
    for tool in tools:
        if shutil.which(tool) is None:
            return False, "%s is not installed (apt: lxc)" % tool
    return True, what


def version():
    return "lxc " + base.output_of(base.run_cli(["lxc-start", "--version"]),
                                   "lxc-start --version").strip()
