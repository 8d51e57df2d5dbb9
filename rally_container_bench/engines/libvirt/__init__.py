"""libvirt/QEMU VMs: the instance view (instance.py: the guest image), the
lifecycle view (lifecycle.py: busybox initramfs), one domain template and
listing (domain.py), the acceleration used (acceleration.py), libvirtd
(daemon.py)."""
