"""LXC 5 system containers (lxc-start / lxc-stop).

Each container's root is an overlay: the image tree read-only below, a
per-instance directory on top, so creating one copies nothing. It shares
the host's network namespace and its sshd listens on 127.0.0.1 on a port
of its own (the guest init reads RCBENCH_SSH_PORT), which keeps every
probe on loopback; its other namespaces (mount, pid, uts, ipc) and cgroup
are its own.
"""

import os
import shutil
import subprocess
import threading
import time

from rally_container_bench.drivers import base
from rally_container_bench.drivers import libvirt

LXC_PATH = "/var/lib/lxc"
_port_lock = threading.Lock()
_CONFIG = """# rally-container-bench instance {name}
lxc.uts.name = rcbench-guest
lxc.rootfs.path = overlay:{lower}:{upper}
lxc.net.0.type = none
lxc.init.cmd = /sbin/rcbench-init
lxc.environment = RCBENCH_SSH_PORT={port}
lxc.mount.auto = proc:mixed sys:mixed cgroup:mixed
lxc.autodev = 1
lxc.tty.max = 0
lxc.pty.max = 16
lxc.apparmor.profile = unconfined
lxc.log.file = {log}
lxc.log.level = WARN
"""


class LxcDriver(base.Driver):
    name = "lxc"

    def _run(self, *argv, timeout=120):
        try:
            return subprocess.run(list(argv), capture_output=True, text=True,
                                  timeout=timeout)
        except subprocess.TimeoutExpired:
            raise base.CommandTimeout("%s did not finish within %s s"
                                      % (argv[0], timeout))

    def _config_dir(self, name):
        return os.path.join(LXC_PATH, name)

    def _upper_dir(self, name):
        return os.path.join(os.path.expanduser(self.conf.image_cache_dir),
                            "instances", name, "upper")

    def prepare(self):
        if not os.path.isdir(self.image.rootfs):
            raise base.DriverError("no image tree at %s (rcbench images "
                                   "build)" % self.image.rootfs)

    def create(self, name):
        directory = self._config_dir(name)
        upper = self._upper_dir(name)
        os.makedirs(directory)
        os.makedirs(upper)
        with _port_lock:
            port = libvirt.free_port()
        with open(os.path.join(directory, "config"), "w") as f:
            f.write(_CONFIG.format(name=name, lower=self.image.rootfs,
                                   upper=upper, port=port,
                                   log=os.path.join(directory, "lxc.log")))
        started = self._run("lxc-start", "-n", name, "-d")
        if started.returncode != 0:
            detail = started.stderr.strip()
            self._forget(name)
            raise base.DriverError("lxc-start %s failed: %s"
                                   % (name, detail[-1500:]))
        return base.Instance(name=name, id=name, ssh_port=port)

    def wait_running(self, instance, timeout):
        deadline = time.monotonic() + timeout
        while True:
            state = self._run("lxc-info", "-n", instance.name, "-s",
                              "-H").stdout.strip()
            if state == "RUNNING":
                return
            if time.monotonic() > deadline:
                raise base.DriverError("container %s is %r after %s s"
                                       % (instance.name, state, timeout))
            time.sleep(self.conf.poll_interval)

    def delete(self, instance):
        stopped = self._run("lxc-stop", "-n", instance.name, "-k")
        if stopped.returncode not in (0, 2) and "not running" not in \
                stopped.stderr:
            raise base.DriverError("lxc-stop %s failed: %s"
                                   % (instance.name, stopped.stderr.strip()))

    def wait_deleted(self, instance, timeout):
        deadline = time.monotonic() + timeout
        while self._run("lxc-info", "-n", instance.name, "-s",
                        "-H").stdout.strip() not in ("STOPPED", ""):
            if time.monotonic() > deadline:
                raise base.DriverError("container %s still running after "
                                       "%s s" % (instance.name, timeout))
            time.sleep(self.conf.poll_interval)
        self._forget(instance.name)

    def _forget(self, name):
        shutil.rmtree(self._config_dir(name), ignore_errors=True)
        shutil.rmtree(os.path.dirname(self._upper_dir(name)),
                      ignore_errors=True)

    def list_names(self, prefix):
        out = self._run("lxc-ls", "-1").stdout
        return sorted(n for n in out.split() if n.startswith(prefix))

    @classmethod
    def check(cls, conf):
        for tool in ("lxc-start", "lxc-stop", "lxc-info"):
            if shutil.which(tool) is None:
                return False, "%s is not installed (apt: lxc)" % tool
        return True, "LXC system containers, overlay rootfs, host network"

    def describe(self):
        version = self._run("lxc-start", "--version").stdout.strip()
        return dict(super().describe(), runtime="lxc",
                    engine_version="lxc " + version,
                    acceleration="none (container)",
                    network="host namespace, sshd on 127.0.0.1")
