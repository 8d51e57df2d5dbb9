"""QEMU/KVM guests through libvirt (virsh), the way Nova's libvirt driver
runs them: a domain per instance on a qcow2 overlay of the guest disk,
hard power-off and undefine on delete.

The guest boots its kernel directly (no bootloader in the image) with the
guest init as PID 1. Its NIC is QEMU user-mode networking with sshd
forwarded from a 127.0.0.1 port, so no traffic leaves loopback; QEMU is
given those arguments through libvirt's qemu:commandline. The domain's QEMU
runs as root (a static DAC label on the domain) so it can read the image
cache, whatever libvirt's global qemu.conf says.
"""

import os
import shutil
import threading
from xml.sax import saxutils

from rally_container_bench.drivers import acceleration
from rally_container_bench.drivers import base
from rally_container_bench.drivers import ssh
from rally_container_bench.drivers import tuning as tuning_lib
from rally_container_bench import opts

# Held while a port is probed, so threads of one process never pick the
# same one.
port_lock = threading.Lock()
_DOMAIN = """<domain type='{domain_type}'
        xmlns:qemu='http://libvirt.org/schemas/domain/qemu/1.0'>
  <name>{name}</name>
  <memory unit='MiB'>{memory}</memory>
  <vcpu{vcpu_placement}>{vcpus}</vcpu>{memory_backing}
  <os>
    <type arch='x86_64' machine='pc'>hvm</type>
    <kernel>{kernel}</kernel>
    <initrd>{initrd}</initrd>
    <cmdline>{cmdline}</cmdline>
  </os>
  <features><acpi/>{features}</features>
  {cpu}
  <devices>
    <disk type='file' device='disk'>
      <driver name='qemu' type='qcow2' cache='{disk_cache}'/>
      <source file='{disk}'/>
      <target dev='{disk_dev}' bus='{disk_bus}'/>
    </disk>{controllers}
    <serial type='file'><source path='{console}'/><target port='0'/></serial>
    <memballoon model='none'/>
  </devices>
  <seclabel type='static' model='dac' relabel='no'>
    <label>+0:+0</label>
  </seclabel>
  <qemu:commandline>
    <qemu:arg value='-netdev'/>
    <qemu:arg value='user,id=rcb0,{forwards}'/>
    <qemu:arg value='-device'/>
    <qemu:arg value='virtio-net-pci,netdev=rcb0,addr=0x10'/>
  </qemu:commandline>
</domain>
"""
_CMDLINE = ("root=/dev/{root} rw console=ttyS0 quiet net.ifnames=0 "
            "init=/sbin/rcbench-init -- vm")
_SCSI_CONTROLLER = "\n    <controller type='scsi' model='virtio-scsi'/>"
# -cpu host without arch-capabilities: plain "host" aborts on MSR 0x10a
# on some hosts (PVM among them).
KVM_CPU = ("<cpu mode='host-passthrough'><feature policy='disable' "
           "name='arch-capabilities'/></cpu>")
# The host's default huge page size (a hugetlbfs mount must exist when
# libvirtd starts: rcbench engines start kvm makes one).
_HUGEPAGES = "\n  <memoryBacking><hugepages/></memoryBacking>"
_TCG_FEATURES = "<tcg><tb-cache unit='MiB'>128</tb-cache></tcg>"


def hostfwd_option(ssh_port, services):
    """QEMU user-net forwards: SSH, and each service's guest port."""
    pairs = [(int(ssh_port), 22)] + [
        (int(host_port), base.SERVICE_PORTS[service])
        for service, host_port in sorted(services.items())]
    return ",".join("hostfwd=tcp:127.0.0.1:%d-:%d" % pair for pair in pairs)


def _qemu_start_time(name):
    """Epoch seconds at which the domain's QEMU process started."""
    try:
        with open("/run/libvirt/qemu/%s.pid" % name) as f:
            pid = int(f.read())
        with open("/proc/%d/stat" % pid) as f:
            ticks = int(f.read().rsplit(")", 1)[1].split()[19])
        with open("/proc/stat") as f:
            boot = next(int(line.split()[1]) for line in f
                        if line.startswith("btime"))
    except (OSError, ValueError, StopIteration):
        return None
    return boot + ticks / os.sysconf("SC_CLK_TCK")


