"""The regression gate: a run against a stored baseline run.

Both are exported Rally results ({"tasks": [...]}, what ``rally task
report --json`` writes). It is ``rcbench diff`` (report.diff) with a
floor per metric: a metric *regresses* when it is worse than the
baseline by more than its threshold AND the difference is significant
(permutation test, p < 0.05): noise within the threshold, or a large but
unproven change (too few iterations), does not fail the gate; the report
says which it was. A platform paired with native twins in both runs is
judged by its cost against them (report.diff), native by its level.
Given the job's earlier runs, a cell's threshold is at least the host's
drift between runs, measured on them (report.drift): what moves the
host between two nights is not a regression of what was upgraded. The
instrument check's cells (native against its own twin, and native with
a known share of its CPU withheld) are shown, never gated: the known
effect is the harness's own, and the A/A moving is the host's noise.

Thresholds come from a small YAML file (etc/periodic/thresholds.yaml):

    default: 0.10            # 10 % worse
    metrics:                 # fnmatch patterns, the first match wins
      "build": 0.25
      "sysbench.cpu.*": 0.05
    ignore: ["sysbench.*.latency_max_ms"]
"""

import collections
import fnmatch

import yaml

from rally_container_bench.report import diff
from rally_container_bench.report import drift as drift_lib
from rally_container_bench.report import instrument

DEFAULT_THRESHOLD = 0.10
# A finding of a platform's cost against its native twins (report.diff)
PAIRED = "against its twins"
NOT_GATED = "the instrument check: shown, not gated"

# drift: the threshold came from the host's drift between the earlier
# runs ({"floor", "sd", "runs"}), else None
Finding = collections.namedtuple(
    "Finding", "metric unit platform concurrency baseline_mean "
               "candidate_mean change ci_low ci_high p_value threshold "
               "regressed verdict note drift", defaults=(None,))


class GateError(ValueError):
    """The thresholds file or the runs cannot be used; says why."""


class Thresholds:
    def __init__(self, default=DEFAULT_THRESHOLD, metrics=(), ignore=()):
        self.default = default
        self.metrics = list(metrics)  # [(pattern, threshold)]
        self.ignore = list(ignore)

    @classmethod
    def load(cls, path):
        if path is None:
            return cls()
        try:
            with open(path) as f:
                data = yaml.safe_load(f) or {}
        except (OSError, yaml.YAMLError) as e:
            raise GateError("thresholds file %s: %s" % (path, e))
        return cls.from_dict(data, path)

    @classmethod
    def from_dict(cls, data, where="thresholds"):
        if not isinstance(data, dict):
            raise GateError("%s: expected a mapping" % where)
        unknown = set(data) - {"default", "metrics", "ignore"}
        if unknown:
            raise GateError("%s: unknown keys %s (allowed: default, metrics,"
                            " ignore)" % (where, ", ".join(sorted(unknown))))
        default = _fraction(data.get("default", DEFAULT_THRESHOLD),
                            "%s: default" % where)
        metrics = data.get("metrics") or {}
        if not isinstance(metrics, dict):
            raise GateError("%s: metrics must map patterns to fractions"
                            % where)
        ignore = data.get("ignore") or []
        if not isinstance(ignore, list):
            raise GateError("%s: ignore must be a list of patterns" % where)
        return cls(default, [(str(p), _fraction(v, "%s: %s" % (where, p)))
                             for p, v in metrics.items()],
                   [str(p) for p in ignore])

    def ignored(self, metric):
        return any(fnmatch.fnmatchcase(metric, p) for p in self.ignore)

    def of(self, metric):
        for pattern, threshold in self.metrics:
            if fnmatch.fnmatchcase(metric, pattern):
                return threshold
        return self.default


def _fraction(value, where):
    if isinstance(value, bool) or not isinstance(value, (int, float)) \
            or not 0 <= value < 10:
        raise GateError("%s must be a fraction such as 0.1 (10 %%), not %r"
                        % (where, value))
    return float(value)


