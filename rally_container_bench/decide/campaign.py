"""A decided run's state on disk, so that it survives an interruption.

``campaign.json`` in the run's output directory says what the run was
asked (task file, its args, env, settings) and how far it got: each
finished round's Rally task, the margins chosen after round 1, the
pairs' mode, the cells still undecided and those the next round runs,
the seconds spent, and the round in flight with its Rally process. It
is written (atomically: a new file renamed over the old) when the run
starts, when a round starts and when it ends.

``rcbench decide --resume --out DIR`` reads it back: the rounds that
finished count as they are (their tasks are read from Rally's DB), the
budget and the rounds already used carry over, and with them the alpha
already spent (sequential looks: alpha / max_rounds each), so the error
rates of the verdicts still hold. A round that was in flight goes on
where it stopped: its Rally, if it still runs (the run was killed, not
Rally), is stopped as Ctrl-C stops it, and one that was killed too has
its instances deleted (rcbench cleanup --task); the cells whose
workload ended whole in its task are kept ("partial": the round, its
tasks so far and those cells), and the round runs only the others. A
round that Ctrl-C ended is kept the same way: neither spends a look of
its own.
"""

import hashlib
import json
import os
import signal
import subprocess
import sys
import time

from rally_container_bench.core import processes
from rally_container_bench.decide import budget
from rally_container_bench.decide import plan as planner
from rally_container_bench.decide import rally_runs
from rally_container_bench.report import results

STATE = "campaign.json"
VERSION = 1
RUNNING, INTERRUPTED, FINISHED = "running", "interrupted", "finished"
# How long a Rally left running gets to abort its task (its cleanup
# deletes the round's instances) before it is terminated.
ABORT_WAIT_S = 300


class CampaignError(Exception):
    """The directory's campaign cannot be started or resumed; says why."""


def state_path(out):
    return os.path.join(out, STATE)


def task_digest(task):
    """The task file's SHA-256; None where it cannot be read.

    Rally says why when the round starts.
    """
    try:
        with open(task, "rb") as f:
            return hashlib.sha256(f.read()).hexdigest()
    except OSError:
        return None


def new_state(rally, task, args, env, settings, tags):
    """The state of a run about to start (settings: decide's own)."""
    return {"version": VERSION, "status": RUNNING,
            "rally": list(rally), "task": os.path.abspath(task),
            "task_sha256": task_digest(task), "args": args, "env": env,
            "settings": settings, "tags": list(tags),
            "elapsed_s": 0.0, "sessions": 1, "pairing": None,
            "margins": None, "margin_notes": {}, "rounds": [],
            "tasks": [], "left": None, "planned": None, "in_flight": None,
            "partial": None}


def save(out, state):
    """Write state, whole or not at all (a kill leaves the last one)."""
    path = state_path(out)
    partial = path + ".new"
    with open(partial, "w") as f:
        json.dump(state, f, indent=2, sort_keys=True)
        f.flush()
        os.fsync(f.fileno())
    os.replace(partial, path)


def refuse_unfinished(out):
    """A new run does not write over a campaign that can be resumed."""
    try:
        state = load(out)
    except CampaignError:
        return
    if state["status"] != FINISHED:
        raise CampaignError(
            "%s holds an unfinished campaign (%d round(s) done, %s): "
            "rcbench decide --resume --out %s goes on with it; or give "
            "another --out" % (out, len(state["rounds"]), state["status"],
                               out))


def load(out):
    """The campaign of directory out, checked."""
    path = state_path(out)
    try:
        with open(path) as f:
            state = json.load(f)
    except FileNotFoundError:
        raise CampaignError("%s: no campaign to resume (%s missing: the "
                            "run never started there)" % (out, STATE))
    except (OSError, ValueError) as e:
        raise CampaignError("%s: %s" % (path, e))
    if not isinstance(state, dict) or state.get("version") != VERSION:
        raise CampaignError("%s: not a campaign state of version %d"
                            % (path, VERSION))
    return state


def check_resumable(out, state):
    if state["status"] == FINISHED:
        raise CampaignError("%s: the campaign finished (%d round(s)): "
                            "nothing to resume; its reports are there"
                            % (out, len(state["rounds"])))
    digest = task_digest(state["task"])
    if digest is None:
        raise CampaignError("the campaign's task file %s cannot be read"
                            % state["task"])
    if digest != state["task_sha256"]:
        raise CampaignError(
            "%s changed since the campaign started: its rounds would not "
            "be one experiment; restore it, or start a new campaign"
            % state["task"])


