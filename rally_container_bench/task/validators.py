"""Rally validators for this package's scenario arguments.

They run at ``rally task validate`` / before the first iteration, so bad
input fails with a message naming the argument before anything boots.
"""

import os
import shutil
import tempfile

from rally.common import validation

from rally_container_bench.core import tuning as tuning_lib
from rally_container_bench.engines import registry
from rally_container_bench import opts
from rally_container_bench.workloads import tests as tests_lib
from rally_container_bench.workloads import tools


def _arg(config, name, default=None):
    if config is None:
        return default
    return config.get("args", {}).get(name, default)


@validation.configure(name="rcbench_sysbench_tests")
class SysbenchTestsValidator(validation.Validator):
    """The argument is a list of presets or test mappings.

    Of sysbench, fio, iperf3 and http, runnable where the scenario runs
    them.

    sysbench_only_if=(param, value): when that argument has that value
    (Zun's via: logs), only tools that run from a script are accepted.
    fio_here_unless=param: unless that argument is given (a remote host),
    the tests run on this host, so what they run inside (but sysbench,
    whose path the scenario checks) must be here.
    network_unless_param=param: network tests (iperf3, http) are refused
    when that argument is given (the host cannot reach a remote one's).
    Network tests' clients (iperf3, wrk) always run on this host.
    """

    def __init__(self, param_name="tests", required=True,
                 sysbench_only_if=None, fio_here_unless=None,
                 network_unless_param=None):
        super().__init__()
        self.param_name = param_name
        self.required = required
        self.sysbench_only_if = sysbench_only_if
        self.fio_here_unless = fio_here_unless
        self.network_unless_param = network_unless_param

    def validate(self, context, config, plugin_cls, plugin_cfg):
        value = _arg(config, self.param_name)
        if value is None:
            if self.required:
                self.fail("%s is required: a list of presets (%s) or test "
                          "mappings" % (self.param_name,
                                        ", ".join(tests_lib.names())))
            return
        try:
            specs = tests_lib.resolve_all(value)
        except tests_lib.TestsError as e:
            self.fail("%s: %s" % (self.param_name, e))
        if self.sysbench_only_if:
            param, only = self.sysbench_only_if
            others = ["%s %s" % (s.tool, s.label) for s in specs
                      if not tools.of(s).scripted]
            if others and _arg(config, param) == only:
                self.fail("%s: %s cannot run with %s=%s, which runs "
                          "sysbench only" % (self.param_name,
                                             ", ".join(others), param, only))
        network = sorted({s.tool for s in specs if tools.of(s).port})
        if network and self.network_unless_param and _arg(
                config, self.network_unless_param):
            self.fail("%s: %s tests cannot run with %s (this host cannot "
                      "reach a server there); run them without it"
                      % (self.param_name, " and ".join(network),
                         self.network_unless_param))
        self._check_pushed_build(specs)
        on_host = self.fio_here_unless and not _arg(config,
                                                    self.fio_here_unless)
        for tool in sorted({tools.of(s) for s in specs},
                           key=lambda t: t.name):
            needed = tool.client
            if on_host and not tool.path_option:
                needed += tool.inside
            for executable, package in dict.fromkeys(needed):
                if shutil.which(executable) is None:
                    self.fail("%s: %s tests run %s on this host, which has "
                              "none (apt-get install %s)"
                              % (self.param_name, tool.name, executable,
                                 package))

    def _check_pushed_build(self, specs):
        conf = opts.register()
        if conf.sysbench_build != "pushed" or not any(
                s.tool == "sysbench" for s in specs):
            return
        if shutil.which(conf.sysbench_path) is None:
            self.fail("%s: [container_bench] sysbench_build = pushed pushes "
                      "this host's sysbench to every side, and this host "
                      "has none (sysbench_path %r: apt-get install "
                      "sysbench)" % (self.param_name, conf.sysbench_path))


