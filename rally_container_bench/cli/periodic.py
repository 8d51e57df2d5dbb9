"""rcbench verbs of the periodic job (see rally_container_bench.periodic.job).

    rcbench periodic --task T --results DIR [--task-args-file F]
                     [--env NAME | --env-spec F | --from-sysenv]
                     [--baseline F [--thresholds F] [--promote]] [--decide]
    rcbench gate BASELINE_JSON CANDIDATE_JSON [--thresholds F] [--all]
    rcbench diff BASELINE_JSON CANDIDATE_JSON [--floor F | --thresholds F]
                 [--out DIR]
    rcbench promote RUN_DIR [BASELINE_JSON] [--database URL [--job NAME]]
    rcbench periodic-import DIR --database URL --job NAME
"""

import json
import os
import sys


def _database(args):
    """The shared database's connection, or None.

    --database, $RCBENCH_DATABASE, or the first line of
    $RCBENCH_DATABASE_FILE (Zuul writes its secret there, mode 600: out of
    every process's environment).
    """
    found = args.database or os.environ.get("RCBENCH_DATABASE")
    path = os.environ.get("RCBENCH_DATABASE_FILE")
    if not found and path:
        with open(path) as f:
            found = f.readline().strip()
    return found or None


def _periodic(args):
    from rally_container_bench.periodic import job as periodic
    options = periodic.Options(
        task=args.task, results=args.results,
        task_args_file=args.task_args_file, task_args=args.task_args,
        env=args.env, env_spec=args.env_spec, from_sysenv=args.from_sysenv,
        local_env=args.local_env,
        baseline=args.baseline, thresholds=args.thresholds,
        trend=args.trend, promote=args.promote,
        promote_if_missing=args.promote_if_missing, rally=args.rally,
        rally_config=args.rally_config, decide=args.decide,
        compute_hosts=args.compute_hosts,
        database=_database(args),
        job=args.job or os.environ.get("RCBENCH_JOB") or None)
    return periodic.run(options, log=lambda line: print(line, flush=True))


def documents(*paths):
    """The JSON documents in paths (ValueError naming one that is not)."""
    found = []
    for path in paths:
        with open(path) as f:
            try:
                found.append(json.load(f))
            except ValueError as e:
                raise ValueError("%s is not JSON: %s" % (path, e))
    return found


def _diff(args):
    from rally_container_bench.report import diff
    from rally_container_bench.report import gate
    baseline, candidate = documents(args.baseline, args.candidate)
    if args.thresholds:
        limits = gate.Thresholds.load(args.thresholds)
        floor_of, ignored = limits.of, limits.ignored
    else:
        floor_of, ignored = (lambda metric: args.floor), None
    changes, only, failed = diff.compare([baseline], [candidate],
                                         floor_of=floor_of, ignored=ignored)
    text = diff.format_changes(changes, only, failed,
                               everything=not args.changes_only)
    note = diff.made_by_note([baseline], [candidate])
    if note:
        text += "\n" + note
    print(text)
    if args.out:
        os.makedirs(args.out, exist_ok=True)
        with open(os.path.join(args.out, "diff.txt"), "w") as f:
            f.write(diff.format_changes(changes, only, failed)
                    + ("\n" + note if note else "") + "\n")
        with open(os.path.join(args.out, "diff.json"), "w") as f:
            json.dump({"changes": [c._asdict() for c in changes],
                       "only": {k: [list(key) for key in v]
                                for k, v in only.items()},
                       "made_by_changes": diff.made_by_changes(
                           [baseline], [candidate])}, f, indent=2)
    return 0


def _gate(args):
    from rally_container_bench.report import diff
    from rally_container_bench.report import gate
    thresholds = gate.Thresholds.load(args.thresholds)
    baseline, candidate = documents(args.baseline, args.candidate)
    history = [[doc] for doc in documents(*args.history)]
    findings, only, failed = gate.compare([baseline], [candidate],
                                          thresholds, history)
    print(gate.format_findings(findings, only, failed,
                               everything=args.all))
    note = diff.made_by_note([baseline], [candidate])
    if note:
        print(note)
    return 1 if any(f.regressed for f in findings) else 0