def rally_of(proc):
    """The in-flight record of a round's Rally process."""
    recorded = processes.Recorded.of(proc.pid)
    return None if recorded is None else str(recorded)


def settle_in_flight(state, say, rally_status, cleanup, salvage):
    """End what an interrupted round left; keep what of it ended whole.

    A Rally still running is sent SIGINT, as a Ctrl-C: it aborts its task
    and deletes its instances (SIGTERM after ABORT_WAIT_S). A round whose
    Rally is gone while its task had not ended left its instances:
    cleanup(uuid) deletes them. rally_status(uuid): Rally's state of a
    task (None: unknown). salvage(uuid): the cells of the task that ended
    whole (finished_cells), kept as the round's part done (keep_part).
    """
    flight = state.get("in_flight")
    if not flight:
        return
    recorded = processes.Recorded.parse(flight.get("rally") or "")
    uuid = flight.get("task")
    if recorded is not None and recorded.alive():
        say("round %d's Rally (pid %d) still runs: stopping it as Ctrl-C "
            "does (its task aborts, its instances are deleted)"
            % (flight["round"], recorded.pid))
        recorded.signal(signal.SIGINT)
        deadline = time.monotonic() + ABORT_WAIT_S
        while recorded.alive() and time.monotonic() < deadline:
            time.sleep(1)
        if recorded.alive():
            recorded.stop(30)
    elif uuid and rally_status(uuid) not in ("finished", "aborted"):
        say("round %d's Rally is gone and its task %s did not end: "
            "deleting what it left" % (flight["round"], uuid))
        cleanup(uuid)
    state["in_flight"] = None
    # the pairing's calibration (before any round) is chosen again whole
    if uuid and state.get("pairing") is not None:
        done = salvage(uuid)
        if done:
            keep_part(state, flight["round"], uuid, done)
        say("round %d's task %s: %d cell(s) ended whole and are kept; the "
            "round runs the rest" % (flight["round"], uuid, len(done)))


def finished_cells(document, uuid):
    """{(cell, step)} whose workload ran every iteration in task uuid.

    document: Rally's JSON report. Each of a round's cells is a subtask
    of one workload. A killed Rally leaves its subtask "running" with no
    iterations; Ctrl-C ends the workload it runs early, and Rally still
    marks that subtask "finished": its iterations are counted against
    the runner's times.
    """
    done = set()
    for task in document.get("tasks", []):
        if task.get("uuid") != uuid:
            continue
        for subtask in task["subtasks"]:
            if subtask.get("status") != "finished":
                continue
            for workload in subtask["workloads"]:
                cell = (results.round_config(workload) or {}).get("cell")
                times = next(iter(workload["runner"].values())).get(
                    "times") or 1
                if cell and len(workload.get("data") or []) >= times:
                    done.add((cell, budget.concurrency_of(workload)))
    return done


def whole_cells_only(document, interrupted):
    """document less what interrupted tasks cut short (in place).

    A cell that Ctrl-C or a kill cut short in its round's task runs again
    in that round: its iterations there (the aborted one "failed") would
    count beside the new ones, and fail a campaign that failed nothing
    (KEK's, 2026-12-06: "lxc at concurrency 2: 1 of 10 iterations
    failed", the one Ctrl-C aborted). interrupted: their uuids.
    """
    for task in document.get("tasks", []):
        if task.get("uuid") not in interrupted:
            continue
        done = finished_cells(document, task["uuid"])
        for subtask in task["subtasks"]:
            subtask["workloads"] = [
                w for w in subtask["workloads"]
                if ((results.round_config(w) or {}).get("cell"),
                    budget.concurrency_of(w)) in done]
        task["subtasks"] = [s for s in task["subtasks"] if s["workloads"]]
    return document


def keep_part(state, number, uuid, done):
    """Round number's task uuid kept, with its cells done (a set).

    Its iterations count in the reports (the run's tasks), its cells are
    not run again in that round.
    """
    part = state.get("partial") or {}
    if part.get("round") != number:
        part = {"round": number, "tasks": [], "done": []}
    state["partial"] = {
        "round": number, "tasks": part["tasks"] + [uuid],
        "done": sorted(set(map(tuple, part["done"])) | set(done))}
    if uuid not in state["tasks"]:
        state["tasks"] = state["tasks"] + [uuid]


