"""The instrument check: what this harness can tell apart on this host.

Two cells of every decided run measure the instrument itself
(task/scenarios/instrument.py): native-aa, native against its own twin
through the path every instance's test takes, whose true effect is zero;
and native-slowed, native with a known share of its CPU time withheld.
Per test kind the check gives

- the A/A's pair SD: the host's noise floor through this harness;
- the platforms' pair SD beside it, and the platforms well above it
  ("noisier than native on this host": their own noise, not the host's);
- the A/A's verdict at each step: "equivalent", or a false decision, a
  warning the reader must act on;
- the known effect recovered, with its CI, and whether it was detected
  ("worse", the CI covering the injected amount).

Pure: reads the comparison's rows.
"""

import statistics

from rally_container_bench.engines.native import instance as native
from rally_container_bench.engines.native import known_effect

AA, SLOWED = native.AA, native.SLOWED
PLATFORMS = (AA, SLOWED)
is_aa = native.is_aa
# The kinds a CPU neighbour slows by its share (I/O waits are not).
CPU_BOUND = ("cpu", "memory")
# A platform whose pairs spread this many times the A/A's is named.
NOISIER = 2.0


def expected_change(withheld, higher_is_better):
    """The change a CPU-bound metric shows with withheld of its CPU."""
    if higher_is_better:
        return -withheld
    return 1 / (1 - withheld) - 1


def check(rows, metrics, kind_of, environments):
    """{"kinds": [...]}: the check per kind of headline metric, or None.

    environments: {platform label: environment}; native-slowed's says
    how much was withheld (known_withheld).
    """
    headline = {m["name"] for m in metrics if m["headline"]}
    ours = [r for r in rows if r["metric"] in headline
            and is_aa(r["platform"])]
    if not ours:
        return None
    withheld = _withheld(environments.get(SLOWED) or {})
    kinds = []
    for metric in sorted({r["metric"] for r in ours}):
        of_metric = [r for r in rows if r["metric"] == metric]
        # a local run's one A/A; a cloud's, one per kind of compute host
        aa = sorted((r for r in of_metric if is_aa(r["platform"])),
                    key=lambda r: (r["concurrency"], r["platform"]))
        floor = _median([r["pair_sd"] for r in aa])
        others = [r for r in of_metric if r["platform"] not in PLATFORMS
                  and not is_aa(r["platform"]) and r["pair_sd"] is not None]
        noisier = sorted({
            "%s at %s" % (r["platform"], r["concurrency"]) for r in others
            if _aa_sd(aa, r["concurrency"]) and r["pair_sd"]
            > NOISIER * _aa_sd(aa, r["concurrency"])})
        kinds.append({
            "kind": kind_of(metric), "metric": metric,
            "aa_pair_sd": floor,
            "platforms_pair_sd": _median([r["pair_sd"] for r in others]),
            "aa": [_verdict(r) for r in aa],
            "false_decisions": [r["concurrency"] for r in aa
                                if r["verdict"] in ("worse", "better")],
            "known": [_known(r, withheld) for r in of_metric
                      if r["platform"] == SLOWED
                      and kind_of(metric) in CPU_BOUND],
            "noisier": noisier})
    return {"kinds": kinds, "withheld": withheld}


def device_floors(found):
    """{kind: the A/A's pair SD} of the kinds a CPU neighbour leaves be.

    fileio: its floor is the disk's, measured by the A/A.
    """
    return {k["kind"]: k["aa_pair_sd"] for k in (found or {}).get("kinds", [])
            if k["kind"] not in CPU_BOUND and k["aa_pair_sd"] is not None}


def _withheld(environment):
    try:
        return float(environment.get("known_withheld"))
    except (TypeError, ValueError):
        return None


