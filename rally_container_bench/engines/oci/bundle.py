"""An OCI runtime-spec config.json for a busybox bundle (pure).

What ``runc spec`` would write, with the image's command, a read-only root
shared by every instance (nothing is copied per container) and a network
namespace of its own (loopback only).
"""

CAPABILITIES = ["CAP_AUDIT_WRITE", "CAP_KILL", "CAP_NET_BIND_SERVICE"]
MASKED = ["/proc/acpi", "/proc/asound", "/proc/kcore", "/proc/keys",
          "/proc/latency_stats", "/proc/timer_list", "/proc/timer_stats",
          "/proc/sched_debug", "/sys/firmware", "/proc/scsi"]
READONLY = ["/proc/bus", "/proc/fs", "/proc/irq", "/proc/sys",
            "/proc/sysrq-trigger"]


def _mount(destination, fstype, source, options):
    return {"destination": destination, "type": fstype, "source": source,
            "options": options}


def config(rootfs, args, env, hostname="rcbench"):
    """The config.json document (a dict) of one bundle."""
    return {
        "ociVersion": "1.0.2",
        "process": {
            "terminal": False, "user": {"uid": 0, "gid": 0},
            "args": list(args), "env": list(env), "cwd": "/",
            "capabilities": {key: list(CAPABILITIES) for key in (
                "bounding", "effective", "permitted")},
            "rlimits": [{"type": "RLIMIT_NOFILE", "hard": 1024,
                         "soft": 1024}],
            "noNewPrivileges": True,
        },
        "root": {"path": rootfs, "readonly": True},
        "hostname": hostname,
        "mounts": [
            _mount("/proc", "proc", "proc", []),
            _mount("/dev", "tmpfs", "tmpfs",
                   ["nosuid", "strictatime", "mode=755", "size=65536k"]),
            _mount("/dev/pts", "devpts", "devpts",
                   ["nosuid", "noexec", "newinstance", "ptmxmode=0666",
                    "mode=0620"]),
            _mount("/dev/shm", "tmpfs", "shm",
                   ["nosuid", "noexec", "nodev", "mode=1777",
                    "size=65536k"]),
            _mount("/dev/mqueue", "mqueue", "mqueue",
                   ["nosuid", "noexec", "nodev"]),
            _mount("/sys", "sysfs", "sysfs",
                   ["nosuid", "noexec", "nodev", "ro"]),
            _mount("/tmp", "tmpfs", "tmpfs", ["nosuid", "nodev"]),
        ],
        "linux": {
            "resources": {"devices": [{"allow": False, "access": "rwm"}]},
            "namespaces": [{"type": t} for t in (
                "pid", "network", "ipc", "uts", "mount")],
            "maskedPaths": list(MASKED),
            "readonlyPaths": list(READONLY),
        },
    }
