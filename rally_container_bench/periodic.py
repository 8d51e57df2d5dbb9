"""The periodic job: run a task, export everything, gate, trend.

    rcbench periodic --task tasks/kvm_vs_docker.yaml \
        --task-args-file tasks/args/kek2015.yaml \
        --results results/periodic --baseline results/periodic/baseline.json

One run writes <results>/<UTC stamp>/ (and points <results>/latest at it):

  rally.json        Rally's results (``rally task report --json``)
  report.html       Rally's HTML report (static: opens offline)
  junit.xml         one test case per workload, for CI dashboards
  comparison.*      every platform against native (html, csv, json, md)
  gate.txt, .json   the run against the baseline (when there is one)
  trends.html       ``rally task trends`` over the last N runs
  trends.md         the headline metrics' means over the last N runs
  run.json          what ran: task, args, env, Rally task uuid(s), exit
  decide.json       with --decide: the rounds of rcbench decide (the task
                    run until every cell has a verdict, or its budget ends)

The Rally environment: an existing one by name (--env), or one created
from a spec file (--env-spec), from OS_* / OS_CLOUD (--from-sysenv) or
empty for the local engines (--local-env), re-used by name on the next
run. Exit status: 0 all good; 1 an SLA
failed, the gate found a regression or the task was aborted (each is
said); 2 the job itself could not run (bad input, no env, the task did
not run: validation failed or it crashed, with Rally's reason).
"""

import dataclasses
import datetime
import json
import os
import re
import shutil
import subprocess

from rally_container_bench.report import gate
from rally_container_bench.report import trends

_UUID_RE = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-"
                      r"[0-9a-f]{12}")
OK, FAILED, BROKEN = 0, 1, 2
# Rally task states whose results are worth exporting and gating.
RAN = ("finished", "aborted")


class PeriodicError(ValueError):
    """The job could not run; the message says why."""


@dataclasses.dataclass
class Options:
    task: str
    results: str
    task_args_file: str | None = None
    task_args: str | None = None
    env: str = "rcbench-periodic"
    env_spec: str | None = None
    from_sysenv: bool = False
    local_env: bool = False
    baseline: str | None = None
    thresholds: str | None = None
    trend: int = 10
    promote: bool = False
    promote_if_missing: bool = False
    rally: str = "rally"
    rally_config: str | None = None
    decide: bool = False


class Rally:
    """The rally CLI, as an operator would type it."""

    def __init__(self, executable, config_file=None):
        self.argv = [executable] + (["--config-file", config_file]
                                    if config_file else [])

    def __call__(self, *args, check=True, quiet=False):
        proc = subprocess.run(self.argv + list(args), capture_output=True,
                              text=True, env=dict(os.environ, COLUMNS="200"))
        if check and proc.returncode != 0:
            # Never the env spec: rally env commands may print passwords.
            shown = "" if quiet else (proc.stdout + proc.stderr)[-3000:]
            raise PeriodicError("rally %s failed (exit %d)%s" % (
                " ".join(args[:2]), proc.returncode,
                ": " + shown if shown else " (output not shown: it may hold "
                                           "credentials)"))
        return proc


def validate(options):
    for label, path in (("task", options.task),
                        ("task args file", options.task_args_file),
                        ("env spec", options.env_spec),
                        ("thresholds file", options.thresholds)):
        if path and not os.path.isfile(path):
            raise PeriodicError("%s %s does not exist" % (label, path))
    if options.trend < 0:
        raise PeriodicError("--trend must be >= 0")
    if options.task_args:
        try:
            json.loads(options.task_args)
        except ValueError as e:
            raise PeriodicError("--task-args is not JSON: %s" % e)
    gate.Thresholds.load(options.thresholds)  # fails early on a bad file


def ensure_env(rally, options, log):
    """Use the env named options.env; create it first if asked how.

    An existing env wins; then a spec file, then the OS_* variables, then
    an empty env (the local engines need no credentials).
    """
    rally("db", "ensure")  # a fresh host has no Rally DB yet
    if rally("env", "show", options.env, check=False,
             quiet=True).returncode == 0:
        log("using Rally env %s" % options.env)
        return
    if options.env_spec:
        rally("env", "create", "--name", options.env, "--spec",
              options.env_spec, quiet=True)
    elif options.from_sysenv:
        rally("env", "create", "--name", options.env, "--from-sysenv",
              quiet=True)
    elif options.local_env:
        rally("env", "create", "--name", options.env)
    else:
        raise PeriodicError(
            "no Rally env %r: give --env-spec FILE, --from-sysenv (OS_* "
            "variables or OS_CLOUD) or --local-env, or create it with rally "
            "env create" % options.env)
    log("created Rally env %s" % options.env)