def _median(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def _aa_sd(aa, step):
    """The A/A's pair SD at step (a cloud's: the median of its kinds)."""
    return _median([row["pair_sd"] for row in aa
                    if row["concurrency"] == step])


def _where(row):
    """" on qemu hosts" of a cloud's A/A (a local one is on this host)."""
    platform = row.get("platform") or AA
    if not platform.startswith(native.AA_ON):
        return ""
    return " on %s hosts" % platform[len(native.AA_ON):]


def _verdict(row):
    return {"platform": row["platform"],
            "concurrency": row["concurrency"], "verdict": row["verdict"],
            "change": row["change"], "ci_low": row["change_ci_low"],
            "ci_high": row["change_ci_high"], "pairs": row["pairs"]}


def covers(low, high, injected, within=known_effect.KNOWN_WITHIN):
    """Whether a CI holds an effect known to within +-within."""
    return low - within <= injected <= high + within


def _known(row, withheld):
    found = _verdict(row)
    injected = None if withheld is None else expected_change(
        withheld, row["higher_is_better"])
    covered = injected is not None and row["change_ci_low"] is not None \
        and covers(row["change_ci_low"], row["change_ci_high"], injected)
    expected = "worse"
    found.update(injected=injected, covered=covered,
                 detected=row["verdict"] == expected and covered,
                 bias=None if injected is None or row["change"] is None
                 else row["change"] - injected)
    return found


def warnings(found):
    """What the reader must act on.

    A false A/A decision; a known effect whose CI misses its true size.
    """
    said = []
    for kind in (found or {}).get("kinds", []):
        for row in kind["aa"]:
            if row["verdict"] not in ("worse", "better"):
                continue
            said.append(
                "instrument check: the A/A cell (native against its own "
                "twin%s) read %s %s at concurrency %s, %+.1f %%: a false "
                "decision of this harness on this host; a verdict of that "
                "size elsewhere in this run may be one too (measure again, "
                "or widen the margin)" % (
                    _where(row), kind["metric"], row["verdict"],
                    row["concurrency"], 100 * row["change"]))
        for known in kind["known"]:
            if known["injected"] is None or known["ci_low"] is None:
                continue
            if not known["covered"]:
                said.append(
                    "instrument check: the known effect on %s (%+.1f %% "
                    "injected) was measured at %+.1f %% [%+.1f, %+.1f] at "
                    "concurrency %s: its CI misses the true size (known "
                    "within +-%g %%), so this run's intervals may too" % (
                        kind["metric"], 100 * known["injected"],
                        100 * known["change"], 100 * known["ci_low"],
                        100 * known["ci_high"], known["concurrency"],
                        100 * known_effect.KNOWN_WITHIN))
    return said


def lines(found):
    """Plain lines of the check, one per kind (report's .md and .html)."""
    out = []
    for kind in (found or {}).get("kinds", []):
        aa = ", ".join("%s at %s%s" % (r["verdict"] or "no verdict yet",
                                       r["concurrency"], _where(r))
                       for r in kind["aa"])
        known = "; ".join(_known_text(k) for k in kind["known"]) \
            or ("not run" if kind["kind"] in CPU_BOUND else
                "none: a CPU neighbour's effect on %s is not known; the "
                "disk floor is the A/A's pair SD, measured" % kind["kind"])
        noisier = ("; noisier than native on this host: %s"
                   % ", ".join(kind["noisier"])) if kind["noisier"] else ""
        out.append({
            "metric": kind["metric"],
            "floor": _percent(kind["aa_pair_sd"]),
            "platforms": _percent(kind["platforms_pair_sd"]),
            "aa": aa, "known": known + noisier})
    return out


def summary_line(found):
    """One line: each kind's A/A verdicts and the known effect found."""
    parts = []
    for kind in (found or {}).get("kinds", []):
        aa = "/".join(r["verdict"] or "undecided" for r in kind["aa"])
        known = ", ".join("%+.1f %% %s" % (100 * k["change"], "detected"
                                           if k["detected"] else "missed")
                          for k in kind["known"] if k["change"] is not None)
        parts.append("%s A/A %s%s" % (kind["kind"], aa,
                                      ", known effect " + known
                                      if known else ""))
    return "; ".join(parts) or "no pairs"


def about(found):
    """What the check's cells were: the A/A, and the known effect if run."""
    withheld = found["withheld"]
    said = ("Native against its own twin (A/A, true effect zero) through "
            "the path of every other cell")
    if withheld is None:
        return said + "; no known-effect cell in this run"
    return said + ", and native with %.2f %% of its CPU time withheld " \
        "(the known effect)" % (100 * withheld)


def markdown(found):
    """The check's section of comparison.md ([] without the cells)."""
    rows = lines(found)
    if not rows:
        return []
    return ["## Instrument check", "", about(found) + ".", "",
            "| test | A/A pair SD (the floor) | platforms' pair SD | A/A "
            "verdict | known effect |", "|---|---|---|---|---|"] + [
        "| %(metric)s | %(floor)s | %(platforms)s | %(aa)s | %(known)s |"
        % row for row in rows] + [""]


def _known_text(known):
    if known["change"] is None:
        return "no verdict yet at %s" % known["concurrency"]
    text = "%+.1f %% [%+.1f, %+.1f]" % (
        100 * known["change"], 100 * known["ci_low"],
        100 * known["ci_high"])
    if known["injected"] is not None:
        text = "%+.1f %% injected, %s recovered, %s" % (
            100 * known["injected"], text,
            "detected" if known["detected"] else
            "CI misses it" if not known["covered"] else
            "not decided")
    return text


def _percent(value):
    return "–" if value is None else "%.2f %%" % (100 * value)