@validation.configure(name="rcbench_container_tuning")
class ContainerTuningValidator(validation.Validator):
    """Knobs of the driver's kind, for a driver with knobs, CPUs here."""

    def __init__(self, param_name="tuning", driver_param="driver"):
        super().__init__()
        self.param_name = param_name
        self.driver_param = driver_param

    def validate(self, context, config, plugin_cls, plugin_cfg):
        value = _arg(config, self.param_name)
        if value is None:
            return
        driver = _arg(config, self.driver_param)
        try:
            tuning = tuning_lib.from_dict(value, driver)
        except tuning_lib.TuningError as e:
            self.fail(str(e))
        if not tuning.is_default and \
                driver not in tuning_lib.SUPPORTED_DRIVERS:
            self.fail("%s applies to the drivers %s, not %r"
                      % (self.param_name,
                         ", ".join(tuning_lib.SUPPORTED_DRIVERS), driver))
        usable = os.sched_getaffinity(0)
        missing = sorted(tuning.cpus() - usable)
        if missing:
            self.fail("tuning.cpuset %s: CPU(s) %s are not usable here "
                      "(this host offers %s)"
                      % (tuning.cpuset, ", ".join(map(str, missing)),
                         ", ".join(map(str, sorted(usable)))))
        if getattr(tuning, "hugepages", False):
            self._check_hugepages(_concurrency(config), opts.register())

    def _check_hugepages(self, concurrency, conf):
        free, page_kb = huge_pages()
        need = concurrency * -(-conf.vm_memory_mb * 1024 // page_kb)
        if need > free:
            self.fail("tuning.hugepages: concurrency %d x %d MiB of guest "
                      "memory needs %d free huge pages of %d KiB, this "
                      "host has %d: reserve them first (echo %d > "
                      "/proc/sys/vm/nr_hugepages, as root)"
                      % (concurrency, conf.vm_memory_mb, need, page_kb,
                         free, need))


@validation.configure(name="rcbench_local_executable")
class LocalExecutableValidator(validation.Validator):
    """The argument (or the configured default) is an executable here."""

    def __init__(self, param_name, conf_default=None, unless_param=None,
                 if_param=None):
        super().__init__()
        self.param_name = param_name
        self.conf_default = conf_default
        # Not checked here when the workload runs elsewhere (over SSH).
        self.unless_param = unless_param
        # Checked only when this argument is set (e.g. native_twin).
        self.if_param = if_param

    def validate(self, context, config, plugin_cls, plugin_cfg):
        if self.unless_param and _arg(config, self.unless_param):
            return
        if self.if_param and not _arg(config, self.if_param):
            return
        value = _arg(config, self.param_name)
        if value is None and self.conf_default:
            value = getattr(opts.register(), self.conf_default)
        if not isinstance(value, str) or not value:
            self.fail("%s must be a command name or path, not %r"
                      % (self.param_name, value))
        if shutil.which(value) is None:
            self.fail("%s: %r is not an executable on this host (install "
                      "it, or give its path)" % (self.param_name, value))


@validation.configure(name="rcbench_writable_directory")
class WritableDirectoryValidator(validation.Validator):
    """The argument, if given, is an existing directory we may write to."""

    def __init__(self, param_name, unless_param=None):
        super().__init__()
        self.param_name = param_name
        self.unless_param = unless_param

    def validate(self, context, config, plugin_cls, plugin_cfg):
        value = _arg(config, self.param_name)
        if value is None or (self.unless_param
                             and _arg(config, self.unless_param)):
            return
        if not isinstance(value, str) or not os.path.isdir(value):
            self.fail("%s: %r is not an existing directory"
                      % (self.param_name, value))
        if not os.access(value, os.W_OK | os.X_OK):
            self.fail("%s: directory %r is not writable"
                      % (self.param_name, value))


# What QEMU itself takes next to a guest's RAM (measured here: ~150-200 MiB
# RSS per TCG guest; rounded up).
QEMU_OVERHEAD_MB = 256


def _concurrency(config):
    runner = (config or {}).get("runner") or {}
    return int(runner.get("concurrency") or runner.get("max_concurrency")
               or 1)


def huge_pages(meminfo="/proc/meminfo"):
    """(free huge pages, their size in KiB) of the host."""
    found = {}
    with open(meminfo) as f:
        for line in f:
            key, _, value = line.partition(":")
            found[key] = value.split()
    return (int(found.get("HugePages_Free", ["0"])[0]),
            int(found.get("Hugepagesize", ["2048"])[0]))


def _mem_available_mb():
    with open("/proc/meminfo") as f:
        for line in f:
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) // 1024
    return None


def vm_capacity(conf, available_mb=None):
    """(most VMs at once this host's memory holds, why) for driver kvm."""
    available = (_mem_available_mb() if available_mb is None
                 else available_mb)
    each = conf.vm_memory_mb + QEMU_OVERHEAD_MB
    if available is None:
        return None, "MemAvailable unknown"
    why = "%d MiB available / (%d MiB guest memory + %d MiB for QEMU)" % (
        available, conf.vm_memory_mb, QEMU_OVERHEAD_MB)
    return available // each, why


