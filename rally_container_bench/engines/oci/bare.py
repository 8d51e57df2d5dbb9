"""Plain OCI runtimes (engines.oci.runtimes) on a bundle: no engine above them.

Each instance is a bundle directory with its config.json; the busybox tree
is every bundle's read-only root. The runtimes keep their state under a
root of their own (/run/rcbench-<runtime>), so ``list`` shows only ours.
crun 1.8 refuses hybrid cgroups: there it runs in podman's mount namespace
(``rcbench engines start podman``), as podman's crun does.
"""

import json
import os
import shlex
import shutil

from rally_container_bench.core import base
from rally_container_bench.core import lifecycle
from rally_container_bench.core import mounts
from rally_container_bench.engines.oci import bundle as oci_spec
from rally_container_bench.engines.oci import runtimes
from rally_container_bench.images import busybox
from rally_container_bench import opts


class OciRuntime(lifecycle.LifecycleDriver):
    name = "runc"
    oci = runtimes.RUNTIMES["runc"]

    def __init__(self, image, conf):
        super().__init__(image, conf)
        self.binary = self.oci.binary
        # a sandbox's memory is all the instance's, as a VM's
        self.workload_separate = not self.oci.sandbox

    def global_flags(self):
        return self.oci.bare_global_flags(self.conf)

    def _plain_argv(self, *args):
        argv = [self.binary, "--root", "/run/rcbench-" + self.binary]
        return argv + self.global_flags() + list(args)

    def _argv(self, *args):
        argv = self._plain_argv(*args)
        if not self.oci.needs_cgroup_namespace:
            return argv
        return mounts.entered(self.conf, argv, self.binary)

    def _bundle(self, name):
        return opts.cache_path(self.conf, "bundles", self.binary, name)

    def _write_bundle(self, name):
        bundle = self._bundle(name)
        os.makedirs(bundle, exist_ok=True)
        with open(os.path.join(bundle, "config.json"), "w") as f:
            json.dump(oci_spec.config(self.image.rootfs, busybox.COMMAND,
                                      busybox.ENV), f)
        return bundle

    def prepare(self):
        if not os.path.isdir(self.image.rootfs):
            raise base.DriverError("no busybox tree at %s (rcbench images "
                                   "build)" % self.image.rootfs)

    def create(self, name):
        bundle = self._write_bundle(name)
        lifecycle.detached(self._argv("create", "--bundle", bundle, name),
                           "%s create %s" % (self.binary, name))

    def start(self, name):
        lifecycle.checked(self._argv("start", name))

    def _status(self, name):
        proc = base.run_cli(self._argv("state", name))
        if proc.returncode != 0:
            return None
        return json.loads(proc.stdout)

    def stop(self, name):
        lifecycle.checked(self._argv("kill", name, "KILL"))
        base.wait_until(
            lambda: (self._status(name) or {}).get("status") == "stopped",
            self.conf.delete_timeout, 0.005, "%s %s stopped"
            % (self.binary, name))

    def remove(self, name):
        lifecycle.checked(self._argv("delete", name))
        shutil.rmtree(self._bundle(name), ignore_errors=True)

    def run(self, name):
        bundle = self._write_bundle(name)
        lifecycle.detached(self._argv("run", self.oci.detach_flag, "--bundle",
                                      bundle, name),
                           "%s run %s" % (self.binary, name))

    def discard(self, name):
        base.run_cli(self._argv("delete", self.oci.force_flag, name))
        if self._status(name) is not None:
            raise base.DriverError("%s delete -f %s left it behind"
                                   % (self.binary, name))
        shutil.rmtree(self._bundle(name), ignore_errors=True)

    def by_hand(self, name):
        args = ("delete", self.oci.force_flag, name)
        try:
            return " ".join(map(shlex.quote, self._argv(*args)))
        except base.DriverError:  # the namespace is not held right now
            return ("rcbench engines start podman, then in its mount "
                    "namespace: " + " ".join(
                        map(shlex.quote, self._plain_argv(*args))))

    def list_ours(self):
        if not os.path.isdir("/run/rcbench-" + self.binary):
            return []  # nothing was ever created here
        return lifecycle.checked(
            self._argv("list", self.oci.quiet_flag)).split()

    def workload_pid(self, name):
        return int(self._status(name)["pid"])

    def describe(self):
        version = lifecycle.checked(self._argv("--version")).splitlines()[0]
        return dict(super().describe(), runtime=self.binary,
                    engine_version=version,
                    **self.oci.facts(self.global_flags()))

    @classmethod
    def check(cls, conf):
        if not cls.oci.installed():
            return False, cls.oci.missing()
        if cls.oci.needs_cgroup_namespace:
            if mounts.missing(conf):
                return False, ("hybrid cgroups: %s needs rcbench engines "
                               "start podman" % cls.oci.binary)
        return True, "%s on an OCI bundle" % cls.oci.binary
