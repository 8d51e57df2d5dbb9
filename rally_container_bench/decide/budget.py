"""What the next round of rcbench decide may take, and what fits the budget.

Pure: reads the last round's results (Rally's JSON document) and the
comparison report built over the rounds so far.
"""

from rally_container_bench.decide import plan as planner
from rally_container_bench.report import results
from rally_container_bench.task import output_tables
from rally_container_bench.workloads import tests as tests_lib


# Contexts a task runs once per image form (the shared guest image's
# upload, each compute host's image cache warmed): in the workload of a
# form that comes first in its round, whichever cell that is.
ONCE_PER_FORM = ("rcbench_guest", "rcbench_nova_warmup", "rcbench_zun_warmup")


def form_of(workload):
    """What a workload's once-per-form contexts are paid for."""
    name, args = next(iter(workload["scenario"].items()))
    return name.split(".")[0], (args or {}).get("hypervisor_type")


def once_s(workload):
    """Seconds the workload spent setting up ONCE_PER_FORM contexts."""
    spent = 0.0
    for context in workload.get("contexts_results") or []:
        setup = context.get("setup") or {}
        plugin = (context.get("plugin_name") or "").split("@")[0]
        if plugin in ONCE_PER_FORM and setup.get("finished_at"):
            spent += setup["finished_at"] - setup["started_at"]
    return spent


def cell_costs(document, uuid, left, seconds, pairs=None):
    """What the next round of each undecided cell may take.

    Returns ({cell: seconds}, the round's overhead, {cell: (form,
    seconds the form's first workload adds)}). Each undecided cell as
    long as its workload took in round uuid, for the share of its tests
    left, and without the runs measured again beside foreign load (a
    round is planned for a quiet host: a hog gone by then would
    otherwise keep it from starting), and without its waits for quiet
    (a TCG VM beside a hog took 125 s, 42 s of them waiting, and did not
    fit in the next round's 125 s); the overhead: what the round spent
    outside its workloads. What a workload spent
    on its form's once-per-task contexts goes with the form, not the
    cell: the next round pays it again for its first cell of that form
    (on the test cloud 26-32 s of a host's warm-up and 6-12 s of an
    upload; without it a round planned to fit in 229 s took 259). A cell
    round uuid left out is as long as in the last round that ran it
    (document's tasks in round order): before, it cost nothing, and a
    TCG VM left out of round 2 was planned into 25 s of round 3 (62 s).
    The instance's own phases (phases_share) are paid whole whatever
    share of its tests is left: scaled with them, a TCG VM's boot at 1
    pair (~60 s of a 70 s workload, one of two tests left) was planned
    at 35 s, and a round planned to fit in 34 s took 73 s.
    pairs: the repeats a VM's tests get in the next round, where its
    last round gave fewer (plan.FIRST_LOOK_REPEATS): its tests' share
    scales to them.
    """
    costs, spent, forms, paid = {}, 0.0, {}, {}
    for task in document["tasks"]:
        for subtask in task["subtasks"]:
            for workload in subtask["workloads"]:
                args = next(iter(workload["scenario"].values())) or {}
                step = concurrency_of(workload)
                took = workload.get("full_duration") or 0.0
                if task.get("uuid") == uuid:
                    spent += took
                form, once = form_of(workload), once_s(workload)
                paid[form] = max(paid.get(form, 0.0), once)
                tests = args.get("tests") or []
                cell = (results.round_config(workload) or {}).get(
                    "cell") or args.get("driver")
                still = left.get((cell, step)) or []
                if tests and still:
                    phases = phases_share(workload)
                    quiet = max(0.0, took - once - waited_s(workload))
                    repeat = args.get("repeat") or 1
                    more = max(1.0, pairs / repeat) \
                        if pairs and repeat > 1 else 1.0
                    costs[(cell, step)] = quiet * (
                        phases + (1.0 - phases) * undisturbed_share(workload)
                        * len(still) / len(tests) * more)
                    forms[(cell, step)] = form
    return (costs, max(0.0, seconds - spent),
            {key: (form, paid[form]) for key, form in forms.items()})


# Atomic actions of an iteration's instance itself (phases.py): each next
# iteration pays them again, whichever tests it runs.
INSTANCE_PHASES = ("build", "network", "delete")


def phases_share(workload):
    """The share of the iterations' time spent in INSTANCE_PHASES."""
    phases = total = 0.0
    for iteration in workload.get("data", []):
        total += iteration.get("duration") or 0.0
        for action in iteration.get("atomic_actions") or []:
            if action.get("name") in INSTANCE_PHASES \
                    and action.get("finished_at"):
                phases += action["finished_at"] - action["started_at"]
    return min(1.0, phases / total) if total else 0.0


