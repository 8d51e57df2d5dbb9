"""rcbench decide: the command line of the sequential run (decide.py)."""

import os
import sys

from rally_container_bench.decide import settings as decide_settings
from rally_container_bench.validity import compute_hosts as host_access
from rally_container_bench.validity import cpu_pairs


def rally_argv(config_file=None):
    """The rally command line: the rally beside this Python, else PATH's."""
    beside = os.path.join(os.path.dirname(sys.executable), "rally")
    argv = [beside if os.path.exists(beside) else "rally"]
    return argv + (["--config-file", config_file] if config_file else [])


def given_settings(args):
    """The decide settings the command line gives (None: not given)."""
    given = {key: getattr(args, key) for key in decide_settings.DEFAULTS}
    if args.harness_yields is not None:
        given["harness_yields"] = args.harness_yields == "true"
    given["pairing"] = args.pairing
    return given


def _run(args):
    from rally_container_bench.decide import campaign
    from rally_container_bench.decide import plan as planner
    from rally_container_bench.decide import rally_reads
    from rally_container_bench.decide import run as decide

    try:
        if args.resume:
            summary, report = decide.resume(
                args.out, rally=rally_argv(args.rally_config)
                if args.rally_config else None)
        else:
            found = _start(args)
            if isinstance(found, int):
                return found
            summary, report = found
    except (planner.DecideError, rally_reads.RallyReadError,
            campaign.CampaignError) as e:
        print("\nrcbench decide: error: %s" % e, file=sys.stderr)
        return 2
    return _said(summary, report)


def _start(args):
    """A new run: (summary, report), or the exit status of a refusal."""
    from rally_container_bench.decide import plan as planner
    from rally_container_bench.decide import rally_reads
    from rally_container_bench.decide import run as decide

    task_args = decide_settings.read_task_args(args.task_args_file,
                                               args.task_args)
    try:
        task_args, hosts_from = decide_settings.with_compute_hosts(
            task_args, args.compute_hosts, args.env,
            rally_reads.RallyReads(args.rally_config))
    except (planner.DecideError, rally_reads.RallyReadError,
            host_access.ComputeHostError) as e:
        print("rcbench decide: error: %s" % e, file=sys.stderr)
        return 2
    if hosts_from:
        print("compute hosts from %s: each test paired with a native twin "
              "on its instance's host" % hosts_from)
    settings = decide_settings.settings_of(
        task_args, given_settings(args), args.budget_at_most)
    given = sorted((settings.get("margins") or {}).items())
    margins = decide_settings.margins_of(
        args.margin, ["%s=%s" % item for item in given]
        + (args.margin_for or []))
    return decide.decide(
        rally_argv(args.rally_config), args.task, task_args, args.env,
        args.out, settings["budget_s"], settings["max_rounds"],
        settings["pairs_per_round"], margins,
        harness_yields=settings["harness_yields"],
        instrument_check=settings["instrument_check"],
        pairing=settings["pairing"])


def _said(summary, report):
    from rally_container_bench.decide import cost as decide_cost
    from rally_container_bench.report import instrument
    from rally_container_bench.report import render

    print()
    print(render.to_markdown(report))
    print("decided %d of %d cells in %d round(s), %.0f s of a %d s budget"
          % (summary["decided"], summary["cells"], len(summary["rounds"]),
             summary["elapsed_s"], summary["budget_s"]))
    if summary["instrument_cells"]:
        print("of them the platforms' %d of %d; the instrument check's: %s"
              % (summary["platform_decided"], summary["platform_cells"],
                 instrument.summary_line(report.get("instrument"))))
    for note in summary["instrument_notes"]:
        print(note)
    print(pairing_line(summary.get("pairing") or {},
                       report.get("rows") or ()))
    print(decide_cost.line(summary["cost"]))
    for cell in summary["undecided"]:
        print("undecided: " + cell)
    if summary["interrupted"]:
        return 130
    return 1 if summary["sla_failed"] else 0


