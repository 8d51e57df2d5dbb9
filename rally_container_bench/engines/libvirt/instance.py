"""QEMU/KVM guests through libvirt (virsh), the way Nova's libvirt driver
runs them: a domain per instance on a qcow2 overlay of the guest disk,
hard power-off and undefine on delete.

The guest boots its kernel directly (no bootloader in the image) with the
guest init as PID 1. Its NIC is QEMU user-mode networking with sshd
forwarded from a 127.0.0.1 port, so no traffic leaves loopback; QEMU is
given those arguments through libvirt's qemu:commandline. The domain's
common parts (and its mark) are engines.libvirt.domain's.
"""

import os
import shutil
from xml.sax import saxutils

from rally_container_bench.core import base
from rally_container_bench.core import labels
from rally_container_bench.core import ports
from rally_container_bench.core import processes
from rally_container_bench.core import ssh
from rally_container_bench.core import tuning as tuning_lib
from rally_container_bench.engines.libvirt import acceleration
from rally_container_bench.engines.libvirt import domain as libvirt_engine

_CMDLINE = ("root=/dev/{root} rw console=ttyS0 quiet net.ifnames=0 "
            "init=/sbin/rcbench-init -- vm")
_DISK = """
    <disk type='file' device='disk'>
      <driver name='qemu' type='qcow2' cache='{cache}'/>
      <source file='{disk}'/>
      <target dev='{dev}' bus='{bus}'/>
    </disk>"""
_SCSI_CONTROLLER = "\n    <controller type='scsi' model='virtio-scsi'/>"
_USER_NET = """
  <qemu:commandline>
    <qemu:arg value='-netdev'/>
    <qemu:arg value='user,id=rcb0,{forwards}'/>
    <qemu:arg value='-device'/>
    <qemu:arg value='virtio-net-pci,netdev=rcb0,addr=0x10'/>
  </qemu:commandline>"""
# The host's default huge page size (a hugetlbfs mount must exist when
# libvirtd starts: rcbench engines start kvm makes one).
_HUGEPAGES = "\n  <memoryBacking><hugepages/></memoryBacking>"
_TCG_FEATURES = "<tcg><tb-cache unit='MiB'>128</tb-cache></tcg>"


def hostfwd_option(ssh_port, forwards):
    """QEMU user-net forwards: SSH, and {guest port: host port}."""
    pairs = [(int(ssh_port), 22)] + [
        (int(host_port), int(guest_port))
        for guest_port, host_port in sorted(forwards.items())]
    return ",".join("hostfwd=tcp:127.0.0.1:%d-:%d" % pair for pair in pairs)


def _qemu_pid(name):
    """The domain's QEMU process (libvirt's pid file), or None."""
    try:
        with open("/run/libvirt/qemu/%s.pid" % name) as f:
            return int(f.read())
    except (OSError, ValueError):
        return None


def _qemu_start_time(name):
    """Epoch seconds at which the domain's QEMU process started."""
    pid = _qemu_pid(name)
    ticks = None if pid is None else processes.start_ticks(pid)
    return None if ticks is None else processes.started_at(ticks)


