"""What the next round of rcbench decide may take, and what fits the budget.

Pure: reads the last round's results (Rally's JSON document).
"""

from rally_container_bench import output_tables
from rally_container_bench.report import results


def cell_costs(document, uuid, left, seconds):
    """({cell: seconds its next round may take}, the round's overhead).

    Each undecided cell as long as its workload took in round uuid, for
    the share of its tests left, and without the runs measured again
    beside foreign load (a round is planned for a quiet host: a hog
    gone by then would otherwise keep it from starting); the overhead:
    what the round spent outside its workloads.
    """
    costs, spent = {}, 0.0
    for task in document["tasks"]:
        if task.get("uuid") != uuid:
            continue
        for subtask in task["subtasks"]:
            for workload in subtask["workloads"]:
                args = next(iter(workload["scenario"].values())) or {}
                step = next(iter(workload["runner"].values()))[
                    "concurrency"]
                took = workload.get("full_duration") or 0.0
                spent += took
                tests = args.get("tests") or []
                cell = (results.round_config(workload) or {}).get(
                    "cell") or args.get("driver")
                still = left.get((cell, step)) or []
                if tests and still:
                    costs[(cell, step)] = (took * undisturbed_share(workload)
                                           * len(still) / len(tests))
    return costs, max(0.0, seconds - spent)


def undisturbed_share(workload):
    """The share of a workload's test runs that were not re-measures."""
    runs = again = 0
    for iteration in workload.get("data", []):
        for row in results.table_rows(iteration, output_tables.VALIDITY):
            runs += 1
            again += row.get("verdicts") == "re-measured"
    return 1.0 - again / runs if runs else 1.0


# A round takes longer than the last one's figures say: boots, waits for a
# wave and reports vary (a round planned to fit took 1334 s of a 1200 s
# budget on the test cloud). Planned with this much to spare.
ESTIMATE_SPARE = 1.15


def fit_cells(left, costs, overhead, room):
    """The undecided cells whose next round fits in room seconds.

    All of them when they fit; else the cheapest first, as many as fit;
    each estimate with ESTIMATE_SPARE to spare.
    """
    todo = {key: tests for key, tests in left.items() if tests}
    ordered = sorted(todo, key=lambda key: costs.get(key, 0.0))
    fitting, total = {}, overhead
    for key in ordered:
        if (total + costs.get(key, 0.0)) * ESTIMATE_SPARE > room:
            continue
        total += costs.get(key, 0.0)
        fitting[key] = todo[key]
    return fitting


def next_round_s(document, uuid, left, seconds):
    """Seconds the next round of every undecided cell may take."""
    costs, overhead = cell_costs(document, uuid, left, seconds)
    return sum(costs.values()) + overhead
