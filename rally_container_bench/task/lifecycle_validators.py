"""rcbench_lifecycle_ready: the lifecycle runtime can run here, now.

At ``rally task validate``: the runtime answers, the busybox image is
built, and the VMs of a step fit in the host's memory.
"""

from rally.common import validation

from rally_container_bench.core import base
from rally_container_bench.engines import registry
from rally_container_bench import opts
from rally_container_bench.task import validators


@validation.configure(name="rcbench_lifecycle_ready")
class LifecycleReadyValidator(validation.Validator):
    """The lifecycle runtime answers, its image is built, VMs fit.

    VMs: concurrency (or the footprint's instances) x (VM memory + QEMU's
    own) within MemAvailable.
    """

    def __init__(self, runtime_param="runtime", instances_param=None):
        super().__init__()
        self.runtime_param = runtime_param
        self.instances_param = instances_param

    def validate(self, context, config, plugin_cls, plugin_cfg):
        name = validators._arg(config, self.runtime_param)
        if name not in registry.LIFECYCLE_NAMES and \
                name not in registry.UNAVAILABLE:
            return  # the enum validator names the known runtimes
        conf = opts.register()
        try:
            driver = registry.lifecycle_class(name)
        except base.DriverError as e:
            self.fail(str(e))
        if driver.own_kernel:
            self._check_memory(config, conf)
        # Everything to fix at once: the image and the runtime.
        problems = []
        try:
            registry.busybox_image(conf)
        except base.DriverError as e:
            problems.append(str(e))
        usable, why = driver.check(conf)
        if not usable:
            problems.append("runtime %r cannot run on this host: %s"
                            % (name, why))
        if problems:
            self.fail("; ".join(problems))

    def _check_memory(self, config, conf):
        count = max(validators._concurrency(config),
                    validators._arg(config, self.instances_param, 1)
                    if self.instances_param else 1)
        available = validators._mem_available_mb()
        overhead = validators.QEMU_OVERHEAD_MB
        need = count * (conf.lifecycle_vm_memory_mb + overhead)
        if available is not None and need > available:
            self.fail("%d VMs x (%d MiB + %d MiB for QEMU) = %d MiB, but "
                      "this host has %d MiB available: fewer at once, or "
                      "[container_bench] lifecycle_vm_memory_mb"
                      % (count, conf.lifecycle_vm_memory_mb,
                         overhead, need, available))
