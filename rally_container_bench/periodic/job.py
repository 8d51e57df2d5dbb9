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
import subprocess

from rally_container_bench.core import provenance
from rally_container_bench.decide import rally_reads
from rally_container_bench.periodic import database as periodic_db
from rally_container_bench.periodic import decided as periodic_decide
from rally_container_bench.periodic import history
from rally_container_bench.report import gate

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
    compute_hosts: str | None = None  # a file: the task arg compute_hosts
    database: str | None = None  # a shared Rally DB (periodic_db)
    job: str | None = None


class Rally:
    """The rally CLI, as an operator would type it.

    Its reads in this process (rally_reads): a task's status and SLA, the
    exports, the reports.
    """

    def __init__(self, executable, config_file=None, secrets=()):
        self.argv = [executable] + (["--config-file", config_file]
                                    if config_file else [])
        self.secrets = [s for s in secrets if s]
        self.reads = rally_reads.RallyReads(config_file, self.hide)
        self.status = self.reads.status
        self.sla_passed = self.reads.sla_passed
        self.export = self.reads.export
        self.report = self.reads.report

    def __call__(self, *args, check=True, quiet=False):
        proc = subprocess.run(self.argv + list(args), capture_output=True,
                              text=True, env=dict(os.environ, COLUMNS="200"))
        if check and proc.returncode != 0:
            # Never the env spec: rally env commands may print passwords.
            shown = "" if quiet else self.hide(
                (proc.stdout + proc.stderr)[-3000:])
            raise PeriodicError("rally %s failed (exit %d)%s" % (
                " ".join(args[:2]), proc.returncode,
                ": " + shown if shown else " (output not shown: it may hold "
                                           "credentials)"))
        return proc

    def hide(self, text):
        """text without the secrets Rally was given (a DB password)."""
        return periodic_db.hide(text, self.secrets)


def validate(options):
    for label, path in (("task", options.task),
                        ("task args file", options.task_args_file),
                        ("compute hosts file", options.compute_hosts),
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
    try:
        _create_env(rally, options)
    except PeriodicError:
        # another run of a job on this database made it at the same time
        if rally("env", "show", options.env, check=False,
                 quiet=True).returncode != 0:
            raise
        log("using Rally env %s (made by another run at the same time)"
            % options.env)
        return
    log("created Rally env %s" % options.env)


def _create_env(rally, options):
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


def start_task(rally, options, log, tags=("rcbench-periodic",)):
    args = ["task", "start", options.task, "--env", options.env]
    for tag in tags:
        args += ["--tag", tag]
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


def _add_compute_hosts(rally, options, log):
    """options.task_args with --compute-hosts' or the env's, if found.

    A plain run is not refused without them (its report names the cells
    it cannot compare, and the gate does not judge them).
    """
    from rally_container_bench.decide import settings as decide_settings
    given = decide_settings.read_task_args(
        options.task_args_file, options.task_args)
    found, where = decide_settings.with_compute_hosts(
        given, options.compute_hosts, options.env, rally.reads,
        refuse=False)
    if where and found is not given:
        options.task_args = json.dumps(dict(
            json.loads(options.task_args or "{}"),
            compute_hosts=found["compute_hosts"]))
        log("compute hosts from %s" % where)


def export(rally, uuid, run_dir):
    """The task's four exports."""
    for output_type, destination in (
            ("json", os.path.join(run_dir, "rally.json")),
            ("html-static", os.path.join(run_dir, "report.html")),
            ("junit-xml", os.path.join(run_dir, "junit.xml")),
            ("rcbench-comparison", run_dir)):
        rally.export([uuid], output_type, destination)


def open_store(options, log):
    """The shared database of --database (periodic_db), or None."""
    if not options.database:
        return None
    store = periodic_db.Database(
        options.database, options.job or periodic_db.job_name(
            options.task, options.task_args_file), options.rally_config)
    try:
        log(store.open())
    except periodic_db.DatabaseError:
        store.close()
        raise
    return store


def run(options, log=print, now=None):
    """The whole job; returns the exit status (OK, FAILED, BROKEN)."""
    validate(options)
    store = open_store(options, log)
    try:
        return _run(options, log, now, store)
    finally:
        if store is not None:
            store.close()


def _run(options, log, now, store):
    rally = Rally(options.rally, store.conf if store else
                  options.rally_config, store.secrets if store else ())
    ensure_env(rally, options, log)
    stamp = (now or datetime.datetime.now(datetime.timezone.utc)) \
        .strftime("%Y%m%dT%H%M%SZ")
    run_dir = os.path.join(options.results, stamp)
    os.makedirs(run_dir)
    tags = (store.run_tags(periodic_db.new_run_id(stamp)) if store
            else ["rcbench-periodic"])
    if options.decide:
        uuids, status, sla_failed = periodic_decide.run_decided(
            rally, options, run_dir, log, tags)
        uuid = uuids[-1] if uuids else None
        if not uuids:
            _write_run(run_dir, options, None, BROKEN, [status])
            log(status)
            return BROKEN
    else:
        _add_compute_hosts(rally, options, log)
        uuid, status, sla_failed = _run_once(rally, options, run_dir, log,
                                             tags)
        uuids = [uuid]
        if status not in RAN:
            return BROKEN
    baseline, where = history.baseline_of(rally, options, store, run_dir,
                                          log)
    runs = history.load_runs(rally, options, store)
    regressed = history.gate_run(options, run_dir, log, baseline, where,
                                 history.earlier(runs, run_dir, uuids))
    history.trend_run(rally, run_dir, log, runs)
    missing = (not store.baseline()) if store else (
        options.baseline and not os.path.isfile(options.baseline))
    if (store or options.baseline) and (
            options.promote or (options.promote_if_missing and missing)):
        history.promote(run_dir, options.baseline, log, store, uuids)
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


def _run_once(rally, options, run_dir, log, tags):
    """One Rally task of the job: (uuid, status, sla_failed)."""
    uuid, _ = start_task(rally, options, log, tags)
    status = rally.status(uuid)
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
    return uuid, status, not rally.sla_passed(uuid)


def _write_run(run_dir, options, uuid, result, reasons, uuids=None):
    with open(os.path.join(run_dir, "run.json"), "w") as f:
        json.dump({"task": options.task,
                   "task_args_file": options.task_args_file,
                   "task_args": options.task_args, "env": options.env,
                   "rally_task": uuid, "rally_tasks": uuids or [uuid],
                   "decide": options.decide, "status": result,
                   "database": periodic_db.mask(options.database) or None,
                   "job": options.job, "reasons": reasons,
                   "made_by": dict(provenance.facts())}, f, indent=2)
