"""LXC 5 through its tools: lxc-start -d, lxc-stop -k, lxc-destroy.

lxc-create has no form that lays an overlay over a shared tree (it checks
the overlay spec as a path; a ``dir:`` root would be deleted by
lxc-destroy), so create writes the container's config the way
``lxc-create -t none`` does, and remove is lxc-destroy, which deletes the
config and the per-instance upper directory, never the shared tree. LXC
has no single create+start request: run is both, back to back.
"""

import os
import shutil

from rally_container_bench.drivers import base as drivers_base
from rally_container_bench.images import busybox
from rally_container_bench.lifecycle import base

LXC_PATH = "/var/lib/lxc"
MARK = "# rally-container-bench lifecycle instance"
_CONFIG = MARK + """
lxc.uts.name = rcbench
lxc.rootfs.path = overlay:{lower}:{upper}
lxc.net.0.type = empty
lxc.init.cmd = {command}
lxc.mount.auto = proc:mixed sys:mixed cgroup:mixed
lxc.autodev = 1
lxc.tty.max = 0
lxc.pty.max = 4
lxc.apparmor.profile = unconfined
lxc.log.file = {log}
lxc.log.level = WARN
"""


class Lxc(base.LifecycleDriver):
    name = "lxc"
    run_is_one_call = False

    def _dir(self, name):
        return os.path.join(LXC_PATH, name)

    def prepare(self):
        if not os.path.isdir(self.image.rootfs):
            raise base.DriverError("no busybox tree at %s (rcbench images "
                                   "build)" % self.image.rootfs)

    def create(self, name):
        directory = self._dir(name)
        upper = os.path.join(directory, "upper")
        os.makedirs(upper)
        with open(os.path.join(directory, "config"), "w") as f:
            f.write(_CONFIG.format(lower=self.image.rootfs, upper=upper,
                                   command=busybox.LOOP_SCRIPT,
                                   log=os.path.join(directory, "lxc.log")))

    def start(self, name):
        base.checked(["lxc-start", "-n", name, "-d"])
        base.checked(["lxc-wait", "-n", name, "-s", "RUNNING", "-t",
                      str(int(self.conf.boot_timeout))])

    def stop(self, name):
        base.checked(["lxc-stop", "-n", name, "-k"])

    def remove(self, name):
        base.checked(["lxc-destroy", "-n", name])

    def force_remove(self, name):
        drivers_base.run_cli(["lxc-stop", "-n", name, "-k"])
        drivers_base.run_cli(["lxc-destroy", "-n", name])
        if os.path.isdir(self._dir(name)):
            shutil.rmtree(self._dir(name))

    def list_names(self):
        found = []
        for name in sorted(os.listdir(LXC_PATH)) if os.path.isdir(
                LXC_PATH) else []:
            try:
                with open(os.path.join(LXC_PATH, name, "config")) as f:
                    if f.readline().startswith(MARK):
                        found.append(name)
            except OSError:
                continue
        return found

    def workload_pid(self, name):
        return int(base.checked(["lxc-info", "-n", name, "-p", "-H"]))

    def describe(self):
        version = base.checked(["lxc-start", "--version"]).strip()
        return dict(super().describe(), runtime="lxc",
                    engine_version="lxc " + version)

    @classmethod
    def check(cls, conf):
        for tool in ("lxc-start", "lxc-stop", "lxc-destroy", "lxc-wait"):
            if shutil.which(tool) is None:
                return False, "%s is not installed (apt: lxc)" % tool
        return True, "LXC, overlay on the busybox tree"
