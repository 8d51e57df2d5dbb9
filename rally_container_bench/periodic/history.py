"""The periodic job's history: the baseline it gates against, the runs it
draws trends over, promotion. In the results directory's files, or in a
shared Rally database (periodic_db: ``store``).
"""

import json
import os
import re
import shutil
import tempfile

from rally_container_bench.report import diff
from rally_container_bench.report import gate
from rally_container_bench.report import trends


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


def baseline_of(rally, options, store, run_dir, log):
    """(the baseline's document, where it is), or (None, None)."""
    if store is not None:
        uuids = store.baseline()
        if not uuids:
            log("no baseline of job %s in the database: nothing to gate "
                "against (--promote makes this run the baseline)"
                % store.job)
            return None, None
        return (store.document(rally, uuids, os.path.join(
            run_dir, "baseline.json")),
            "the baseline of job %s (Rally tasks %s)"
            % (store.job, ", ".join(uuids)))
    if not options.baseline:
        return None, None
    if not os.path.isfile(options.baseline):
        log("no baseline at %s: nothing to gate against (--promote makes "
            "this run the baseline)" % options.baseline)
        return None, None
    return _load(options.baseline), os.path.abspath(options.baseline)


def gate_run(options, run_dir, log, baseline, where, earlier=()):
    """True when the gate found a regression; writes gate.txt/.json.

    earlier: the documents of the job's runs before this one, oldest
    first: the host's drift between them raises a threshold
    (report.drift).
    """
    if baseline is None:
        return False
    thresholds = gate.Thresholds.load(options.thresholds)
    candidate = _load(os.path.join(run_dir, "rally.json"))
    findings, only, failed = gate.compare(
        [baseline], [candidate], thresholds, [[doc] for doc in earlier])
    note = diff.made_by_note([baseline], [candidate])
    text = gate.format_findings(findings, only, failed) + (
        "\n" + note if note else "")
    with open(os.path.join(run_dir, "gate.txt"), "w") as f:
        f.write(gate.format_findings(findings, only, failed,
                                     everything=True)
                + ("\n" + note if note else "") + "\n")
    with open(os.path.join(run_dir, "gate.json"), "w") as f:
        json.dump({"baseline": where,
                   "findings": [f._asdict() for f in findings],
                   "only": {k: [list(key) for key in v]
                            for k, v in only.items()},
                   "made_by_changes": diff.made_by_changes([baseline],
                                                           [candidate]),
                   "earlier_runs": len(earlier)},
                  f, indent=2)
    drifted = sum(f.drift is not None for f in findings)
    if drifted:
        text += ("\n%d threshold(s) raised to the host's drift between "
                 "the %d earlier runs (gate.txt lists them)"
                 % (drifted, len(earlier)))
    log("gate against %s:\n%s" % (where, text))
    return any(f.regressed for f in findings)


def recent_runs(options, store):
    """[(label, source)] of the last runs, oldest first.

    source: the run's Rally tasks (the job's runs in the database), or
    its rally.json (the results directory's).
    """
    if store is not None:
        runs = store.runs()
        return [(stamp, runs[stamp]) for stamp in sorted(runs)][
            -options.trend:] if options.trend else []
    return [(name, os.path.join(options.results, name, "rally.json"))
            for name in previous_runs(options.results, options.trend)]


def load_runs(rally, options, store=None):
    """[(label, document, sources)] of the last runs, this one too.

    sources: the run's Rally tasks (the database's), or its rally.json.
    """
    found = []
    scratch = tempfile.mkdtemp(prefix="rcbench-trends-")
    try:
        for label, source in recent_runs(options, store):
            if isinstance(source, list):  # the run's Rally tasks
                found.append((label, store.document(
                    rally, source, os.path.join(scratch, label + ".json")),
                    source))
            else:
                found.append((label, _load(source), [source]))
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return found


def earlier(runs, run_dir, uuids):
    """The documents of runs (load_runs) made before this run.

    Oldest first; not its directory, nor its Rally tasks.
    """
    this = os.path.basename(os.path.normpath(run_dir))
    return [document for label, document, sources in runs
            if label != this and not set(sources) & set(uuids or ())]


def trend_run(rally, run_dir, log, runs):
    """trends.html and trends.md over runs (load_runs)."""
    if len(runs) < 2:
        log("trends: %d run(s) so far, nothing to draw" % len(runs))
        return
    documents = [(label, document) for label, document, _ in runs]
    rally.export([source for _, _, sources in runs for source in sources],
                 "trends-html-static", os.path.join(run_dir, "trends.html"))
    with open(os.path.join(run_dir, "trends.md"), "w") as f:
        f.write(trends.markdown(documents))
    log("trends over %d runs: %s" % (len(runs), os.path.join(
        run_dir, "trends.md")))


def promote(run_dir, baseline, log, store=None, uuids=None):
    """Make the run the baseline: its tasks in the database, its file."""
    if store is not None:
        store.promote(uuids)
        log("promoted the run's Rally tasks (%s) to the baseline of job %s"
            % (", ".join(uuids), store.job))
    if baseline:
        os.makedirs(os.path.dirname(os.path.abspath(baseline)),
                    exist_ok=True)
        shutil.copyfile(os.path.join(run_dir, "rally.json"), baseline)
        log("promoted %s to the baseline %s" % (run_dir, baseline))
