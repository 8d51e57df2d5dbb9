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
import shutil
from xml.sax import saxutils

from rally_container_bench.drivers import acceleration
from rally_container_bench.drivers import base as drivers_base
from rally_container_bench.drivers import libvirt as libvirt_driver
from rally_container_bench.images import busybox
from rally_container_bench.images import guest
from rally_container_bench.lifecycle import base
from rally_container_bench import opts

MARK = "rcbench-lifecycle"
_DOMAIN = """<domain type='{domain_type}'>
  <name>{name}</name>
  <description>{mark}</description>
  <memory unit='MiB'>{memory}</memory>
  <vcpu>1</vcpu>
  <os>
    <type arch='x86_64' machine='pc'>hvm</type>
    <kernel>{kernel}</kernel>
    <initrd>{initrd}</initrd>
    <cmdline>console=ttyS0 quiet panic=-1 rdinit={init}</cmdline>
  </os>
  <features><acpi/></features>
  {cpu}
  <devices>
    <serial type='file'><source path='{console}'/><target port='0'/></serial>
    <memballoon model='none'/>
  </devices>
  <seclabel type='static' model='dac' relabel='no'>
    <label>+0:+0</label>
  </seclabel>
</domain>
"""


class LibvirtVm(base.LifecycleDriver):
    name = "kvm"
    workload_separate = False

    def __init__(self, image, conf):
        super().__init__(image, conf)
        self.acceleration, self.why = acceleration.detect(
            conf.vm_acceleration)

    def _virsh(self, *args):
        return base.checked(["virsh", "-q", "-c", self.conf.libvirt_uri]
                            + list(args), "virsh " + args[0])

    def _dir(self, name):
        return opts.cache_path(self.conf, "instances", name)

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
        directory = self._dir(name)
        os.makedirs(directory, exist_ok=True)
        kvm = self.acceleration == acceleration.KVM
        quote = saxutils.escape
        path = os.path.join(directory, "domain.xml")
        with open(path, "w") as f:
            f.write(_DOMAIN.format(
                domain_type="kvm" if kvm else "qemu", name=quote(name),
                mark=MARK, memory=int(self.conf.lifecycle_vm_memory_mb),
                kernel=quote(self._kernel()),
                initrd=quote(self.image.initramfs),
                init=busybox.LOOP_SCRIPT,
                cpu=libvirt_driver.KVM_CPU if kvm else "",
                console=quote(self.console(name))))
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

    def force_remove(self, name):
        uri = ["virsh", "-q", "-c", self.conf.libvirt_uri]
        drivers_base.run_cli(uri + ["destroy", name])
        drivers_base.run_cli(uri + ["undefine", name])
        if drivers_base.run_cli(uri + ["domstate", name]).returncode == 0:
            raise base.DriverError("domain %s is still defined" % name)
        shutil.rmtree(self._dir(name), ignore_errors=True)

    def list_names(self):
        found = []
        for name in self._virsh("list", "--all", "--name").split():
            proc = drivers_base.run_cli(["virsh", "-q", "-c",
                                         self.conf.libvirt_uri, "desc",
                                         name])
            if proc.stdout.strip() == MARK:
                found.append(name)
        return found

    def workload_pid(self, name):
        pid = base.pid_from_file("/run/libvirt/qemu/%s.pid" % name)
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
        drivers_base.wait_until(printed, timeout, 0.2,
                                "the guest of %s printing" % name)

    def daemon_pids(self):
        pids = [base.pid_from_file(p) for p in ("/run/libvirtd.pid",
                                                "/run/virtlogd.pid")]
        return [pid for pid in pids if pid]

    def describe(self):
        return dict(super().describe(), runtime="qemu",
                    acceleration=self.acceleration,
                    acceleration_reason=self.why,
                    engine_version=libvirt_driver.engine_version(
                        self._virsh("version")),
                    memory_mb=self.conf.lifecycle_vm_memory_mb, vcpus=1)

    @classmethod
    def check(cls, conf):
        return libvirt_driver.LibvirtDriver.check(conf)
