"""rcbench decide: rounds until every cell has a verdict, or the budget ends.

A round is one Rally task of the local task file, given a ``plan``: the
cells (platform x concurrency, with the tests still undecided there) in a
seeded shuffled order, each instance's test paired with its native twin.
After each round the comparison report is built over every round so far,
at the sequential alpha (report/sequential.py: alpha / max_rounds per
look); a cell whose headline metric has a verdict is measured no more.
The run stops when every cell is decided, when max_rounds are done, or
when the next round would not fit in the budget (estimated from each
cell's last duration). Native alone runs in the first round only: its own
level for the report; every verdict comes from the pairs.

Rally runs as a child process (its output in rally-task.log); the
progress is one updating line on a terminal, plain lines in a file.
"""

import collections
import json
import math
import os
import random
import re
import signal
import statistics
import subprocess
import sys
import time

from rally_container_bench.drivers import registry
from rally_container_bench.engines import catalog
from rally_container_bench.report import comparison
from rally_container_bench.report import equivalence
from rally_container_bench.report import render
from rally_container_bench.report import sequential
from rally_container_bench.workloads import tests as tests_lib

NATIVE = comparison.NATIVE
DECIDED = ("equivalent", "worse", "better")
# An auto margin wider than this would make "equivalent" say nothing:
# cells that cannot be settled within it stay inconclusive, and say why.
MAX_AUTO_MARGIN = 0.25
_STARTED = re.compile(r"([0-9a-f-]{36}): started")
_ITER_END = re.compile(r"\| ITER: \d+ END")
_WORKLOAD_DONE = re.compile(r"completed (\d+) of (\d+) in general")


class DecideError(Exception):
    pass


def cells_of(args):
    """{(platform, step): [test presets]} of the run, natives left out."""
    steps = args.get("concurrency", [1, 2])
    limits = args.get("max_concurrency", {})
    return {(platform, step): list(args.get("tests", []))
            for platform in args.get("platforms", [])
            if platform != NATIVE
            for step in steps if step <= limits.get(platform, step)}


def times_for(step, pairs):
    """Iterations of native alone per round: whole waves, >= pairs."""
    return step * max(1, math.ceil(pairs / step))


def repeats_for(step, pairs):
    """Pairs per instance of one wave that give >= pairs in all."""
    return max(1, math.ceil(pairs / step))


def cell_runs(platform, step, pairs, booting_costs):
    """(times, repeat) of a cell's round.

    A pair per instance where booting is cheap (containers): pairs of
    one instance share its placement (a container whose memory reads
    sit in the host's slower mode stays there), so separate instances
    keep the pairs independent. Where booting costs a minute (a VM
    under TCG, booting_costs(platform) true): one wave, its tests
    repeated.
    """
    if booting_costs(platform):
        return step, repeats_for(step, pairs)
    return times_for(step, pairs), 1


def _own_kernel(platform):
    try:
        return registry.driver_class(platform).own_kernel
    except catalog.UnknownEngine:  # validation says so, before any boot
        return False


def plan_round(cells, number, seed, pairs, natives=(),
               booting_costs=_own_kernel):
    """[[platform, step, tests, times, repeat]] of a round, shuffled."""
    plan = [[NATIVE, step, tests, times_for(step, pairs), 1]
            for step, tests in natives]
    plan += [[platform, step, tests]
             + list(cell_runs(platform, step, pairs, booting_costs))
             for (platform, step), tests in sorted(cells.items()) if tests]
    random.Random(seed * 1000 + number).shuffle(plan)
    return plan


def undecided(report, cells):
    """The cells' tests whose headline metric has no verdict yet."""
    left = {}
    for (platform, step), presets in cells.items():
        label = _label(report, platform)
        still = []
        for preset in presets:
            rows = _headline_rows(report, label, step, preset)
            if not rows or any(r["verdict"] not in DECIDED for r in rows):
                still.append(preset)
        left[(platform, step)] = still
    return left