def compare(baseline_docs, candidate_docs, thresholds, history=()):
    """(findings, keys only one run has, candidate's failed iterations).

    A finding per (metric, platform, concurrency) in both runs,
    regressions first. history: the job's earlier runs (each a list of
    documents, oldest first), whose drift raises a threshold.
    """
    changes, only, failed = diff.compare(
        baseline_docs, candidate_docs, floor_of=thresholds.of,
        ignored=thresholds.ignored, drift_of=drift_of(history))
    findings = [_finding(c) for c in changes]
    findings.sort(key=lambda f: (not f.regressed, f.metric, f.platform,
                                 f.concurrency))
    return findings, only, failed


def drift_of(history):
    """{(kind, key): report.drift.Drift} of earlier runs' documents."""
    return drift_lib.floors([drift_lib.run_means(*diff.gated_values(docs))
                             for docs in history])


def _finding(c):
    # Signed so that > 0 is worse, whatever the metric's direction.
    sign = -1 if c.higher_is_better else 1
    change = low = high = None
    if c.ratio is not None:
        change = sign * (c.ratio - 1)
        low, high = sorted(sign * (bound - 1)
                           for bound in (c.ci_low, c.ci_high))
    note = None
    gated = c.platform not in instrument.PLATFORMS
    if c.verdict == "not tested":
        note = c.note
    elif not gated:
        note = NOT_GATED
    elif c.against_twins:
        note = PAIRED
    return Finding(c.metric, c.unit, c.platform, c.concurrency,
                   c.baseline_mean, c.candidate_mean, change, low, high,
                   c.p_value, c.floor, gated and c.verdict == "worse",
                   c.verdict, note,
                   c.drift._asdict() if c.drift is not None else None)


def format_findings(findings, only, failed, everything=False):
    """The gate's report as text: regressions, then (optionally) the rest."""
    lines = []
    regressions = [f for f in findings if f.regressed]
    shown = findings if everything else regressions
    if shown:
        lines.append("%-38s %-16s %4s %12s %12s %9s %19s %7s %6s  %s"
                     % ("metric", "platform", "conc", "baseline",
                        "candidate", "worse by", "95% CI", "p", "limit",
                        "result"))
    for f in shown:
        lines.append("%-38s %-16s %4s %12s %12s %9s %19s %7s %6s  %s" % (
            f.metric[:38], f.platform[:16], f.concurrency,
            _num(f.baseline_mean), _num(f.candidate_mean), _pct(f.change),
            "[%s, %s]" % (_pct(f.ci_low), _pct(f.ci_high))
            if f.ci_low is not None else "-",
            "%.3f" % f.p_value if f.p_value is not None else "-",
            _pct(f.threshold), _result(f)))
    for side, keys in sorted(only.items()):
        if keys:
            lines.append("only in the %s run: %s" % (side, ", ".join(
                "%s/%s@%s" % key for key in keys[:10])
                + (" ... (%d)" % len(keys) if len(keys) > 10 else "")))
    for (platform, concurrency), n in sorted(failed.items()):
        lines.append("candidate: %d failed iteration(s) of %s at "
                     "concurrency %s (left out of every statistic)"
                     % (n, platform, concurrency))
    lines.append("%d regression(s) in %d comparison(s)"
                 % (len(regressions), len(findings)))
    return "\n".join(lines)


def _result(finding):
    said = "REGRESSION" if finding.regressed else finding.verdict
    if finding.drift is not None:
        said += " (limit: the host's drift, from %d runs)" % (
            finding.drift["runs"])
    if finding.note in (PAIRED, NOT_GATED):
        return "%s (%s)" % (said, finding.note)
    if finding.note:
        return "not tested: " + finding.note
    return said


def _num(value):
    return "-" if value is None else "%.4g" % value


def _pct(value):
    return "-" if value is None else "%+.1f%%" % (100 * value)