def _promote(args):
    from rally_container_bench.periodic import database as periodic_db
    from rally_container_bench.periodic import history as periodic_history
    if not os.path.isfile(os.path.join(args.run_dir, "rally.json")):
        raise ValueError("%s has no rally.json: not a run of rcbench "
                         "periodic" % args.run_dir)
    database = _database(args)
    if not database:
        if not args.baseline:
            raise ValueError("give BASELINE_JSON, or --database (or "
                             "$RCBENCH_DATABASE) for the shared database")
        periodic_history.promote(args.run_dir, args.baseline, log=print)
        return 0
    with open(os.path.join(args.run_dir, "run.json")) as f:
        run = json.load(f)
    job = args.job or run.get("job") or periodic_db.job_name(
        run["task"], run.get("task_args_file"))
    store = periodic_db.Database(database, job, args.rally_config)
    try:
        print(store.open())
        periodic_history.promote(args.run_dir, args.baseline, print, store,
                                 run["rally_tasks"])
    finally:
        store.close()
    return 0


def _import(args):
    from rally_container_bench.periodic import database as periodic_db
    from rally_container_bench.periodic import job as periodic
    database = _database(args)
    if not database:
        raise ValueError("give --database (or $RCBENCH_DATABASE): where the "
                         "runs go")
    store = periodic_db.Database(database, args.job, args.rally_config)
    try:
        print(store.open())
        rally = periodic.Rally(args.rally, store.conf, store.secrets)
        options = periodic.Options(task="", results=args.results,
                                   env=args.env, local_env=True)
        periodic.ensure_env(rally, options, print)
        found = periodic_db.import_results(rally, store, args.results,
                                           args.env, print)
    finally:
        store.close()
    print("imported %d run(s) into job %s" % (found, args.job))
    return 0


