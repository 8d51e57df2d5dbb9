"""A decided run's verdicts with and without its low runs measured again.

    python -m benchmarks.run_level_undone results/<stamp>

Where a pair was measured again only because one of its runs read far
below its side's level (validity.run_level: records with below_level,
no foreign load), its first attempt is made the final one and the later
attempts are left out: what the run would have kept with
run_level_bound = 0. Both versions are judged with the run's own
margins (decide.json), and the platforms' cpu and memory cells (the
instrument check's and the VM's left out) are counted: decided, and the
median pair SD. decide's rounds are not replayed (a cell decided sooner
would have had fewer pairs), so the comparison is indicative.

On the CI host (2026-12-07, README command 1 at 18:40, 18:56, 20:06):
16, 14 and 16 of 16 cells decided with the check against 15, 14 and 14
from the first attempts; median pair SD 2.79 / 2.88 %, 2.09 / 2.49 %,
2.17 / 2.17 %.
"""

import argparse
import collections
import copy
import json
import os
import statistics
import sys

from rally_container_bench.report import comparison
from rally_container_bench.report import results
from rally_container_bench.workloads import metrics

HEADLINES = ("sysbench.cpu.events_per_s", "sysbench.memory.read.mib_per_s")
LEFT_OUT = ("native", "native-aa", "native-slowed", "qemu-tcg")
DECIDED = ("equivalent", "worse", "better")


def first_attempts(document):
    """(a copy of document as if never measured again for a dip, pairs)."""
    undone = copy.deepcopy(document)
    changed = 0
    for task in results.tasks_of(undone):
        for subtask in task["subtasks"]:
            for workload in subtask["workloads"]:
                for iteration in workload["data"]:
                    for table in iteration.get("output", {}).get(
                            "complete", []):
                        if table.get("title") == metrics.RECORDS_TITLE:
                            changed += _undo(table["data"]["rows"])
    return undone, changed


def _undo(rows):
    facts = [json.loads(row[-1]) for row in rows]
    tests = collections.defaultdict(list)
    for index, fact in enumerate(facts):
        tests[(fact.get("test"), fact.get("repeat"))].append(index)
    changed = 0
    for indices in tests.values():
        first = [facts[i] for i in indices if facts[i].get("attempt") == 1]
        if any(f.get("final") for f in first) or any(
                f.get("disturbed") for f in first) or not any(
                "below_level" in f for f in first):
            continue
        for i in indices:
            facts[i]["final"] = facts[i].get("attempt") == 1
        changed += 1
    for row, fact in zip(rows, facts):
        row[-1] = json.dumps(fact, sort_keys=True)
    return changed


def cells(document, margins):
    """(decided, cells, median pair SD, undecided names) of the platforms."""
    report = comparison.build([document], margins=margins)
    rows = [r for r in report["rows"] if r["metric"] in HEADLINES
            and r["platform"] not in LEFT_OUT]
    undecided = ["%s at %d: %s" % (r["platform"], r["concurrency"],
                                   r["metric"].split(".")[1])
                 for r in rows if r["verdict"] not in DECIDED]
    sds = [r["pair_sd"] for r in rows if r.get("pair_sd")]
    return (len(rows) - len(undecided), len(rows),
            statistics.median(sds) if sds else None, undecided)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("run", help="a results directory of rcbench decide")
    args = p.parse_args(argv)
    with open(os.path.join(args.run, "rally.json")) as f:
        document = json.load(f)
    with open(os.path.join(args.run, "decide.json")) as f:
        margins = json.load(f)["margins"]
    undone, changed = first_attempts(document)
    print("pairs measured again for a run below its level: %d" % changed)
    for name, doc in (("with the check", document),
                      ("first attempts", undone)):
        decided, total, sd, undecided = cells(doc, margins)
        print("%-15s %d of %d cells decided, median pair SD %s%s" % (
            name, decided, total,
            "-" if sd is None else "%.2f %%" % (100 * sd),
            "; undecided: " + ", ".join(undecided) if undecided else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
