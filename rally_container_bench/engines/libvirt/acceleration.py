"""Which acceleration a local VM gets, and why.

"kvm" needs /dev/kvm usable with hardware virtualization (vmx/svm). A
/dev/kvm provided by PVM (module kvm_pvm, no vmx/svm) hangs stock guest
kernels, so such hosts run guests under QEMU's TCG emulation, and results
say "tcg": a TCG run is never labelled kvm.
"""

import os

KVM = "kvm"
TCG = "tcg"
CHOICES = ("auto", KVM, TCG)


def _cpu_flags():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("flags"):
                    return set(line.split(":", 1)[1].split())
    except OSError:
        pass
    return set()


def detect(requested="auto"):
    """(acceleration, reason) for a requested "auto", "kvm" or "tcg"."""
    if requested == TCG:
        return TCG, "tcg requested in the configuration"
    if requested == KVM:
        return KVM, "kvm requested in the configuration"
    if not os.path.exists("/dev/kvm"):
        return TCG, "no /dev/kvm"
    if os.path.isdir("/sys/module/kvm_pvm"):
        return TCG, ("/dev/kvm is PVM (kvm_pvm, no vmx/svm): stock guest "
                     "kernels hang under it")
    flags = _cpu_flags()
    if not flags & {"vmx", "svm"}:
        return TCG, "the CPU has no vmx/svm"
    if not os.access("/dev/kvm", os.R_OK | os.W_OK):
        return TCG, "/dev/kvm is not accessible"
    return KVM, "/dev/kvm with %s" % ("vmx" if "vmx" in flags else "svm")
