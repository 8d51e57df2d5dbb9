"""LXC 5 system containers (lxc-start / lxc-stop).

Each container's root is an overlay: the image tree read-only below, a
per-instance directory on top, so creating one copies nothing. It shares
the host's network namespace and its sshd listens on 127.0.0.1 on a port
of its own (the guest init reads RCBENCH_SSH_PORT), which keeps every
probe on loopback; its other namespaces (mount, pid, uts, ipc) and cgroup
are its own.
"""

import os

from rally_container_bench.core import base
from rally_container_bench.core import labels
from rally_container_bench.core import ports
from rally_container_bench.core import ssh
from rally_container_bench.engines.lxc import config as lxc_engine


class LxcDriver(ssh.SshDriver):
    name = "lxc"

    def _run(self, *argv, timeout=None):
        return base.run_cli(argv, timeout or self.conf.engine_call_timeout)

    def _state(self, name):
        return self._run("lxc-info", "-n", name, "-s", "-H").stdout.strip()

    def _upper_dir(self, name):
        return os.path.join(lxc_engine.instance_dir(self.conf, name),
                            "upper")

    def prepare(self):
        if not os.path.isdir(self.image.rootfs):
            raise base.DriverError("no image tree at %s (rcbench images "
                                   "build)" % self.image.rootfs)

    def create(self, name):
        upper = self._upper_dir(name)
        os.makedirs(upper)
        port = ports.reserve(self.conf)
        lxc_engine.write_config(
            name, labels.INSTANCE, self.image.rootfs, upper,
            init="/sbin/rcbench-init", network="none",
            hostname="rcbench-guest", ptys=16,
            environment=["RCBENCH_SSH_PORT=%d" % port],
            cpuset=self.cpuset)
        started = self._run("lxc-start", "-n", name, "-d")
        if started.returncode != 0:
            detail = started.stderr.strip()
            lxc_engine.forget(self.conf, name)
            raise base.DriverError("lxc-start %s failed: %s"
                                   % (name, detail[-1500:]))
        return base.Instance(name=name, id=name, ssh_port=port)

    def wait_running(self, instance, timeout):
        base.wait_until(lambda: self._state(instance.name) == "RUNNING",
                        timeout, self.conf.poll_interval,
                        "container %s running" % instance.name)

    def endpoint(self, instance, port):
        return base.host_network_endpoint(
            self.conf, instance.private.setdefault("host_ports", {}),
            port)

    def host_pid(self, instance):
        out = self._run("lxc-info", "-n", instance.name, "-p", "-H").stdout
        return int(out) if out.strip().isdigit() else None

    def delete(self, instance):
        stopped = self._run("lxc-stop", "-n", instance.name, "-k")
        if stopped.returncode not in (0, 2) and "not running" not in \
                stopped.stderr:
            raise base.DriverError("lxc-stop %s failed: %s"
                                   % (instance.name, stopped.stderr.strip()))

    def wait_deleted(self, instance, timeout):
        base.wait_until(
            lambda: self._state(instance.name) in ("STOPPED", ""),
            timeout, self.conf.poll_interval,
            "container %s stopped" % instance.name)
        lxc_engine.forget(self.conf, instance.name)

    @classmethod
    def check(cls, conf):
        return lxc_engine.check(
            ("lxc-start", "lxc-stop", "lxc-info"),
            "LXC system containers, overlay rootfs, host network")

    def describe(self):
        return dict(super().describe(), runtime="lxc",
                    engine_version=lxc_engine.version(),
                    acceleration="none (container)",
                    network="host namespace, sshd on 127.0.0.1")
