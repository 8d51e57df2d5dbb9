"""Do two runs' decided cells agree? (a hog run against a quiet one)

    python -m benchmarks.verdict_agreement RESULTS_A RESULTS_B

Each RESULTS is an ``rcbench decide --out`` directory (its
comparison.json). For every cell (platform, concurrency, headline
metric: the one rcbench decide decides on) that both runs decided,
prints the two verdicts with their change and 95 % CI, and marks

- CONTRADICTS: the verdicts differ and no true difference makes both
  hold, i.e. the two CIs are disjoint. "Equivalent within +-4 %"
  [-3.2, +0.7] and "worse by 3.4 %" [-6.0, -0.7] at a margin of
  +-3.5 % both hold for a true -2 %: the label changed with the margin
  each run chose, the answers do not contradict;
- label changed: decided both times, under different verdicts whose
  CIs overlap (shown, not counted);
- size moved: the same verdict, CIs apart (shown, not counted).

Exit status 1 when any cell contradicts. Pure reading: no Rally.
"""

import argparse
import json
import os
import sys

from rally_container_bench.decide.plan import DECIDED


def decided_cells(document):
    """{(platform, concurrency, metric): row} of the decided headlines."""
    headline = {m["name"] for m in document["metrics"] if m["headline"]}
    return {(r["platform"], r["concurrency"], r["metric"]): r
            for r in document["rows"]
            if r.get("verdict") in DECIDED and r["platform"] != "native"
            and r["metric"] in headline}


def apart(a, b):
    """Whether rows a's and b's CIs of the change have no value in common.

    The change's CI is the one the verdict reads (paired where the cell
    was), not ratio_to_native's.
    """
    return (a["change_ci_high"] < b["change_ci_low"]
            or b["change_ci_high"] < a["change_ci_low"])


def compare(document_a, document_b):
    """[(cell, row_a, row_b, mark)] of the cells both runs decided."""
    a, b = decided_cells(document_a), decided_cells(document_b)
    out = []
    for cell in sorted(set(a) & set(b)):
        same = a[cell]["verdict"] == b[cell]["verdict"]
        if apart(a[cell], b[cell]):
            mark = "size moved" if same else "CONTRADICTS"
        else:
            mark = "" if same else "label changed"
        out.append((cell, a[cell], b[cell], mark))
    return out


def _said(row):
    return "%s %+.1f %% [%+.1f, %+.1f] at +-%.1f %%" % (
        row["verdict"], 100 * row["change"], 100 * row["change_ci_low"],
        100 * row["change_ci_high"], 100 * row["margin"])


def _load(directory):
    with open(os.path.join(directory, "comparison.json")) as f:
        return json.load(f)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("results_a")
    parser.add_argument("results_b")
    args = parser.parse_args(argv)
    rows = compare(_load(args.results_a), _load(args.results_b))
    for (platform, concurrency, metric), a, b, mark in rows:
        print("%-14s %2d %-34s | %-44s | %-44s %s" % (
            platform, concurrency, metric, _said(a), _said(b), mark))
    bad = sum(mark == "CONTRADICTS" for *_, mark in rows)
    changed = sum(mark == "label changed" for *_, mark in rows)
    moved = sum(mark == "size moved" for *_, mark in rows)
    print("cells decided in both: %d, contradictions: %d, labels changed "
          "(overlapping CIs): %d, sizes moved (same verdict): %d"
          % (len(rows), bad, changed, moved))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
