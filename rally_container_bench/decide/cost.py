"""What a decided run cost: where its wall time went, per decided cell.

From the rounds' own seconds and Rally's report of their tasks:

- Rally's own: a round's seconds outside its workloads (starting Rally,
  loading its plugins, validating the task, writing its results);
- contexts: a workload's full duration outside its load (guest images
  uploaded, caches warmed, users and flavors made and removed);
- the load, split by the time its iterations spent in each kind of
  atomic action: boots (build and network), tests (every other timed
  action: the sysbench runs inside), deletes, and the rest of an
  iteration (its native twins, waits for a quiet host, reading loads).

An iteration's shares weigh its workload's load duration, so a step of
N at once counts its wall time once. Pure.
"""

BOOT = ("build", "network")
DELETE = ("delete",)
KINDS = ("rally", "contexts", "boots", "tests", "deletes",
         "twins_and_waits")
SAID = {"rally": "Rally's own start and results", "contexts":
        "contexts (images, warm-ups, users)", "boots": "boots",
        "tests": "tests", "deletes": "deletes", "twins_and_waits":
        "native twins, waits for quiet and the rest"}


def _seconds(action):
    return max(0.0, action["finished_at"] - action["started_at"])


def iteration_split(iteration):
    """{kind: seconds} of one iteration's duration."""
    found = dict.fromkeys(("boots", "tests", "deletes"), 0.0)
    for action in iteration.get("atomic_actions", []):
        if action["name"] in BOOT:
            found["boots"] += _seconds(action)
        elif action["name"] in DELETE:
            found["deletes"] += _seconds(action)
        else:
            found["tests"] += _seconds(action)
    found["twins_and_waits"] = max(0.0, iteration.get("duration", 0.0)
                                   - sum(found.values()))
    return found


def task_split(task, seconds):
    """{kind: wall seconds} of one round (its task took seconds)."""
    found = dict.fromkeys(KINDS, 0.0)
    for subtask in task.get("subtasks", []):
        for workload in subtask.get("workloads", []):
            full = workload.get("full_duration") or 0.0
            load = workload.get("load_duration") or 0.0
            found["contexts"] += max(0.0, full - load)
            parts = dict.fromkeys(("boots", "tests", "deletes",
                                   "twins_and_waits"), 0.0)
            for iteration in workload.get("data", []):
                for kind, value in iteration_split(iteration).items():
                    parts[kind] += value
            total = sum(parts.values())
            for kind, value in parts.items():
                found[kind] += load * value / total if total else 0.0
            if not total:
                found["twins_and_waits"] += load
    found["rally"] = max(0.0, seconds - sum(found.values()))
    return found


def of_run(document, rounds, elapsed, decided):
    """decide.json's "cost": seconds per decided cell and where they went.

    document: Rally's report of every round's task; rounds: decide.json's
    (task, seconds); the seconds outside the rounds (choosing the pairs'
    mode, reading results between rounds) count as Rally's own. A task
    of no round's own (a session's part of a round it kept, kept_from;
    the round an interrupt cut short, not a round yet) counts its
    workloads' own seconds; the rest of that session counts as Rally's.
    """
    by_task = {task["uuid"]: task for task in document.get("tasks", [])}
    spent = dict.fromkeys(KINDS, 0.0)
    accounted = 0.0
    for done in rounds:
        task = by_task.pop(done["task"], None)
        accounted += done["seconds"]
        if task is None:
            spent["rally"] += done["seconds"]
        else:
            for kind, value in task_split(task, done["seconds"]).items():
                spent[kind] += value
    for task in by_task.values():
        for kind, value in task_split(task, 0.0).items():
            spent[kind] += value
            accounted += value
    spent["rally"] += max(0.0, elapsed - accounted)
    return {"elapsed_s": round(elapsed, 1), "decided_cells": decided,
            "seconds_per_decided_cell": round(elapsed / decided, 1)
            if decided else None,
            "seconds": {k: round(v, 1) for k, v in spent.items()},
            "shares": {k: round(v / elapsed, 3) if elapsed else None
                       for k, v in spent.items()}}


def line(cost):
    """One line of it, for the terminal."""
    per = cost["seconds_per_decided_cell"]
    head = "cost: %.0f s, %s" % (
        cost["elapsed_s"], "%.0f s per decided cell" % per
        if per is not None else "no cell decided")
    parts = ["%s %.0f %%" % (SAID[k], 100 * cost["shares"][k])
             for k in sorted(KINDS, key=lambda k: -cost["seconds"][k])
             if cost["shares"][k] is not None]
    return head + ("; wall time: " + ", ".join(parts) if parts else "")
