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

import json
import math
import os
import random
import re
import signal
import subprocess
import sys
import time

from rally_container_bench.report import comparison
from rally_container_bench.report import render
from rally_container_bench.workloads import tests as tests_lib

NATIVE = comparison.NATIVE
DECIDED = ("equivalent", "worse", "better")
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
    """Pairs per instance of one wave that give >= pairs in all.

    One wave per round and the tests repeated in it: a VM under TCG
    takes a minute to boot and seconds per test.
    """
    return max(1, math.ceil(pairs / step))


def plan_round(cells, number, seed, pairs, natives=()):
    """[[platform, step, tests, times, repeat]] of a round, shuffled."""
    plan = [[NATIVE, step, tests, times_for(step, pairs), 1]
            for step, tests in natives]
    plan += [[platform, step, tests, step, repeats_for(step, pairs)]
             for (platform, step), tests in sorted(cells.items()) if tests]
    random.Random(seed * 1000 + number).shuffle(plan)
    return plan


def undecided(report, cells):
    """The cells' tests whose headline metric has no verdict yet."""
    labels = {}
    for platform in report["platforms"]:
        labels.setdefault(platform["driver"], platform["label"])
    left = {}
    for (platform, step), presets in cells.items():
        label = labels.get(platform)
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
    """Run rounds; write the reports into out; return the summary dict."""
    cells = cells_of(args)
    if not cells:
        raise DecideError("no platform but native in the task args: "
                          "nothing to decide")
    natives = [(step, list(args.get("tests", [])))
               for step in sorted({s for (_, s) in cells})] \
        if NATIVE in args.get("platforms", []) else []
    progress = Progress(budget, stream)
    total = sum(len(t) for t in cells.values())
    progress.state.update(looks=max_rounds, cells=total, decided=0)
    os.makedirs(out, exist_ok=True)
    with _Interrupt() as interrupt:
        left, uuids, rounds = _rounds(
            rally, task, args, env, out, budget, max_rounds, pairs, margins,
            cells, natives, progress, interrupt)
    if not uuids:
        raise DecideError("no round ran")
    document = rally_report(rally, uuids, os.path.join(out, "rally.json"))
    rally_report(rally, uuids, os.path.join(out, "rally.html"),
                 "--html-static")
    report = comparison.build([document], margins=margins)
    failed = [uuid for uuid in uuids if not sla_passed(rally, uuid)]
    summary = {"rounds": rounds, "budget_s": budget, "max_rounds": max_rounds,
               "elapsed_s": round(progress.elapsed(), 1), "cells": total,
               "decided": total - sum(len(t) for t in left.values()),
               "undecided": sorted("%s at %d: %s" % (p, s, ", ".join(t))
                                   for (p, s), t in left.items() if t),
               "tasks": uuids, "sla_failed": failed,
               "interrupted": interrupt.seen}
    for path, text in render.files(report, out).items():
        with open(path, "w") as f:
            f.write(text)
    with open(os.path.join(out, "decide.json"), "w") as f:
        json.dump(summary, f, indent=2, sort_keys=True)
    return summary, report


def _rounds(rally, task, args, env, out, budget, max_rounds, pairs, margins,
            cells, natives, progress, interrupt):
    total = sum(len(t) for t in cells.values())
    seed = args.get("seed", 1)
    left, uuids, rounds = dict(cells), [], []
    log_path = os.path.join(out, "rally-task.log")
    for number in range(1, max_rounds + 1):
        plan = plan_round(left, number, seed, pairs,
                          natives if number == 1 else ())
        round_args = dict(args, plan=plan, round_number=number,
                          looks=max_rounds, paired=True)
        started = time.monotonic()
        progress.update(round=number)
        uuid, code = run_round(rally, task, round_args, env, log_path,
                               progress, plan)
        if uuid is None:
            if interrupt.seen:
                break
            raise DecideError("round %d did not start (exit %d): see %s"
                              % (number, code, log_path))
        uuids.append(uuid)
        document = rally_report(rally, uuids,
                                os.path.join(out, "rally.json"))
        report = comparison.build([document], margins=margins)
        left = undecided(report, cells)
        decided = total - sum(len(t) for t in left.values())
        seconds = time.monotonic() - started
        rounds.append({"round": number, "task": uuid, "seconds": round(
            seconds, 1), "cells": len(plan), "decided": decided})
        progress.update(decided=decided)
        progress.say("round %d: task %s, %s, %d of %d cells decided"
                     % (number, uuid, _minutes(seconds), decided, total))
        if interrupt.seen or decided == total:
            break
        share = sum(len(t) for t in left.values()) / max(1, sum(
            len(p[2]) for p in plan if p[0] != NATIVE))
        if progress.elapsed() + seconds * min(1.0, share) > budget:
            progress.say("stopping: another round would not end within "
                         "the budget of %s" % _minutes(budget))
            break
    return left, uuids, rounds
