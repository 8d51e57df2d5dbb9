"""LXC 5 through its tools: lxc-start -d, lxc-stop -k, lxc-destroy.

create writes the container's config (engines.lxc.config: an overlay on the
busybox tree, the upper directory beside the config); remove is
lxc-destroy, which deletes the config and the upper directory, never the
shared tree. LXC has no single create+start request: run is both, back to
back.
"""

import os
import shlex

from rally_container_bench.core import base
from rally_container_bench.core import labels
from rally_container_bench.core import lifecycle
from rally_container_bench.engines.lxc import config as lxc_engine
from rally_container_bench.images import busybox


class Lxc(lifecycle.LifecycleDriver):
    name = "lxc"
    run_is_one_call = False

    def prepare(self):
        if not os.path.isdir(self.image.rootfs):
            raise base.DriverError("no busybox tree at %s (rcbench images "
                                   "build)" % self.image.rootfs)

    def create(self, name):
        upper = os.path.join(lxc_engine.config_dir(name), "upper")
        os.makedirs(upper)
        lxc_engine.write_config(name, labels.LIFECYCLE, self.image.rootfs,
                                upper, init=busybox.LOOP_SCRIPT,
                                network="empty", hostname="rcbench", ptys=4)

    def start(self, name):
        lifecycle.checked(["lxc-start", "-n", name, "-d"])
        lifecycle.checked(["lxc-wait", "-n", name, "-s", "RUNNING", "-t",
                           str(int(self.conf.boot_timeout))])

    def stop(self, name):
        lifecycle.checked(["lxc-stop", "-n", name, "-k"])

    def remove(self, name):
        lifecycle.checked(["lxc-destroy", "-n", name])

    def discard(self, name):
        """In whatever state; also the instance view's containers."""
        lxc_engine.discard(self.conf, name)

    def list_ours(self):
        return lxc_engine.list_ours()

    def by_hand(self, name):
        name = shlex.quote(name)
        return "lxc-stop -k -n %s; lxc-destroy -n %s" % (name, name)

    def workload_pid(self, name):
        return int(lifecycle.checked(["lxc-info", "-n", name, "-p", "-H"]))

    def describe(self):
        return dict(super().describe(), runtime="lxc",
                    engine_version=lxc_engine.version())

    @classmethod
    def check(cls, conf):
        return lxc_engine.check(
            ("lxc-start", "lxc-stop", "lxc-destroy", "lxc-wait"),
            "LXC, overlay on the busybox tree")
