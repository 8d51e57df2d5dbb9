"""Configuration options of rally-container-bench.

Rally registers them from the ``rally_plugins`` "options" entry point, so
they live in Rally's own config file (``rally --config-file``) under the
``[container_bench]`` group; ``oslo-config-generator`` finds them through
the ``oslo.config.opts`` entry point (``tox -e genconfig``).
"""

import os

from oslo_config import cfg

GROUP = "container_bench"

_DEFAULT_CACHE = os.path.join(
    os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"),
    "rally-container-bench")

OPTS = [
    cfg.FloatOpt("poll_interval", default=0.2, min=0.01,
                 help="Seconds between two status polls of an engine while "
                      "waiting for an instance to run or to be gone. A poll "
                      "hides up to one interval of the phase time, so keep "
                      "it small against the phase being measured."),
    cfg.FloatOpt("nova_poll_interval", default=0.5, min=0.05,
                 help="Seconds between two polls of a Nova server's status "
                      "(phases 'build' and 'delete' of NovaInstances). "
                      "Rally's own default of 1 s hides up to 1 s of build "
                      "time; each poll is one API request per server."),
    cfg.FloatOpt("boot_timeout", default=600.0, min=1,
                 help="Seconds an instance may take from the create request "
                      "to running (phase 'build')."),
    cfg.FloatOpt("ssh_timeout", default=600.0, min=1,
                 help="Seconds a running instance may take to answer an SSH "
                      "login (phase 'network')."),
    cfg.FloatOpt("ssh_poll_interval", default=0.1, min=0.01,
                 help="Seconds between two SSH login attempts (the network "
                      "phase hides up to one interval)."),
    cfg.FloatOpt("ssh_key_refused_timeout", default=5.0, min=0,
                 help="Seconds a guest's sshd may go on refusing the key "
                      "before the network phase fails with \"refused the "
                      "key\" instead of waiting for ssh_timeout. The "
                      "guest image has its key built in; a Nova server "
                      "of a site's image waits on while its console "
                      "shows cloud-init at work. Raise this for an image "
                      "of your own that installs the key after sshd "
                      "starts some other way."),
    cfg.FloatOpt("delete_timeout", default=300.0, min=1,
                 help="Seconds an instance may take to be gone after the "
                      "delete request (phase 'delete')."),
    cfg.FloatOpt("engine_call_timeout", default=120.0, min=1,
                 help="Seconds one call to an engine (a docker API "
                      "request, a docker, podman, ctr, lxc-* or virsh "
                      "command) may take. "
                      "An engine that stops answering (a stopped shim, a "
                      "stuck daemon) fails that iteration after this long, "
                      "saying so; the task goes on."),
    cfg.FloatOpt("cleanup_timeout", default=600.0, min=1,
                 help="Seconds the removal of a workload's leftovers may "
                      "take in all (the cleanup context at a workload's "
                      "end, rcbench cleanup): what is still there then is "
                      "named, with the command that removes it by hand, "
                      "and the task ends."),
    cfg.FloatOpt("zun_image_load_mb_per_s", default=15.0, min=0.1,
                 help="MB per second a Zun host downloads Glance images "
                      "and loads them into Docker, for the estimate that "
                      "refuses a Zun container that loads the image (pull "
                      "policy always, Zun's default; one at a time, as "
                      "two at once race on the host's archive file) when "
                      "the load would take more than half of "
                      "boot_timeout. Measured on "
                      "the 2-core test cloud: 32 containers of the 300 MB "
                      "guest image reached Running after 620-656 s."),
    cfg.FloatOpt("command_timeout", default=3600.0, min=1,
                 help="Seconds one workload command (e.g. one sysbench run, "
                      "prepare or cleanup) may take."),
    cfg.FloatOpt("foreign_load_limit", default=0.25, min=0,
                 help="Cores of foreign load (the host's busy time that "
                      "neither the harness nor the task's instances used) "
                      "above which a test run on this host is disturbed: "
                      "re-measured, and kept out of verdicts, unless both "
                      "runs of an instance-and-twin pair were beside the "
                      "same load with a CPU free for it. A quarter of "
                      "a core is ~5x what kernel threads and engine daemons "
                      "use beside a test on a quiet 2-core host, and a "
                      "quarter of a single-threaded foreign job."),
    cfg.FloatOpt("saturated_load_share", default=0.33, min=0, max=1,
                 help="Share of foreign_load_limit that disturbs a test run "
                      "on a host that had no idle CPU over it (less than "
                      "0.1 cores idle, or as many of the task's instances "
                      "as CPUs: a 1-CPU compute host, or every CPU busy "
                      "with tests), where all foreign load comes out "
                      "of the tests' own time. On the test cloud's 1-CPU "
                      "hosts, twins beside 0.11-0.15 foreign cores read "
                      "11-24 % apart from their instances. 1: the same "
                      "limit everywhere."),
    cfg.IntOpt("remeasure_limit", default=2, min=0,
               help="Times a disturbed test (with its native twin) is "
                    "measured again in the same iteration; the wave of a "
                    "synchronised start re-measures together. A test still "
                    "disturbed after them is kept, flagged, out of "
                    "verdicts."),
    cfg.FloatOpt("run_level_bound", default=0.10, min=0, max=1,
                 help="A cpu or memory test run (an instance's, or its "
                      "native twin's) that read more than this share "
                      "below the median of its side's recent runs of the "
                      "same test on the same host (the platform's, or "
                      "native's for twins; same step and pairing mode; "
                      "after 5 of them) is measured again with its pair, "
                      "at most remeasure_limit times; the last attempt is "
                      "kept, flagged 'below its level'. The host slowed "
                      "beneath the guest there, where no CPU accounting "
                      "sees it: on a 2-vCPU cloud VM both twins of a wave "
                      "read 57 % of their level with no steal and no "
                      "foreign load. Both sides are judged, each against "
                      "its own level: measuring again only low twins "
                      "would move verdicts towards 'worse'. 0: never."),
    cfg.FloatOpt("quiet_wait", default=30.0, min=0,
                 help="Seconds a disturbed test waits at most, before it "
                      "is measured again, for its host's foreign load to "
                      "drop below foreign_load_limit (read in one-second "
                      "windows, logged as 'host busy: waiting'): measuring "
                      "beside the load only to discard the run again "
                      "spends the budget for nothing, so a test whose "
                      "host is still busy after the wait is not measured "
                      "again. 0: measure again at once."),
    cfg.StrOpt("sysbench_path", default="sysbench",
               help="sysbench executable of the native baseline on this "
                    "host (a name looked up in PATH, or a path)."),
    cfg.StrOpt("sysbench_build", default="auto",
               choices=[("auto", "each side runs its own sysbench where "
                         "it is this host's build (the executable and every "
                         "library it loads the same bytes), else this "
                         "host's build is pushed to it"),
                        ("pushed", "this host's build is pushed to every "
                         "guest and compute host twin"),
                        ("image", "each side runs its own; the report "
                         "says where the two builds differ")],
               help="Which sysbench build a test runs inside an instance "
                    "and on a compute host twin. This host's build is "
                    "sysbench_path with its libraries and loader beside "
                    "it (any x86-64 Linux runs it); every result records "
                    "the build each side ran (a checksum)."),
    cfg.StrOpt("native_workdir", default=None,
               help="Directory under which the native baseline creates one "
                    "private directory per iteration for sysbench fileio "
                    "files (default: the system temporary directory). Put "
                    "it on the filesystem you mean to measure."),
    cfg.StrOpt("image_cache_dir", default=_DEFAULT_CACHE,
               sample_default="~/.cache/rally-container-bench",
               help="Where offline-built guest images and the sysbench "
                    "0.4.12 build are cached."),
    cfg.StrOpt("daemon_state_dir", default="/run/rcbench",
               help="Where rcbench engines start keeps the pid files and "
                    "logs of the daemons it starts (dockerd, libvirtd, "
                    "containerd, podman's namespace holder). Host-wide, "
                    "not per user: every HOME must find the same daemons."),
    cfg.StrOpt("docker_url", default="unix:///var/run/docker.sock",
               help="Docker Engine API endpoint of the local docker driver."),
    cfg.StrOpt("docker_network", default="bridge",
               help="Docker network the local docker driver's containers "
                    "join (default: Docker's own bridge), e.g. one with "
                    "its own bridge, MTU or firewall rules."),
    cfg.StrOpt("podman_url", default="unix:///run/podman/podman.sock",
               help="Podman API endpoint of the local podman driver."),
    cfg.StrOpt("containerd_state_dir", default="/run/rcbench-containerd",
               help="State directory of rcbench's own containerd (the "
                    "lifecycle runtimes containerd and cri-containerd): "
                    "its socket is containerd.sock there. Docker's "
                    "containerd is never used."),
    cfg.StrOpt("libvirt_uri", default="qemu:///system",
               help="libvirt connection URI of the local kvm driver."),
    cfg.StrOpt("vm_acceleration", default="auto",
               choices=["auto", "kvm", "tcg"],
               help="Acceleration of local VMs: auto uses KVM where "
                    "/dev/kvm has hardware virtualization and QEMU TCG "
                    "otherwise (also on PVM hosts, where stock guest "
                    "kernels hang). Results always record what was used."),
    cfg.StrOpt("runsc_platform", default="ptrace", choices=["ptrace", "kvm"],
               help="gVisor's platform for the runsc platforms "
                    "(docker-runsc, podman-runsc): ptrace works anywhere; "
                    "kvm needs hardware virtualization. Recorded with "
                    "every result and in the platform's label."),
    cfg.StrOpt("runsc_network", default="host", choices=["host", "sandbox"],
               help="gVisor's network for the runsc platforms: host "
                    "(hostinet in the container's own network namespace; "
                    "the only one Debian's runsc 20221219 starts on kernels "
                    "6.x) or sandbox (gVisor's netstack). Recorded with "
                    "every result."),
    cfg.IntOpt("vm_memory_mb", default=1024, min=128,
               help="Memory of a local VM, MiB."),
    cfg.IntOpt("vm_vcpus", default=1, min=1,
               help="vCPUs of a local VM (KEK's flavor had 1)."),
    cfg.FloatOpt("container_cpus", min=0.01,
                 help="CPU limit of a local Docker or Podman container "
                      "(docker run --cpus: a CFS quota); unset: none. "
                      "Recorded as cpu_limit in each iteration's "
                      "environment. A tuning knob, and how the periodic "
                      "job's test injects a slowdown."),
    cfg.IntOpt("lifecycle_vm_memory_mb", default=128, min=32,
               help="Memory of a ContainerLifecycle VM (busybox "
                    "initramfs, no disk), MiB."),
    cfg.IntOpt("vm_disk_gb", default=20, min=2,
               help="Disk of a local VM, GiB: a thin overlay of the image "
                    "that the guest grows into at boot (KEK's flavor had "
                    "10; the KEK fileio presets write 8 GiB)."),
]


def resolved_dir(path):
    """path with ~ expanded and every symlink resolved.

    Runtimes refuse some paths under a symlinked directory (runc: "invalid
    rootfs: not an absolute path, or a symlink"), so every path handed to
    one is built on this.
    """
    return os.path.realpath(os.path.expanduser(path))


def cache_path(conf, *parts):
    """A path under [container_bench] image_cache_dir, resolved."""
    return os.path.join(resolved_dir(conf.image_cache_dir), *parts)


def list_opts():
    """Options by group, for Rally and oslo-config-generator."""
    return [(GROUP, list(OPTS))]


def register(conf=None):
    """Register the options on ``conf`` (Rally's CONF by default).

    Rally registers them itself when it loads the package's plugins; this
    is for code that runs outside Rally (the rcbench CLI, tests).
    """
    if conf is None:
        from rally.common import cfg as rally_cfg
        conf = rally_cfg.CONF
    group = cfg.OptGroup(GROUP, title="rally-container-bench options")
    conf.register_group(group)
    # Registering the same option objects again is a no-op in oslo.config.
    conf.register_opts(OPTS, group=group)
    return conf[GROUP]
