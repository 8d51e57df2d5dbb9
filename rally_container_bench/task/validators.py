"""Rally validators for this package's scenario arguments.

They run at ``rally task validate`` / before the first iteration, so bad
input fails with a message naming the argument before anything boots.
"""

import os
import shutil

from rally.common import validation

from rally_container_bench import opts
from rally_container_bench.sysbench import presets
from rally_container_bench.sysbench import spec as spec_lib


def _arg(config, name, default=None):
    if config is None:
        return default
    return config.get("args", {}).get(name, default)


@validation.configure(name="rcbench_sysbench_tests")
class SysbenchTestsValidator(validation.Validator):
    """The argument is a list of sysbench presets or test mappings."""

    def __init__(self, param_name="tests", required=True):
        super().__init__()
        self.param_name = param_name
        self.required = required

    def validate(self, context, config, plugin_cls, plugin_cfg):
        value = _arg(config, self.param_name)
        if value is None:
            if self.required:
                self.fail("%s is required: a list of sysbench presets (%s) "
                          "or test mappings"
                          % (self.param_name, ", ".join(presets.NAMES)))
            return
        try:
            presets.resolve_all(value)
        except spec_lib.SpecError as e:
            self.fail("%s: %s" % (self.param_name, e))


@validation.configure(name="rcbench_local_executable")
class LocalExecutableValidator(validation.Validator):
    """The argument (or the configured default) is an executable here."""

    def __init__(self, param_name, conf_default=None):
        super().__init__()
        self.param_name = param_name
        self.conf_default = conf_default

    def validate(self, context, config, plugin_cls, plugin_cfg):
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

    def __init__(self, param_name):
        super().__init__()
        self.param_name = param_name

    def validate(self, context, config, plugin_cls, plugin_cfg):
        value = _arg(config, self.param_name)
        if value is None:
            return
        if not isinstance(value, str) or not os.path.isdir(value):
            self.fail("%s: %r is not an existing directory"
                      % (self.param_name, value))
        if not os.access(value, os.W_OK | os.X_OK):
            self.fail("%s: directory %r is not writable"
                      % (self.param_name, value))