def pairing_line(pairing, rows=()):
    """How the run's tests met their twins (decide.json's pairing).

    The modes asked per step; where at once was asked and no cell ran so
    (a cloud's hosts with no core to spare), that too: rows are the
    comparison's, each with the mode its pairs ran in.
    """
    said = "; ".join("at %s: %s" % (step, ", ".join(
        "%s %s" % (kind, cpu_pairs.SAID[mode])
        for kind, mode in sorted(modes.items())))
        for step, modes in sorted((pairing.get("modes") or {}).items()))
    said = (said + "; the rest in sequence") if said else "all in sequence"
    found = [(kind, f) for kind, f in sorted(
        (pairing.get("calibration") or {}).items())
        if None not in (f.get("aa_sd_at_once"), f.get("aa_sd_in_sequence"))]
    if found:
        said += " (%s)" % "; ".join(
            "%s A/A %.2f %% at once, %.2f %% in sequence" % (
                kind, 100 * f["aa_sd_at_once"], 100 * f["aa_sd_in_sequence"])
            for kind, f in found)
    ran = {row["pairing"] for row in rows if row.get("pairing")}
    at_once = cpu_pairs.SAID[cpu_pairs.AT_ONCE]
    if ran and at_once in said and at_once not in ran:
        said += ("; asked, but every cell ran %s (the placement table "
                 "says why)" % ", ".join(sorted(ran)))
    return "pairs: " + said


def add_parser(sub):
    p = sub.add_parser(
        "decide", help="run rounds of a task until every cell has a "
        "verdict (paired with native twins) or the budget ends: the "
        "local task, or tasks/kvm_vs_docker.yaml on a cloud (--env)")
    p.add_argument("--task", default="tasks/local_kvm_vs_containers.yaml",
                   help="the task file (default: the local one; "
                        "tasks/kvm_vs_docker.yaml for a cloud)")
    p.add_argument("--task-args-file", help="platforms, concurrency, tests, "
                   "seed and a 'decide' mapping of the settings below")
    p.add_argument("--task-args", metavar="JSON",
                   help="task args over the file's, e.g. a cloud's "
                        "compute_hosts")
    p.add_argument("--env", default="rcbench-local", help="Rally env")
    p.add_argument("--compute-hosts", metavar="FILE",
                   help="a cloud's compute hosts, how the Rally host logs "
                        "in to each (YAML or JSON: the task argument "
                        "compute_hosts); default: the task args', else the "
                        "Rally env's extras (compute_hosts: FILE)")
    p.add_argument("--rally-config", metavar="FILE",
                   help="Rally's config file, as rally --config-file")
    p.add_argument("--out", required=True, metavar="DIR",
                   help="results: rally.html/.json, comparison.*, "
                        "decide.json, rally-task.log, and campaign.json "
                        "(the run's state, for --resume)")
    p.add_argument("--resume", action="store_true",
                   help="go on with the run interrupted in --out (Ctrl-C, "
                        "kill, a lost session): its finished rounds, "
                        "margins, budget and rounds used carry over, and "
                        "the round in flight goes on: its cells that "
                        "ended whole are kept, the others run; its task, "
                        "args and settings are the run's own (the "
                        "options above are not read)")
    p.add_argument("--budget-s", dest="budget_s", type=float,
                   help="seconds the run may take (default %d)"
                        % decide_settings.DEFAULTS["budget_s"])
    p.add_argument("--budget-at-most", dest="budget_at_most", type=float,
                   metavar="SECONDS",
                   help="the budget is at most this, whatever --budget-s "
                        "or the args file says (README command 1: what "
                        "is left of its 10 minutes after the install)")
    p.add_argument("--max-rounds", dest="max_rounds", type=int,
                   help="rounds at most: alpha is spent over them "
                        "(default %d)"
                        % decide_settings.DEFAULTS["max_rounds"])
    p.add_argument("--pairs-per-round", dest="pairs_per_round", type=int,
                   help="observations each cell gets per round: pairs "
                        "at concurrency 1, waves of N pairs at N (a "
                        "wave's pairs, measured at once, count once) "
                        "(default %d)"
                        % decide_settings.DEFAULTS["pairs_per_round"])
    p.add_argument("--harness-yields", dest="harness_yields",
                   choices=("true", "false"),
                   help="Rally's own CPU out of the pairs (over the args "
                        "file's decide: harness_yields)")
    p.add_argument("--pairing", choices=decide_settings.pairing.SETTINGS,
                   help="how a test meets its native twin: auto (measure "
                        "the A/A both ways first, then per kind of test "
                        "the steadier), at-once (on two CPUs, released "
                        "together, where the host has them) or "
                        "sequential (over the args file's decide: "
                        "pairing; default auto)")
    p.add_argument("--margin", type=float, default=0.02,
                   help="equivalence margin (default 0.02)")
    p.add_argument("--margin-for", action="append", metavar="KIND=FRACTION",
                   help="the margin of one kind: %s" % ", ".join(
                       decide_settings.MARGIN_KINDS[:-1]))
    p.set_defaults(func=_run)
