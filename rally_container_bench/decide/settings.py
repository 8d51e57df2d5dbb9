"""rcbench decide's settings: its task args, the decide mapping, margins,
and where a cloud run's compute hosts come from.

Read by the command line (cli.decide) and by the periodic job's decided
run (periodic.decided) alike.
"""

import json

import yaml

from rally_container_bench.decide import pairing
from rally_container_bench.decide import plan as planner
from rally_container_bench.validity import compute_hosts as host_access

DEFAULTS = {"budget_s": 600, "max_rounds": 6, "pairs_per_round": 3}
# the decide mapping's keys besides DEFAULTS'
OTHER_SETTINGS = ("margins", "harness_yields", "instrument_check",
                  "pairing")
MARGIN_KINDS = ("cpu", "memory", "disk", "network", "footprint", "phase",
                "default")


def margins_of(default, items, auto=True):
    """{kind: fraction or "auto"} from --margin and KIND=VALUE items."""
    margins = {"default": default}
    for item in items or []:
        kind, _, value = item.partition("=")
        if kind not in MARGIN_KINDS or not value:
            raise ValueError("margin %s: give KIND=FRACTION or KIND=auto, "
                             "KIND one of %s"
                             % (item, ", ".join(MARGIN_KINDS)))
        if value == "auto" and not auto:
            raise ValueError("margin %s: auto is for rcbench decide, which "
                             "chooses it from its first round" % item)
        margins[kind] = value if value == "auto" else float(value)
    return margins


def read_task_args(path, text):
    """The task's args: its args file's, with --task-args (JSON) over."""
    task_args = {}
    if path:
        with open(path) as f:
            task_args = yaml.safe_load(f) or {}
    if text:
        try:
            given = json.loads(text)
        except ValueError as e:
            raise ValueError("--task-args is not JSON: %s" % e)
        if not isinstance(given, dict):
            raise ValueError("--task-args is a JSON object, not %r"
                             % (given,))
        task_args.update(given)
    return task_args


def settings_of(task_args, given=None, budget_at_most=None):
    """The decide mapping of the task args (popped), over DEFAULTS.

    given: {key: value or None} from the command line, over the file's;
    budget_at_most: seconds the budget may not exceed, whoever set it
    (README command 1: what its install left of its 10 minutes).
    """
    settings = dict(DEFAULTS, **task_args.pop("decide", {}) or {})
    for key, value in (given or {}).items():
        if value is not None:
            settings[key] = value
    unknown = sorted(set(settings) - set(DEFAULTS) - set(OTHER_SETTINGS))
    if unknown:
        raise ValueError("decide: unknown setting(s) %s; known: %s"
                         % (", ".join(unknown),
                            ", ".join(list(DEFAULTS) + list(OTHER_SETTINGS))))
    if settings["budget_s"] <= 0 or settings["max_rounds"] < 1 \
            or settings["pairs_per_round"] < 1:
        raise ValueError("budget_s > 0, max_rounds >= 1 and "
                         "pairs_per_round >= 1, not %r" % settings)
    if budget_at_most is not None:
        if budget_at_most <= 0:
            raise ValueError("the budget's limit must be > 0, not %r"
                             % budget_at_most)
        settings["budget_s"] = min(settings["budget_s"], budget_at_most)
    settings.setdefault("harness_yields", False)
    settings.setdefault("instrument_check", True)
    for flag in ("harness_yields", "instrument_check"):
        if not isinstance(settings[flag], bool):
            raise ValueError("decide: %s is true or false, not %r"
                             % (flag, settings[flag]))
    settings.setdefault("pairing", pairing.AUTO)
    if settings["pairing"] not in pairing.SETTINGS:
        raise ValueError("decide: pairing is one of %s, not %r" % (
            ", ".join(pairing.SETTINGS), settings["pairing"]))
    return settings


def with_compute_hosts(task_args, path, env, reads, refuse=True):
    """(task_args with the compute hosts found, where they came from).

    --compute-hosts FILE (path), else the task args', else the Rally
    env's extras (validity.compute_hosts.resolve). refuse: DecideError on
    a cloud env where none is found (planner.refuse_unpaired).
    """
    env_data = reads.env_data(env)
    task_args, where = host_access.resolve(
        task_args, path, (env_data or {}).get("extras"))
    if refuse:
        planner.refuse_unpaired(env_data, task_args, lambda: _visible_hosts(
            env, reads.config_file))
    return task_args, where


def _visible_hosts(env, config_file):
    from rally_container_bench.task import cloud_leftovers  # OpenStack's
    try:
        return cloud_leftovers.Cloud.of_env(env, config_file).compute_hosts()
    except Exception as e:
        return {"openstack": "not listed (%s)" % e}
