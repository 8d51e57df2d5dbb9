"""Validators of how a test meets its twin: the known effect, the pairing."""

from rally.common import validation

from rally_container_bench.engines.native import known_effect
from rally_container_bench.task import validators
from rally_container_bench.validity import cpu_pairs


@validation.configure(name="rcbench_known_effect")
class KnownEffectValidator(validation.Validator):
    """A neighbour's nice is 1 to 19, and it shares the test's own CPU."""

    def __init__(self, param_name, pinned_param="pinned"):
        super().__init__()
        self.param_name = param_name
        self.pinned_param = pinned_param

    def validate(self, context, config, plugin_cls, plugin_cfg):
        nice = validators._arg(config, self.param_name)
        if nice is None:
            return
        try:
            known_effect.share(nice)
        except ValueError as e:
            self.fail("%s: %s" % (self.param_name, e))
        if validators._arg(config, self.pinned_param, True) is False:
            self.fail("%s needs %s: true (the neighbour's share is of the "
                      "test's own CPU)" % (self.param_name,
                                           self.pinned_param))
        if cpu_pairs.AT_ONCE in _asked(validators._arg(config, "pairing")):
            self.fail("%s pairs in sequence, not at once (at once the "
                      "harness's wakeups go to the twin's less loaded CPU: "
                      "the effect read -5.7 %% for -9.7 %%)"
                      % self.param_name)


@validation.configure(name="rcbench_pairing")
class PairingValidator(validation.Validator):
    """A pairing is a mode, or {cpu|memory: mode}; at once needs pinning.

    twin_param: the argument without which a test has no twin (a cloud
    scenario's compute_hosts): at once then needs it.
    """

    def __init__(self, param_name, pinned_param="pinned", twin_param=None):
        super().__init__()
        self.param_name = param_name
        self.pinned_param = pinned_param
        self.twin_param = twin_param

    def validate(self, context, config, plugin_cls, plugin_cfg):
        pairing = validators._arg(config, self.param_name)
        wrong = cpu_pairs.check_pairing(pairing)
        if wrong:
            self.fail(wrong)
        if cpu_pairs.AT_ONCE in _asked(pairing) \
                and validators._arg(config, self.pinned_param, True) is False:
            self.fail("%s at once needs %s: true (each side on a CPU of "
                      "its own)" % (self.param_name, self.pinned_param))
        if cpu_pairs.AT_ONCE in _asked(pairing) and self.twin_param \
                and validators._arg(config, self.twin_param) is None:
            self.fail("%s at once pairs a test with its native twin on the "
                      "instance's host: give %s" % (self.param_name,
                                                    self.twin_param))


def _asked(pairing):
    """The modes a pairing value names (a mode, or {kind: mode})."""
    return list(pairing.values()) if isinstance(pairing, dict) \
        else [pairing]