def start_task(rally, options, log):
    args = ["task", "start", options.task, "--env", options.env,
            "--tag", "rcbench-periodic"]
    if options.task_args_file:
        args += ["--task-args-file", options.task_args_file]
    if options.task_args:
        args += ["--task-args", options.task_args]
    log("rally %s" % " ".join(args))
    proc = rally(*args, check=False)
    match = _UUID_RE.search(proc.stdout + proc.stderr)
    if not match:
        raise PeriodicError("rally task start did not start a task (exit "
                            "%d): %s" % (proc.returncode, (proc.stdout
                                                           + proc.stderr)
                                         [-3000:]))
    return match.group(0), proc


def export(rally, uuid, run_dir):
    rally("task", "report", uuid, "--json", "--out",
          os.path.join(run_dir, "rally.json"))
    rally("task", "export", uuid, "--type", "html-static", "--to",
          os.path.join(run_dir, "report.html"))
    rally("task", "export", uuid, "--type", "junit-xml", "--to",
          os.path.join(run_dir, "junit.xml"))
    rally("task", "export", uuid, "--type", "rcbench-comparison", "--to",
          run_dir)


def previous_runs(results, limit):
    """Run directories with results, oldest first (the newest limit)."""
    if not os.path.isdir(results):
        return []
    found = sorted(name for name in os.listdir(results)
                   if _STAMP_RE.match(name) and os.path.isfile(
                       os.path.join(results, name, "rally.json")))
    return found[-limit:] if limit else []


_STAMP_RE = re.compile(r"^\d{8}T\d{6}Z$")


def _load(path):
    with open(path) as f:
        return json.load(f)


def gate_run(options, run_dir, log):
    """True when the gate found a regression; writes gate.txt/.json."""
    if not options.baseline:
        return False
    if not os.path.isfile(options.baseline):
        log("no baseline at %s: nothing to gate against (--promote makes "
            "this run the baseline)" % options.baseline)
        return False
    thresholds = gate.Thresholds.load(options.thresholds)
    findings, only, failed = gate.compare(
        [_load(options.baseline)], [_load(os.path.join(run_dir,
                                                       "rally.json"))],
        thresholds)
    text = gate.format_findings(findings, only, failed)
    with open(os.path.join(run_dir, "gate.txt"), "w") as f:
        f.write(gate.format_findings(findings, only, failed,
                                     everything=True) + "\n")
    with open(os.path.join(run_dir, "gate.json"), "w") as f:
        json.dump({"baseline": os.path.abspath(options.baseline),
                   "findings": [f._asdict() for f in findings],
                   "only": {k: [list(key) for key in v]
                            for k, v in only.items()}},
                  f, indent=2)
    log("gate against %s:\n%s" % (options.baseline, text))
    return any(f.regressed for f in findings)


def trend_run(rally, options, run_dir, log):
    runs = previous_runs(options.results, options.trend)
    if len(runs) < 2:
        log("trends: %d run(s) so far, nothing to draw" % len(runs))
        return
    files = [os.path.join(options.results, name, "rally.json")
             for name in runs]
    rally("task", "trends", *files, "--html-static", "--out",
          os.path.join(run_dir, "trends.html"))
    with open(os.path.join(run_dir, "trends.md"), "w") as f:
        f.write(trends.markdown([(name, _load(path))
                                 for name, path in zip(runs, files)]))
    log("trends over %d runs: %s" % (len(runs), os.path.join(
        run_dir, "trends.md")))


def promote(run_dir, baseline, log):
    os.makedirs(os.path.dirname(os.path.abspath(baseline)), exist_ok=True)
    shutil.copyfile(os.path.join(run_dir, "rally.json"), baseline)
    log("promoted %s to the baseline %s" % (run_dir, baseline))


def task_args(options):
    """The task's args: its file's, with --task-args over them."""
    import yaml

    found = {}
    if options.task_args_file:
        with open(options.task_args_file) as f:
            found = yaml.safe_load(f) or {}
    if options.task_args:
        found.update(json.loads(options.task_args))
    return found