def _headline_rows(report, label, step, preset):
    spec = tests_lib.resolve(preset)
    prefix = "%s.%s." % (spec.tool, spec.label)
    headline = {m["name"] for m in report["metrics"] if m["headline"]}
    rows = comparison.rows_for(report, platform=label, concurrency=step)
    return [row for row in rows
            if row["metric"].startswith(prefix) and row["metric"] in headline]


class Progress:
    """Where the run is: one updating line on a terminal, else lines."""

    def __init__(self, budget, stream=sys.stdout):
        self.budget = budget
        self.stream = stream
        self.tty = stream.isatty()
        self.started = time.monotonic()
        self.state = {}
        self._last = None

    def elapsed(self):
        return time.monotonic() - self.started

    def update(self, **state):
        self.state.update(state)
        s = self.state
        where = ("round %s of at most %s | %s | iterations %d of %d | "
                 "cells decided %d of %d"
                 % (s.get("round"), s.get("looks"), s.get("where", "-"),
                    s.get("done", 0), s.get("planned", 0),
                    s.get("decided", 0), s.get("cells", 0)))
        # a file gets a line when the run moves on, not every second
        key = where if not self.tty else where + _minutes(self.left())
        if key == self._last:
            return
        self._last = key
        line = "%s | budget left %s" % (where, _minutes(self.left()))
        if self.tty:
            self.stream.write("\r\033[K" + line)
        else:
            self.stream.write(line + "\n")
        self.stream.flush()

    def left(self):
        return self.budget - self.elapsed()

    def say(self, text):
        if self.tty and self._last:
            self.stream.write("\n")
        self._last = None
        self.stream.write(text + "\n")
        self.stream.flush()