def part_done(state, number):
    """{(cell, step)} of round number kept from its interrupted tasks."""
    part = state.get("partial") or {}
    return set(map(tuple, part.get("done", []))) \
        if part.get("round") == number else set()


def cleanup_command(rally, env, uuid, cloud):
    """rcbench cleanup of one task's instances (rally: its argv)."""
    beside = os.path.join(os.path.dirname(sys.executable), "rcbench")
    argv = [beside if os.path.exists(beside) else "rcbench",
            "cleanup", "--task", uuid]
    if "--config-file" in rally:
        argv += ["--rally-config", rally[rally.index("--config-file") + 1]]
    if cloud:
        argv += ["--env", env]
    return argv


def run_cleanup(argv, log_path):
    with open(log_path, "a") as log:
        return subprocess.call(argv, stdout=log, stderr=subprocess.STDOUT)


def cells_list(cells):
    """{(cell, step): tests} as JSON keeps it: [[cell, step, tests]]."""
    return [[cell, step, list(tests)]
            for (cell, step), tests in sorted(cells.items())]


def cells_of(rows):
    return {(cell, step): list(tests) for cell, step, tests in rows}


class Kept:
    """decide.run.SequentialRun's state kept in its directory."""

    def _start_or_resume(self):
        """A new run's state written; a resumed one's carried over."""
        state = self.state
        if not self.resuming:
            refuse_unfinished(self.out)
            self._save()
            return
        state["sessions"] += 1
        self.progress.started -= state["elapsed_s"]
        self.pairing = state["pairing"] or self.pairing
        if state["margins"] is not None:
            self.margins = state["margins"]
            self.margin_notes = state["margin_notes"]
        if state["left"] is not None:
            # the progress line goes on from the cells already decided
            self.progress.state.update(decided=self.total - sum(
                len(tests) for tests in cells_of(state["left"]).values()))
        self.progress.say(
            "resuming the campaign in %s: %d round(s) done, %d of %d cells "
            "decided, %s of the %s budget spent" % (
                self.out, len(state["rounds"]),
                self.progress.state["decided"], self.total,
                rally_runs.minutes(state["elapsed_s"]),
                rally_runs.minutes(self.budget)))
        settle_in_flight(
            state, self.progress.say, self.reads.status,
            lambda uuid: run_cleanup(cleanup_command(
                self.rally, self.env, uuid, planner.cloud_task(self.args)),
                self.log_path),
            self._finished_cells)
        self._save()

    def _report_of(self, uuids):
        """Rally's report of the run's tasks (rally.json), each cell whole.

        Less what the tasks an earlier interrupt ended (kept from their
        rounds) cut short: those cells run again in their round. The
        interrupt's own report keeps them (what they finished).
        """
        interrupted = {u for r in self.state["rounds"]
                       for u in r.get("kept_from", [])}
        interrupted.update((self.state.get("partial") or {}).get("tasks", []))
        return whole_cells_only(self.reads.report(
            uuids, os.path.join(self.out, "rally.json")), interrupted)

    def _finished_cells(self, uuid):
        path = os.path.join(self.out, "interrupted-task.json")
        try:
            return finished_cells(self.reads.report([uuid], path), uuid)
        finally:
            if os.path.exists(path):
                os.unlink(path)

    def _not_done(self, number, planned, natives):
        """Round number's cells and natives alone left to run.

        Those of its interrupted tasks that ended whole are kept.
        """
        done = part_done(self.state, number)
        return ({cell: tests for cell, tests in planned.items()
                 if cell not in done},
                [(step, tests) for step, tests in natives
                 if (planner.NATIVE, step) not in done])

    def _keep_interrupted(self, number, uuid, document, planned):
        """A round Ctrl-C ended: what ended whole kept, the round to go on.

        It spends no look: a resumed run goes on with it (its planned
        cells, less those kept).
        """
        if uuid is not None:
            keep_part(self.state, number, uuid,
                      finished_cells(document, uuid))
        # keep_part changed the state's tasks and partial in place
        self._save(in_flight=None, planned=cells_list(planned))

    def _save(self, **changes):
        self.state.update(changes, elapsed_s=round(self.progress.elapsed(),
                                                   1))
        save(self.out, self.state)

    def _watch(self, number):
        def watch(proc, uuid):
            self._save(in_flight={"round": number, "task": uuid,
                                  "rally": rally_of(proc)})
        return watch