def run_decided(rally, options, run_dir, log):
    """The task as rcbench decide runs it: (uuids, status, sla_failed).

    Rounds until every cell has a verdict or the budget of the args
    file's decide mapping ends; its files are the run's (rally.json of
    every round, comparison.*, decide.json), and Rally's HTML report and
    JUnit XML of every round beside them.
    """
    from rally_container_bench import cli_decide
    from rally_container_bench import decide

    args = task_args(options)
    settings = dict(cli_decide.DEFAULTS, **args.pop("decide", {}) or {})
    margins = cli_decide.margins_of(
        0.02, ["%s=%s" % item for item in sorted(
            (settings.get("margins") or {}).items())])
    log("rcbench decide %s: budget %s s, at most %d rounds"
        % (options.task, settings["budget_s"], settings["max_rounds"]))
    try:
        summary, _ = decide.decide(
            rally.argv, options.task, args, options.env, run_dir,
            settings["budget_s"], settings["max_rounds"],
            settings["pairs_per_round"], margins, stream=_LogStream(log))
    except decide.DecideError as e:
        return [], "not run: %s" % e, False
    uuids = summary["tasks"]
    os.replace(os.path.join(run_dir, "rally.html"),
               os.path.join(run_dir, "report.html"))
    rally("task", "export", *uuids, "--type", "junit-xml", "--to",
          os.path.join(run_dir, "junit.xml"))
    log("decided %d of %d cells in %d round(s)" % (
        summary["decided"], summary["cells"], len(summary["rounds"])))
    status = "aborted" if summary["interrupted"] else "finished"
    return uuids, status, bool(summary["sla_failed"])


class _LogStream:
    """decide's progress lines, as the job's log lines."""

    def __init__(self, log):
        self.log = log

    def write(self, text):
        for line in text.replace("\r", "\n").splitlines():
            if line.strip():
                self.log(line.rstrip())

    def flush(self):
        pass

    def isatty(self):
        return False


def run(options, log=print, now=None):
    """The whole job; returns the exit status (OK, FAILED, BROKEN)."""
    validate(options)
    rally = Rally(options.rally, options.rally_config)
    ensure_env(rally, options, log)
    stamp = (now or datetime.datetime.now(datetime.timezone.utc)) \
        .strftime("%Y%m%dT%H%M%SZ")
    run_dir = os.path.join(options.results, stamp)
    os.makedirs(run_dir)
    if options.decide:
        uuids, status, sla_failed = run_decided(rally, options, run_dir, log)
        uuid = uuids[-1] if uuids else None
        if not uuids:
            _write_run(run_dir, options, None, BROKEN, [status])
            log(status)
            return BROKEN
    else:
        uuid, status, sla_failed = _run_once(rally, options, run_dir, log)
        uuids = [uuid]
        if status not in RAN:
            return BROKEN
    regressed = gate_run(options, run_dir, log)
    trend_run(rally, options, run_dir, log)
    if options.baseline and (options.promote or (
            options.promote_if_missing
            and not os.path.isfile(options.baseline))):
        promote(run_dir, options.baseline, log)
    latest = os.path.join(options.results, "latest")
    if os.path.islink(latest):
        os.unlink(latest)
    if not os.path.exists(latest):
        os.symlink(stamp, latest)
    aborted = status != "finished"
    result = FAILED if (sla_failed or regressed or aborted) else OK
    reasons = [why for bad, why in (
        (aborted, "the task was aborted (partial results)"),
        (sla_failed, "an SLA failed"),
        (regressed, "the gate found a regression")) if bad]
    _write_run(run_dir, options, uuid, result, reasons, uuids)
    log("periodic run %s: %s (results in %s)"
        % (uuid, "; ".join(reasons) or "passed", run_dir))
    return result


def _run_once(rally, options, run_dir, log):
    """One Rally task of the job: (uuid, status, sla_failed)."""
    uuid, _ = start_task(rally, options, log)
    status = task_status(rally, uuid)
    if status not in RAN:
        # Nothing ran (validation failed, the task crashed): say why, in
        # Rally's words, and export nothing that would look like results.
        detail = rally("task", "detailed", uuid, check=False)
        reason = "the task did not run (Rally status %s)" % status
        _write_run(run_dir, options, uuid, BROKEN, [reason])
        log("%s:\n%s" % (reason, (detail.stdout + detail.stderr)
                         .strip()[-3000:]))
        return uuid, status, False
    export(rally, uuid, run_dir)
    return uuid, status, rally("task", "sla-check", uuid,
                               check=False).returncode != 0


def task_status(rally, uuid):
    """Rally's status of the task: finished, aborted, crashed, ..."""
    proc = rally("task", "status", uuid, check=False)
    match = re.search(r"%s:\s*(\w+)" % re.escape(uuid), proc.stdout)
    return match.group(1) if match else "unknown"


def _write_run(run_dir, options, uuid, result, reasons, uuids=None):
    with open(os.path.join(run_dir, "run.json"), "w") as f:
        json.dump({"task": options.task,
                   "task_args_file": options.task_args_file,
                   "task_args": options.task_args, "env": options.env,
                   "rally_task": uuid, "rally_tasks": uuids or [uuid],
                   "decide": options.decide, "status": result,
                   "reasons": reasons}, f, indent=2)
