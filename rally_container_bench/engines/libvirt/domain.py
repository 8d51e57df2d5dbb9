"""libvirt (virsh) and QEMU: the domain, listing and removal both views use.

Both views boot the guest image's kernel directly (no bootloader) with a
serial console to a file, no balloon, and QEMU running as root (a static
DAC label on the domain, so it reads the image cache whatever libvirt's
qemu.conf says). The instance view adds a disk and user-mode networking
(qemu:commandline); the lifecycle view boots busybox as the initramfs.
The description marks the domain as ours (core.labels).
"""

import os
import shutil
from xml.sax import saxutils

from rally_container_bench.core import base
from rally_container_bench.core import labels
from rally_container_bench.engines.libvirt import acceleration
from rally_container_bench import opts

_DOMAIN = """<domain type='{domain_type}'
        xmlns:qemu='http://libvirt.org/schemas/domain/qemu/1.0'>
  <name>{name}</name>
  <description>{description}</description>
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
  <devices>{devices}
    <serial type='file'><source path='{console}'/><target port='0'/></serial>
    <memballoon model='none'/>
  </devices>
  <seclabel type='static' model='dac' relabel='no'>
    <label>+0:+0</label>
  </seclabel>{qemu_commandline}
</domain>
"""
# -cpu host without arch-capabilities: plain "host" aborts on MSR 0x10a
# on some hosts (PVM among them).
KVM_CPU = ("<cpu mode='host-passthrough'><feature policy='disable' "
           "name='arch-capabilities'/></cpu>")


def domain_xml(view, name, accel, memory_mb, vcpus, kernel, initrd,
               cmdline, console, features="", devices="", vcpu_placement="",
               memory_backing="", qemu_commandline=""):
    """A domain of ``view``; the optional parts are XML already escaped."""
    kvm = accel == acceleration.KVM
    quote = saxutils.escape
    return _DOMAIN.format(
        domain_type="kvm" if kvm else "qemu", name=quote(name),
        description=labels.libvirt_description(view),
        memory=int(memory_mb), vcpus=int(vcpus),
        vcpu_placement=vcpu_placement, memory_backing=memory_backing,
        kernel=quote(kernel), initrd=quote(initrd), cmdline=quote(cmdline),
        features=features, cpu=KVM_CPU if kvm else "", devices=devices,
        console=quote(console), qemu_commandline=qemu_commandline)


def virsh(conf, *args, timeout=None):
    return base.run_cli(["virsh", "-q", "-c", conf.libvirt_uri]
                        + list(args), timeout or conf.engine_call_timeout)


def checked(conf, *args):
    """virsh's output, or DriverError with its message."""
    return base.output_of(virsh(conf, *args), "virsh " + args[0])


def instance_dir(conf, name):
    """Where a domain's files are (disk overlay, console, domain.xml)."""
    return opts.cache_path(conf, "instances", name)


def list_ours(conf):
    """Domains marked ours, and those with files in the image cache.

    The second are instance-view domains of versions before the mark.
    """
    names = checked(conf, "list", "--all", "--name").split()
    found = []
    for name in names:
        description = virsh(conf, "desc", name).stdout
        if labels.is_libvirt_description(description) or os.path.isdir(
                instance_dir(conf, name)):
            found.append(name)
    return found


def discard(conf, name):
    """Power off and undefine ``name`` in whatever state; its files go."""
    virsh(conf, "destroy", name)
    virsh(conf, "undefine", name)
    if virsh(conf, "domstate", name).returncode == 0:
        raise base.DriverError("domain %s is still defined" % name)
    shutil.rmtree(instance_dir(conf, name), ignore_errors=True)


def engine_version(virsh_version):
    """"QEMU 7.2.22, libvirt 9.0.0" from ``virsh version`` output."""
    found = dict(line.split(":", 1) for line in virsh_version.splitlines()
                 if ":" in line)
    parts = [found[key].strip() for key in ("Running hypervisor",
                                            "Using library") if key in found]
    return ", ".join(parts) or "libvirt"


def vm_facts(view, virsh_version, vcpus, memory_mb):
    """The facts both views record of a VM: QEMU, its acceleration, size."""
    return {"runtime": "qemu", "acceleration": view.acceleration,
            "acceleration_reason": view.why,
            "engine_version": engine_version(virsh_version),
            "vcpus": vcpus, "memory_mb": memory_mb}