class LibvirtDriver(ssh.SshDriver):
    name = "kvm"
    own_kernel = True

    def __init__(self, image, conf):
        super().__init__(image, conf)
        self.acceleration, self.why = acceleration.detect(
            conf.vm_acceleration)

    def _virsh(self, *args, timeout=120):
        return base.run_cli(["virsh", "-q", "-c", self.conf.libvirt_uri]
                            + list(args), timeout)

    def _checked(self, *args):
        return base.output_of(self._virsh(*args), "virsh " + args[0])

    def _instance_dir(self, name):
        return opts.cache_path(self.conf, "instances", name)

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
            # Another process may take the port between our probe and
            # QEMU's bind: then QEMU fails to start and we try another.
            with port_lock:
                port = base.free_port()
                services = {service: base.free_port()
                            for service in base.SERVICE_PORTS}
            with open(xml_path, "w") as f:
                f.write(self._domain_xml(name, disk, port, directory,
                                         services))
            self._checked("define", xml_path)
            started = self._virsh("start", name)
            if started.returncode == 0:
                instance.ssh_port = port
                instance.private["forwards"] = services
                return instance
            last_error = started.stderr.strip()
            self._virsh("undefine", name)
            if "hostfwd" not in last_error and "forward" not in last_error:
                break
        shutil.rmtree(directory, ignore_errors=True)
        raise base.DriverError("libvirt could not start %s: %s"
                               % (name, last_error[-1500:]))

    def endpoint(self, instance, service):
        """QEMU forwards a 127.0.0.1 port to each service's guest port."""
        guest_port = base.SERVICE_PORTS[service]
        return base.Endpoint(guest_port, "127.0.0.1",
                             instance.private["forwards"][service])

    def _domain_xml(self, name, disk, port, directory, services):
        kvm = self.acceleration == acceleration.KVM
        quote = saxutils.escape
        tuning = self.tuning or tuning_lib.VmTuning()
        scsi = tuning.disk_bus == "scsi"
        dev = "sda" if scsi else "vda"
        return _DOMAIN.format(
            domain_type="kvm" if kvm else "qemu", name=quote(name),
            memory=int(self.conf.vm_memory_mb), vcpus=int(self.conf.vm_vcpus),
            vcpu_placement=(" cpuset='%s'" % quote(tuning.cpuset)
                            if tuning.cpuset else ""),
            memory_backing=(_HUGEPAGES if tuning.hugepages else ""),
            kernel=quote(self.image.kernel), initrd=quote(self.image.initrd),
            cmdline=_CMDLINE.format(root=dev),
            features="" if kvm else _TCG_FEATURES,
            cpu=KVM_CPU if kvm else "", disk=quote(disk),
            disk_cache=quote(tuning.disk_cache), disk_dev=dev,
            disk_bus="scsi" if scsi else "virtio",
            controllers=_SCSI_CONTROLLER if scsi else "",
            console=quote(os.path.join(directory, "console.log")),
            forwards=hostfwd_option(port, services))

    def wait_running(self, instance, timeout):
        base.wait_until(
            lambda: self._virsh("domstate", instance.name).stdout.strip()
            == "running", timeout, self.conf.poll_interval,
            "domain %s running" % instance.name)
        instance.engine_times = {
            "qemu_process_started": _qemu_start_time(instance.name)}

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

    def list_names(self, prefix):
        out = self._checked("list", "--all", "--name")
        return sorted(n for n in out.split() if n.startswith(prefix))

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
        return dict(super().describe(), runtime="qemu",
                    acceleration=self.acceleration,
                    acceleration_reason=self.why,
                    engine_version=engine_version(self._checked("version")),
                    vcpus=self.conf.vm_vcpus, memory_mb=self.conf.vm_memory_mb,
                    **(self.tuning or tuning_lib.VmTuning()).describe())


def engine_version(virsh_version):
    """"QEMU 7.2.22, libvirt 9.0.0" from ``virsh version`` output."""
    found = dict(line.split(":", 1) for line in virsh_version.splitlines()
                 if ":" in line)
    parts = [found[key].strip() for key in ("Running hypervisor",
                                            "Using library") if key in found]
    return ", ".join(parts) or "libvirt"