class LibvirtDriver(ssh.SshDriver):
    name = "kvm"
    own_kernel = True

    def __init__(self, image, conf):
        super().__init__(image, conf)
        self.acceleration, self.why = acceleration.detect(
            conf.vm_acceleration)

    def _virsh(self, *args, timeout=None):
        return libvirt_engine.virsh(self.conf, *args, timeout=timeout)

    def _checked(self, *args):
        return libvirt_engine.checked(self.conf, *args)

    def _instance_dir(self, name):
        return libvirt_engine.instance_dir(self.conf, name)

    def prepare(self):
        self._checked("version")

    def create(self, name):
        directory = self._instance_dir(name)
        os.makedirs(directory, exist_ok=True)
        disk = os.path.join(directory, "disk.qcow2")
        made = base.run_cli(["qemu-img", "create", "-q", "-f", "qcow2",
                             "-b", self.image.disk, "-F", "qcow2", disk,
                             "%dG" % self.conf.vm_disk_gb])
        if made.returncode != 0:
            raise base.DriverError("qemu-img could not create the disk of "
                                   "%s: %s" % (name, made.stderr.strip()))
        xml_path = os.path.join(directory, "domain.xml")
        instance = base.Instance(name=name, id=name,
                                 private={"dir": directory})
        last_error = None
        for _ in range(3):
            # A port leased to nobody may still be taken by a program
            # outside rcbench: then QEMU fails to start; we try others.
            port = ports.reserve(self.conf)
            forwards = {guest_port: ports.reserve(self.conf)
                        for guest_port in self.server_ports}
            with open(xml_path, "w") as f:
                f.write(self._domain_xml(name, disk, port, directory,
                                         forwards))
            self._checked("define", xml_path)
            started = self._virsh("start", name)
            if started.returncode == 0:
                instance.ssh_port = port
                instance.private["forwards"] = forwards
                return instance
            last_error = started.stderr.strip()
            self._virsh("undefine", name)
            if "hostfwd" not in last_error and "forward" not in last_error:
                break
        shutil.rmtree(directory, ignore_errors=True)
        raise base.DriverError("libvirt could not start %s: %s"
                               % (name, last_error[-1500:]))

    def endpoint(self, instance, port):
        """QEMU forwards a 127.0.0.1 port to each server port inside."""
        forwards = instance.private["forwards"]
        if port not in forwards:
            raise base.DriverError(
                "%s forwards no host port to port %d inside (forwarded: "
                "%s)" % (instance.name, port,
                         ", ".join(map(str, sorted(forwards))) or "none"))
        return base.Endpoint(port, "127.0.0.1", forwards[port])

    def _domain_xml(self, name, disk, port, directory, forwards):
        quote = saxutils.escape
        tuning = self.tuning or tuning_lib.VmTuning()
        scsi = tuning.disk_bus == "scsi"
        dev = "sda" if scsi else "vda"
        devices = _DISK.format(cache=quote(tuning.disk_cache),
                               disk=quote(disk), dev=dev,
                               bus="scsi" if scsi else "virtio")
        return libvirt_engine.domain_xml(
            labels.INSTANCE, name, self.acceleration,
            memory_mb=self.conf.vm_memory_mb, vcpus=self.conf.vm_vcpus,
            kernel=self.image.kernel, initrd=self.image.initrd,
            cmdline=_CMDLINE.format(root=dev),
            console=os.path.join(directory, "console.log"),
            features=("" if self.acceleration == acceleration.KVM
                      else _TCG_FEATURES),
            devices=devices + (_SCSI_CONTROLLER if scsi else ""),
            vcpu_placement=(" cpuset='%s'" % quote(self.cpuset)
                            if self.cpuset else ""),
            memory_backing=_HUGEPAGES if tuning.hugepages else "",
            qemu_commandline=_USER_NET.format(
                forwards=quote(hostfwd_option(port, forwards))))

    def wait_running(self, instance, timeout):
        base.wait_until(
            lambda: self._virsh("domstate", instance.name).stdout.strip()
            == "running", timeout, self.conf.poll_interval,
            "domain %s running" % instance.name)
        instance.engine_times = {
            "qemu_process_started": _qemu_start_time(instance.name)}

    def host_pid(self, instance):
        return _qemu_pid(instance.name)

    def delete(self, instance):
        self._virsh("destroy", instance.name)
        proc = self._virsh("undefine", instance.name)
        if proc.returncode != 0 and "failed to get domain" not in \
                proc.stderr:
            raise base.DriverError("virsh undefine %s failed: %s"
                                   % (instance.name, proc.stderr.strip()))

    def wait_deleted(self, instance, timeout):
        base.wait_until(
            lambda: self._virsh("domstate", instance.name).returncode != 0,
            timeout, self.conf.poll_interval,
            "domain %s gone" % instance.name)
        shutil.rmtree(self._instance_dir(instance.name), ignore_errors=True)

    @classmethod
    def check(cls, conf):
        for tool in ("virsh", "libvirtd", "qemu-system-x86_64", "qemu-img"):
            if shutil.which(tool) is None:
                return False, "%s is not installed" % tool
        accel, why = acceleration.detect(conf.vm_acceleration)
        proc = base.run_cli(["virsh", "-c", conf.libvirt_uri, "version"],
                            timeout=30)
        if proc.returncode != 0:
            return False, ("libvirtd does not answer at %s (rcbench engines "
                           "start kvm)" % conf.libvirt_uri)
        return True, "libvirt/QEMU, acceleration %s (%s)" % (accel, why)

    def describe(self):
        return dict(super().describe(),
                    **libvirt_engine.vm_facts(
                        self, self._checked("version"), self.conf.vm_vcpus,
                        self.conf.vm_memory_mb),
                    **(self.tuning or tuning_lib.VmTuning()).describe())