@validation.configure(name="rcbench_host_capacity")
class HostCapacityValidator(validation.Validator):
    """Concurrency times what one iteration needs fits on this host.

    VMs (driver kvm): guest memory plus QEMU's own per instance within
    MemAvailable. Native fileio: the largest fileio test's files per
    process within the free space of the work directory.
    """

    def __init__(self, driver_param=None, workdir_param=None,
                 tests_param="tests", unless_param=None):
        super().__init__()
        self.driver_param = driver_param
        self.workdir_param = workdir_param
        self.tests_param = tests_param
        self.unless_param = unless_param

    def validate(self, context, config, plugin_cls, plugin_cfg):
        if self.unless_param and _arg(config, self.unless_param):
            return
        concurrency = _concurrency(config)
        conf = opts.register()
        driver = _arg(config, self.driver_param) if self.driver_param \
            else None
        if driver in registry.INSTANCE_NAMES and \
                registry.instance_class(driver).own_kernel:
            self._check_memory(concurrency, conf)
        if self.workdir_param:
            self._check_disk(concurrency, config, conf)

    def _check_memory(self, concurrency, conf):
        available = _mem_available_mb()
        most, _ = vm_capacity(conf, available)
        if most is not None and concurrency > most:
            self.fail("concurrency %d x (%d MiB guest memory + %d MiB for "
                      "QEMU) = %d MiB, but this host has %d MiB available: "
                      "at most %d VMs at once here; lower the concurrency "
                      "(task arg max_concurrency: {kvm: %d}) or "
                      "[container_bench] vm_memory_mb"
                      % (concurrency, conf.vm_memory_mb, QEMU_OVERHEAD_MB,
                         concurrency * (conf.vm_memory_mb
                                        + QEMU_OVERHEAD_MB),
                         available, most, most))

    def _check_disk(self, concurrency, config, conf):
        try:
            specs = tests_lib.resolve_all(_arg(config, self.tests_param)
                                          or [])
        except tests_lib.TestsError:
            return  # rcbench_sysbench_tests says what is wrong
        # bytes of files each test writes in the work directory (0: none)
        sizes = [tools.of(s).file_bytes(s) for s in specs]
        sizes = [size for size in sizes if size]
        workdir = (_arg(config, self.workdir_param) or conf.native_workdir
                   or tempfile.gettempdir())
        if not sizes or not os.path.isdir(workdir):
            return
        need = concurrency * max(sizes)
        free = shutil.disk_usage(workdir).free
        if need > free:
            self.fail("concurrency %d x %d MiB of test files = %d MiB, but "
                      "%s has %d MiB free: lower the concurrency or the "
                      "file size, or give a workdir on a larger "
                      "filesystem" % (concurrency, max(sizes) >> 20,
                                      need >> 20, workdir, free >> 20))


@validation.configure(name="rcbench_engine_ready")
class EngineReadyValidator(validation.Validator):
    """The driver's engine answers, with what this config needs.

    E.g. the docker network; the reason is what ``rcbench doctor`` says,
    given before anything boots.
    """

    def __init__(self, driver_param="driver"):
        super().__init__()
        self.driver_param = driver_param

    def validate(self, context, config, plugin_cls, plugin_cfg):
        name = _arg(config, self.driver_param)
        if name not in registry.INSTANCE_NAMES:
            return  # the enum validator names the allowed drivers
        why = registry.not_ready(name, opts.register())
        if why:
            self.fail("driver %r %s" % (name, why))


@validation.configure(name="rcbench_ssh_target")
class SSHTargetValidator(validation.Validator):
    """With ``host`` given: a readable private key file and a valid port."""

    def validate(self, context, config, plugin_cls, plugin_cfg):
        host = _arg(config, "host")
        if not host:
            return
        if not isinstance(host, str):
            self.fail("host must be a host name or address, not %r" % host)
        key_file = _arg(config, "key_file")
        if not key_file:
            self.fail("host %s needs key_file: the private key of an SSH "
                      "login there" % host)
        if not os.access(os.path.expanduser(key_file), os.R_OK):
            self.fail("key_file %r is not a readable file" % key_file)
        port = _arg(config, "port", 22)
        if not isinstance(port, int) or not 0 < port < 65536:
            self.fail("port must be a TCP port number, not %r" % port)