def add_parsers(sub):
    p = sub.add_parser("periodic", help="the periodic job: run a task, "
                       "export, gate against a baseline, trend")
    p.add_argument("--task", required=True, help="Rally task file")
    p.add_argument("--task-args-file")
    p.add_argument("--task-args", help="task args as JSON")
    p.add_argument("--results", required=True, metavar="DIR",
                   help="where dated run directories go")
    p.add_argument("--env", default="rcbench-periodic",
                   help="Rally env to use (created if missing, from "
                        "--env-spec or --from-sysenv)")
    p.add_argument("--env-spec", metavar="FILE",
                   default=os.environ.get("RCBENCH_ENV_SPEC") or None,
                   help="rally env create --spec FILE (default: "
                        "$RCBENCH_ENV_SPEC)")
    p.add_argument("--from-sysenv", action="store_true",
                   help="rally env create --from-sysenv (OS_*, OS_CLOUD)")
    p.add_argument("--local-env", action="store_true",
                   help="an empty env: the local engines")
    p.add_argument("--baseline", metavar="JSON",
                   help="the baseline run's rally.json to gate against")
    p.add_argument("--thresholds", metavar="YAML",
                   help="per-metric thresholds (default: 10 %% for all)")
    p.add_argument("--trend", type=int, default=10, metavar="N",
                   help="trends over the last N runs (default 10); the "
                   "gate reads the host's drift between runs from those "
                   "before this one (6 or more)")
    p.add_argument("--promote", action="store_true",
                   help="make this run the baseline afterwards")
    p.add_argument("--promote-if-missing", action="store_true",
                   help="make this run the baseline if there is none")
    p.add_argument("--rally", default=_rally_next_to_us(),
                   help="the rally command")
    p.add_argument("--rally-config", metavar="FILE",
                   help="rally --config-file FILE")
    p.add_argument("--compute-hosts", metavar="FILE",
                   help="a cloud's compute hosts (the task argument "
                        "compute_hosts, YAML or JSON): each test paired on "
                        "its instance's host; default: the task args', else "
                        "the Rally env's extras (compute_hosts: FILE)")
    p.add_argument("--decide", action="store_true",
                   help="run the task through rcbench decide: rounds "
                        "until every cell has a verdict or the budget of "
                        "the args file's decide mapping ends")
    _database_args(p)
    p.set_defaults(func=_periodic)

    p = sub.add_parser("gate", help="a run against a baseline run: exit 1 "
                       "on a significant regression beyond its threshold")
    p.add_argument("baseline", metavar="BASELINE_JSON")
    p.add_argument("candidate", metavar="CANDIDATE_JSON")
    p.add_argument("--thresholds", metavar="YAML")
    p.add_argument("--all", action="store_true",
                   help="list every comparison, not only regressions")
    p.add_argument("--history", action="append", default=[],
                   metavar="RUN_JSON",
                   help="an earlier run of the job (repeated, oldest first; "
                   "the baseline may be one): given 6 or more, a threshold "
                   "is at least the host's drift between runs, measured "
                   "on them")
    p.set_defaults(func=_gate)

    p = sub.add_parser("diff", help="a run against another of the same "
                       "platforms: change, CI, test and verdict per cell")
    p.add_argument("baseline", metavar="BASELINE_JSON")
    p.add_argument("candidate", metavar="CANDIDATE_JSON")
    p.add_argument("--floor", type=float, default=0.05,
                   help="effect floor: a change within it is no change "
                        "(default 0.05, 5 %%)")
    p.add_argument("--thresholds", metavar="YAML",
                   help="per-metric floors (the gate's thresholds file) "
                        "instead of --floor")
    p.add_argument("--changes-only", action="store_true",
                   help="list only the cells that got worse or better")
    p.add_argument("--out", metavar="DIR",
                   help="also write diff.txt and diff.json there")
    p.set_defaults(func=_diff)

    p = sub.add_parser("promote", help="make a periodic run the baseline")
    p.add_argument("run_dir", metavar="RUN_DIR")
    p.add_argument("baseline", metavar="BASELINE_JSON", nargs="?",
                   help="the baseline file (with --database: also)")
    p.add_argument("--rally-config", metavar="FILE",
                   help="rally --config-file FILE")
    _database_args(p)
    p.set_defaults(func=_promote)

    p = sub.add_parser("periodic-import", help="bring a periodic job's "
                       "results directory (its runs and baseline.json) "
                       "into a shared Rally database")
    p.add_argument("results", metavar="DIR")
    p.add_argument("--job", required=True,
                   help="the job the runs are of (as rcbench periodic "
                        "--job)")
    p.add_argument("--database", metavar="URL",
                   help="Rally database connection (default: "
                        "$RCBENCH_DATABASE)")
    p.add_argument("--env", default="rcbench-periodic",
                   help="the Rally env the tasks go to (made if missing)")
    p.add_argument("--rally", default=_rally_next_to_us(),
                   help="the rally command")
    p.add_argument("--rally-config", metavar="FILE",
                   help="rally --config-file FILE (its other settings)")
    p.set_defaults(func=_import)


def _database_args(p):
    p.add_argument("--database", metavar="URL",
                   help="a Rally database every run shares (e.g. "
                        "postgresql://user:password@host/rally; default: "
                        "$RCBENCH_DATABASE): the runs, the baseline and the "
                        "trends live there, nothing on the node")
    p.add_argument("--job", metavar="NAME",
                   help="the job's name in that database (default: "
                        "$RCBENCH_JOB, else the task file's and args "
                        "file's names): jobs sharing it keep their own "
                        "runs and baseline")


def _rally_next_to_us():
    """The rally installed beside rcbench (the same virtualenv)."""
    beside = os.path.join(os.path.dirname(sys.argv[0] or ""), "rally")
    return beside if os.path.isfile(beside) else "rally"