def _minutes(seconds):
    seconds = max(0, int(seconds))
    return "%d:%02d" % (seconds // 60, seconds % 60)


def run_round(rally, task, args, env, log_path, progress, plan):
    """Run one round's task; return its uuid (None: it did not start)."""
    planned = sum(cell[3] for cell in plan)
    progress.update(done=0, planned=planned, where=_where(plan, 0))
    offset = os.path.getsize(log_path) if os.path.exists(log_path) else 0
    with open(log_path, "a") as log:
        proc = subprocess.Popen(
            rally + ["task", "start", task, "--task-args", json.dumps(args),
                     "--env", env, "--tag", "rcbench-decide"],
            stdout=log, stderr=subprocess.STDOUT,
            env=dict(os.environ, COLUMNS="200"))
    uuid, done = None, 0
    while True:
        try:
            finished = proc.wait(timeout=1) is not None
        except subprocess.TimeoutExpired:
            finished = False
        with open(log_path, errors="replace") as log:
            log.seek(offset)
            text = log.read()
            offset = log.tell()
        uuid = uuid or next(iter(_STARTED.findall(text)), None)
        done += len(_ITER_END.findall(text))
        workloads = _WORKLOAD_DONE.findall(text)
        where = int(workloads[-1][0]) if workloads else None
        progress.update(done=done, **({"where": _where(plan, where)}
                                      if where is not None else {}))
        if finished:
            break
    return uuid, proc.returncode


def _where(plan, index):
    if index >= len(plan):
        return "writing results"
    platform, step = plan[index][:2]
    return "%s at %d" % (platform, step)


def rally_report(rally, uuids, path, kind="--json"):
    """Rally's own report of the rounds' tasks (json, or --html-static)."""
    subprocess.run(rally + ["task", "report"] + uuids + [kind, "--out", path],
                   check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    if kind == "--json":
        with open(path) as f:
            return json.load(f)


def task_status(rally, uuid):
    """Rally's status of a task: finished, aborted, validation_failed..."""
    proc = subprocess.run(rally + ["task", "status", uuid],
                          capture_output=True, text=True)
    found = re.search(r": ([a-z_]+)\s*$", proc.stdout)
    return found.group(1) if found else "unknown"


def _errors(log_path, offset):
    """The log's ERROR lines since offset: why a round did not run."""
    with open(log_path, errors="replace") as log:
        log.seek(offset)
        lines = [line.strip() for line in log if " ERROR " in line
                 or "doesn't pass" in line]
    return " | ".join(lines[-3:]) or "see %s" % log_path


def sla_passed(rally, uuid):
    return subprocess.run(rally + ["task", "sla-check", uuid],
                          stdout=subprocess.DEVNULL,
                          stderr=subprocess.DEVNULL).returncode == 0


class _Interrupt:
    """Ctrl-C during a round: no further round starts.

    Rally (in the same process group) aborts its task; the reports of
    what finished are still written. A second Ctrl-C stops at once.
    """

    def __init__(self):
        self.seen = False

    def __enter__(self):
        self._previous = signal.signal(signal.SIGINT, self._on_signal)
        return self

    def _on_signal(self, signum, frame):
        if self.seen:
            raise KeyboardInterrupt
        self.seen = True

    def __exit__(self, *exc):
        signal.signal(signal.SIGINT, self._previous)


def decide(rally, task, args, env, out, budget, max_rounds, pairs,
           margins=None, stream=sys.stdout):
    """Run rounds; write the reports into out; return (summary, report).

    margins: {kind: fraction or "auto"}; an "auto" kind's margin is chosen
    after round 1 from the spread of its undecided cells' pairs
    (report.sequential.margin_from_noise), its floor the default margin.
    """
    run = SequentialRun(rally, task, args, env, out, budget, max_rounds,
                        pairs, margins, stream)
    return run.run()


class SequentialRun:

    def __init__(self, rally, task, args, env, out, budget, max_rounds,
                 pairs, margins, stream):
        self.rally, self.task, self.args, self.env = rally, task, args, env
        self.out, self.budget, self.looks = out, budget, max_rounds
        self.pairs = pairs
        self.cells = cells_of(args)
        if not self.cells:
            raise DecideError("no platform but native in the task args: "
                              "nothing to decide")
        margins = dict(margins or {})
        self.auto = sorted(k for k, v in margins.items() if v == "auto")
        floor = margins.get("default", equivalence.DEFAULT_MARGIN)
        if floor == "auto":
            raise DecideError("the default margin is a number; 'auto' is "
                              "for a kind (cpu, memory, disk, ...)")
        self.margins = {k: (floor if v == "auto" else v)
                        for k, v in margins.items()}
        self.margin_notes = {}
        self.natives = [(step, list(args.get("tests", [])))
                        for step in sorted({s for (_, s) in self.cells})] \
            if NATIVE in args.get("platforms", []) else []
        self.total = sum(len(t) for t in self.cells.values())
        self.progress = Progress(budget, stream)
        self.progress.state.update(looks=max_rounds, cells=self.total,
                                   decided=0)
        self.log_path = os.path.join(out, "rally-task.log")

    def run(self):
        os.makedirs(self.out, exist_ok=True)
        with _Interrupt() as interrupt:
            left, uuids, rounds = self._rounds(interrupt)
        if not uuids:
            raise DecideError("no round ran")
        document = rally_report(self.rally, uuids,
                                os.path.join(self.out, "rally.json"))
        rally_report(self.rally, uuids, os.path.join(self.out, "rally.html"),
                     "--html-static")
        report = comparison.build([document], margins=self.margins)
        summary = {
            "rounds": rounds, "budget_s": self.budget,
            "max_rounds": self.looks, "pairs_per_round": self.pairs,
            "elapsed_s": round(self.progress.elapsed(), 1),
            "cells": self.total,
            "decided": self.total - sum(len(t) for t in left.values()),
            "undecided": sorted(
                "%s at %d: %s" % (p, s, ", ".join(
                    tests_lib.resolve(test).label for test in t))
                for (p, s), t in left.items() if t),
            "margins": self.margins, "margins_from_noise": self.margin_notes,
            "tasks": uuids, "interrupted": interrupt.seen,
            "sla_failed": [u for u in uuids
                           if not sla_passed(self.rally, u)]}
        for path, text in render.files(report, self.out).items():
            with open(path, "w") as f:
                f.write(text)
        with open(os.path.join(self.out, "decide.json"), "w") as f:
            json.dump(summary, f, indent=2, sort_keys=True)
        return summary, report

    def _rounds(self, interrupt):
        left, uuids, rounds = dict(self.cells), [], []
        for number in range(1, self.looks + 1):
            started = time.monotonic()
            plan = plan_round(left, number, self.args.get("seed", 1),
                              self.pairs,
                              self.natives if number == 1 else ())
            uuid = self._round(number, plan, interrupt)
            if uuid is None:
                break
            uuids.append(uuid)
            document = rally_report(self.rally, uuids,
                                    os.path.join(self.out, "rally.json"))
            report = comparison.build([document], margins=self.margins)
            seconds = time.monotonic() - started
            if number == 1 and self.auto:
                report = self._choose_margins(document, report)
            left = undecided(report, self.cells)
            decided = self.total - sum(len(t) for t in left.values())
            rounds.append({"round": number, "task": uuid, "seconds": round(
                seconds, 1), "cells": len(plan), "decided": decided})
            self.progress.update(decided=decided)
            self.progress.say("round %d: task %s, %s, %d of %d cells decided"
                              % (number, uuid, _minutes(seconds), decided,
                                 self.total))
            if interrupt.seen or decided == self.total:
                break
            if self.progress.elapsed() + next_round_s(
                    document, uuid, left, seconds) > self.budget:
                self.progress.say("stopping: another round would not end "
                                  "within the budget of %s"
                                  % _minutes(self.budget))
                break
        return left, uuids, rounds

    def _round(self, number, plan, interrupt):
        """Run round number; its task's uuid, or None when interrupted."""
        round_args = dict(self.args, plan=plan, round_number=number,
                          looks=self.looks, paired=True)
        self.progress.update(round=number)
        offset = os.path.getsize(self.log_path) \
            if os.path.exists(self.log_path) else 0
        uuid, code = run_round(self.rally, self.task, round_args, self.env,
                               self.log_path, self.progress, plan)
        if interrupt.seen and uuid is None:
            return None
        status = task_status(self.rally, uuid) if uuid else "not started"
        if status not in ("finished", "aborted"):
            raise DecideError("round %d: task %s is %s (rally exit %d): %s"
                              % (number, uuid, status, code,
                                 _errors(self.log_path, offset)))
        return uuid

    def _choose_margins(self, document, report):
        """Margins of the auto kinds from round 1's undecided cells.

        For the pairs the whole run plans (pairs_per_round x max_rounds),
        so the margin does not hang on how long round 1 took; never above
        MAX_AUTO_MARGIN, beyond which "equivalent" would say nothing.
        """
        left = undecided(report, self.cells)
        rounds = self.looks
        spreads = collections.defaultdict(list)
        for (platform, step), presets in left.items():
            label = _label(report, platform)
            for preset in presets:
                for row in _headline_rows(report, label, step, preset):
                    if row.get("pair_sd") is not None:
                        spreads[comparison.kind_of(row["metric"])].append(
                            row["pair_sd"])
        for kind in self.auto:
            sd = statistics.median(spreads[kind]) if spreads[kind] else None
            chosen = sequential.margin_from_noise(
                sd, self.pairs * rounds, self.looks,
                floor=self.margins.get(kind))
            self.margins[kind] = min(MAX_AUTO_MARGIN, chosen)
            self.margin_notes[kind] = {"pair_sd": sd, "pairs": self.pairs
                                       * rounds, "margin": self.margins[kind]}
            self.progress.say(
                "margin of %s: +-%g %% (from round 1: pair SD %s over %d "
                "undecided cells, for the %d pairs a cell may get)"
                % (kind, 100 * self.margins[kind], "-" if sd is None else
                   "%.2f %%" % (100 * sd), len(spreads[kind]),
                   self.pairs * rounds))
        return comparison.build([document], margins=self.margins)


def next_round_s(document, uuid, left, seconds):
    """Seconds the next round may take.

    The cells still undecided, each as long as its workload took in round
    uuid (for the share of its tests left), plus what the round spent
    outside its workloads.
    """
    total, spent = 0.0, 0.0
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
                still = left.get((args.get("driver"), step)) or []
                if tests and still:
                    total += took * len(still) / len(tests)
    return total + max(0.0, seconds - spent)


def _label(report, platform):
    for found in report["platforms"]:
        if found["driver"] == platform:
            return found["label"]
    return None