def waited_s(workload):
    """Wall seconds the workload waited for quiet, as its waves did.

    The iterations of a wave wait side by side, each recording its wait:
    their sum over the concurrency. Where only some of a wave waited (the
    others wait for them at its barrier, unrecorded) that is less than
    the wall time, which errs towards planning too much, never too little.
    """
    waited = sum(float(row.get("waited_s") or 0.0)
                 for iteration in workload.get("data", [])
                 for row in results.table_rows(iteration,
                                               output_tables.QUIET_WAIT))
    return waited / concurrency_of(workload)


def concurrency_of(workload):
    """Instances at once of a workload of Rally's JSON document."""
    return next(iter(workload["runner"].values())).get("concurrency") or 1


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


def fit_cells(left, costs, overhead, room, forms=None, first=()):
    """The undecided cells whose next round fits in room seconds.

    All of them when they fit; else the cells in first (with no answer
    at all yet: plan.unanswered), then the cheapest per test left
    (each test is a cell of the report), as many as fit; each estimate
    with ESTIMATE_SPARE to spare. forms: cell_costs' third value; a
    form's once-per-task seconds count with its first cell planned.
    """
    forms = forms or {}
    todo = {key: tests for key, tests in left.items() if tests}
    ordered = sorted(todo, key=lambda key: (
        key not in first, costs.get(key, 0.0) / len(todo[key])))
    fitting, total, paid = {}, overhead, set()
    for key in ordered:
        form, once = forms.get(key, (None, 0.0))
        cost = costs.get(key, 0.0) + (0.0 if form in paid else once)
        if (total + cost) * ESTIMATE_SPARE > room:
            continue
        total += cost
        paid.add(form)
        fitting[key] = todo[key]
    return fitting


def next_round_s(document, uuid, left, seconds):
    """Seconds the next round of every undecided cell may take."""
    costs, overhead, forms = cell_costs(document, uuid, left, seconds)
    once_per_form = dict(forms.values())
    return sum(costs.values()) + overhead + sum(once_per_form.values())


# A test is out of reach where its verdict needs more than this many
# times the pairs it could have by the run's last round: what a cell needs
# is estimated from its few pairs so far (hence the 4-fold allowance), and
# beyond it the rounds left would spend the budget on pairs that settle
# nothing, where the other cells could be settled.
OUT_OF_REACH = 4


def out_of_reach(report, left, rounds_left, pairs, keep=()):
    """{cell: [(test, pairs needed or None)]} that no round left can settle.

    Each test of left is inconclusive, and needs (the report's
    iterations_needed: power 0.8 at its estimate) more than OUT_OF_REACH
    times the pairs it has and rounds_left rounds of pairs waves would
    add; or no number of pairs can settle it (None: its estimate on the
    margin, or beyond equivalence.MAX_N). Measuring a cell no more
    spends no alpha: each look still holds at alpha / max_rounds. keep:
    cells measured whatever they need (the instrument's A/A and known
    effect).
    """
    found = {}
    for (platform, step), tests in left.items():
        if (platform, step) in keep or not tests:
            continue
        label = planner.label_of(report, platform)
        beyond = []
        for test in tests:
            needed = _needed_beyond(planner.headline_rows(
                report, label, step, test), step * pairs * rounds_left)
            if needed is not False:
                beyond.append((test, needed))
        if beyond:
            found[(platform, step)] = beyond
    return found


def _needed_beyond(rows, more):
    """The pairs the rows' test needs where out of reach, else False."""
    needs = []
    for row in rows:
        needed = row.get("iterations_needed")
        if row.get("verdict") != "inconclusive" or (
                needed is not None and needed <= OUT_OF_REACH * (
                    (row.get("pairs") or 0) + more)):
            return False
        needs.append(needed)
    if not needs:
        return False
    return None if None in needs else max(needs)


def within_reach(left, beyond):
    """left without the tests out_of_reach found."""
    out = {cell: [test for test, _ in found]
           for cell, found in beyond.items()}
    return {cell: [t for t in tests if t not in out.get(cell, [])]
            for cell, tests in left.items()}


def reach_lines(beyond):
    """"platform at N: test (needs ~P pairs)" of each test out of reach."""
    return sorted("%s at %d: %s" % (platform, step, ", ".join(
        "%s (%s)" % (tests_lib.resolve(test).label,
                     "needs ~%d pairs" % needed if needed
                     else "no number of pairs settles it")
        for test, needed in beyond[(platform, step)]))
        for platform, step in beyond)
