"""VMs with the container verbs: define, start, destroy, undefine (virsh).

The VM is as small as the containers: the guest image's kernel booted
directly with the busybox tree as its initramfs and the same shell loop
as init; no disk, no NIC, a serial console to a file. ``start`` returns
when libvirt reports the domain running (QEMU started, guest not yet
booted), as a container's start returns once its init is exec'd; the
footprint waits for the guest's loop to print before it reads memory.
run is ``virsh create`` (a transient domain: defined and started in one
request, gone once destroyed).
"""

import os
import shlex
import shutil

from rally_container_bench.core import base
from rally_container_bench.core import labels
from rally_container_bench.core import lifecycle
from rally_container_bench.engines.libvirt import acceleration
from rally_container_bench.engines.libvirt import domain as libvirt_engine
from rally_container_bench.engines.libvirt import instance as libvirt_driver
from rally_container_bench.images import busybox
from rally_container_bench.images import guest

_CMDLINE = "console=ttyS0 quiet panic=-1 rdinit=%s"


class LibvirtVm(lifecycle.LifecycleDriver):
    name = "kvm"
    workload_separate = False
    own_kernel = True

    def __init__(self, image, conf):
        super().__init__(image, conf)
        self.acceleration, self.why = acceleration.detect(
            conf.vm_acceleration)

    def _virsh(self, *args):
        return libvirt_engine.checked(self.conf, *args)

    def _dir(self, name):
        return libvirt_engine.instance_dir(self.conf, name)

    def _kernel(self):
        kernel = guest.GuestImage.in_cache(self.conf.image_cache_dir).kernel
        if not os.path.exists(kernel):
            raise base.DriverError("the VM boots the guest image's kernel: "
                                   "rcbench images build")
        return kernel

    def prepare(self):
        self._virsh("version")
        self._kernel()

    def _xml(self, name):
        os.makedirs(self._dir(name), exist_ok=True)
        path = os.path.join(self._dir(name), "domain.xml")
        with open(path, "w") as f:
            f.write(libvirt_engine.domain_xml(
                labels.LIFECYCLE, name, self.acceleration,
                memory_mb=self.conf.lifecycle_vm_memory_mb, vcpus=1,
                kernel=self._kernel(), initrd=self.image.initramfs,
                cmdline=_CMDLINE % busybox.LOOP_SCRIPT,
                console=self.console(name)))
        return path

    def console(self, name):
        return os.path.join(self._dir(name), "console.log")

    def create(self, name):
        self._virsh("define", self._xml(name))

    def start(self, name):
        self._virsh("start", name)

    def stop(self, name):
        self._virsh("destroy", name)

    def remove(self, name):
        self._virsh("undefine", name)
        shutil.rmtree(self._dir(name), ignore_errors=True)

    def run(self, name):
        self._virsh("create", self._xml(name))

    def discard(self, name):
        """In whatever state; also the instance view's domains."""
        libvirt_engine.discard(self.conf, name)

    def list_ours(self):
        return libvirt_engine.list_ours(self.conf)

    def by_hand(self, name):
        virsh = "virsh -c %s" % shlex.quote(self.conf.libvirt_uri)
        name = shlex.quote(name)
        return "%s destroy %s; %s undefine --nvram %s" % (
            virsh, name, virsh, name)

    def workload_pid(self, name):
        pid = lifecycle.pid_from_file("/run/libvirt/qemu/%s.pid" % name)
        if pid is None:
            raise base.DriverError("domain %s has no QEMU process" % name)
        return pid

    def wait_workload(self, name, timeout):
        """Until the guest's loop printed (the kernel booted)."""
        def printed():
            try:
                with open(self.console(name), errors="replace") as f:
                    return "hello world" in f.read()
            except OSError:
                return False
        base.wait_until(printed, timeout, 0.2,
                        "the guest of %s printing" % name)

    def daemon_pids(self):
        pids = [lifecycle.pid_from_file(p) for p in ("/run/libvirtd.pid",
                                                     "/run/virtlogd.pid")]
        return [pid for pid in pids if pid]

    def describe(self):
        return dict(super().describe(), **libvirt_engine.vm_facts(
            self, self._virsh("version"), 1,
            self.conf.lifecycle_vm_memory_mb))

    @classmethod
    def check(cls, conf):
        return libvirt_driver.LibvirtDriver.check(conf)
