"""rcbench decide: rounds until every cell has a verdict, or the budget ends.

A round is one Rally task of the task file (the local one, or the cloud's
tasks/kvm_vs_docker.yaml), given a ``plan``: the cells (platform x
concurrency, with the tests still undecided there) in a seeded shuffled
order, each instance's test paired with its native twin (on a cloud: on
the instance's compute host, where the args give compute_hosts).
After each round the comparison report is built over every round so far,
at the sequential alpha (report/sequential.py: alpha / max_rounds per
look); a cell whose headline metric has a verdict is measured no more.
The run stops when every cell is decided, when max_rounds are done, or
when the next round would not fit in the budget (estimated from each
cell's last duration). Native alone runs in the first round only: its own
level for the report; every verdict comes from the pairs. Where the
instrument check runs (its A/A at every step: native and its twin, the
level twice over) native alone does not.

Rally runs as a child process (its output in rally-task.log); the
progress is one updating line on a terminal, plain lines in a file.
"""

import json
import os
import sys
import time

from rally_container_bench.decide import budget
from rally_container_bench.decide import campaign
from rally_container_bench.decide import cost
from rally_container_bench.decide import pairing as pairing_lib
from rally_container_bench.decide import plan as planner
from rally_container_bench.decide import rally_reads
from rally_container_bench.decide import rally_runs
from rally_container_bench.engines.native import instance as native
from rally_container_bench.report import comparison
from rally_container_bench.report import equivalence
from rally_container_bench.report import margins as margins_lib
from rally_container_bench.report import render
from rally_container_bench.report import sequential
from rally_container_bench.workloads import tests as tests_lib


def decide(rally, task, args, env, out, budget, max_rounds, pairs,
           margins=None, stream=sys.stdout, tags=("rcbench-decide",),
           harness_yields=False, instrument_check=True,
           pairing=pairing_lib.AUTO):
    """Run rounds; write the reports into out; return (summary, report).

    out keeps the run's state (decide/campaign.py): resume() goes on with
    a run that was interrupted.

    margins: {kind: fraction or "auto"}; an "auto" kind's margin is chosen
    after round 1 from the spread of its cells' pairs
    (report.sequential.margin_from_noise), its floor the default margin.
    harness_yields: Rally at the lowest CPU priority (rally_runs.yield_cpu;
    how: rally_runs.yield_kind). instrument_check: add the A/A and known-effect
    cells (planner.instrument_cells; report/instrument.py). pairing:
    auto (a calibration of the A/A both ways chooses, per kind of test,
    at once or in sequence: decide/pairing.py), at-once or sequential.
    """
    run = SequentialRun(rally, task, args, env, out, budget, max_rounds,
                        pairs, margins, stream, tags, harness_yields,
                        instrument_check, pairing)
    return run.run()


def resume(out, stream=sys.stdout, rally=None):
    """Go on with the run whose state is in out: (summary, report).

    What it was asked comes from its state; rally (its argv) only where
    the Rally config moved.
    """
    state = campaign.load(out)
    campaign.check_resumable(out, state)
    s = state["settings"]
    run = SequentialRun(rally or state["rally"], state["task"],
                        state["args"], state["env"], out, s["budget_s"],
                        s["max_rounds"], s["pairs_per_round"], s["margins"],
                        stream, state["tags"], s["harness_yields"],
                        s["instrument_check"], s["pairing"], resumed=state)
    return run.run()


class SequentialRun(campaign.Kept):

    def __init__(self, rally, task, args, env, out, budget, max_rounds,
                 pairs, margins, stream, tags=("rcbench-decide",),
                 harness_yields=False, instrument_check=True,
                 pairing=pairing_lib.AUTO, resumed=None):
        self.yielding = rally_runs.yield_kind(args) if harness_yields else None
        self.resuming = resumed is not None
        self.state = resumed or campaign.new_state(
            rally, task, args, env, {
                "budget_s": budget, "max_rounds": max_rounds,
                "pairs_per_round": pairs, "margins": dict(margins or {}),
                "harness_yields": harness_yields,
                "instrument_check": instrument_check, "pairing": pairing},
            tags)
        self.rally, self.task, self.args, self.env = rally, task, args, env
        self.reads = rally_reads.RallyReads.of_argv(rally)
        self.tags = list(tags)
        self.out, self.budget, self.looks = out, budget, max_rounds
        self.pairs = pairs
        self.platform_cells = planner.cells_of(args)
        if not self.platform_cells:
            raise planner.DecideError("no platform but native in the task "
                                      "args: nothing to decide")
        self.instrument, self.instrument_notes = planner.instrument_cells(
            args, self.platform_cells) if instrument_check else ({}, [])
        self.cells = {**self.platform_cells, **self.instrument}
        margins = dict(margins or {})
        self.auto = sorted(k for k, v in margins.items() if v == "auto")
        floor = margins.get("default", equivalence.DEFAULT_MARGIN)
        if floor == "auto":
            raise planner.DecideError("the default margin is a number; "
                                      "'auto' is for a kind (cpu, memory, "
                                      "disk, ...)")
        self.margins = {k: (floor if v == "auto" else v)
                        for k, v in margins.items()}
        self.margin_notes, self.out_of_reach = {}, []
        self.pairing = {"setting": pairing, "modes": {}, "notes": []}
        self.steps = sorted({s for (_, s) in self.platform_cells})
        self.natives = [(step, list(args.get("tests", [])))
                        for step in self.steps] \
            if planner.natives_alone(args) and not self.instrument else []
        self.total = sum(len(t) for t in self.cells.values())
        self.progress = rally_runs.Progress(budget, stream)
        self.progress.state.update(looks=max_rounds, cells=self.total,
                                   decided=0)
        self.log_path = os.path.join(out, "rally-task.log")

    def run(self):
        planner.check_engines(self.args)
        os.makedirs(self.out, exist_ok=True)
        open(self.log_path, "a").close()  # there to follow from the start
        self._start_or_resume()
        for note in self.instrument_notes:
            self.progress.say(note)
        with rally_runs.Interrupt() as interrupt:
            if self.state["pairing"] is None:
                self._choose_pairing(interrupt)
                if interrupt.seen:
                    raise planner.DecideError(
                        "interrupted while the A/A chose the pairs' mode: "
                        "no round ran")
                self._save(pairing=self.pairing, in_flight=None)
            left, uuids, rounds, document = self._rounds(interrupt)
        if not uuids:
            raise planner.DecideError("no round ran")
        # rally.json is the last round's (every round's task)
        self.reads.export(uuids, "html-static",
                          os.path.join(self.out, "rally.html"))
        passed = [self.reads.sla_passed(uuid) for uuid in uuids]
        report = comparison.build([document], margins=self.margins)
        summary = {
            "rounds": rounds, "budget_s": self.budget,
            "max_rounds": self.looks, "pairs_per_round": self.pairs,
            "harness_yields": self.yielding or False,
            "elapsed_s": round(self.progress.elapsed(), 1),
            "cells": self.total,
            "decided": self.total - sum(len(t) for t in left.values()),
            "undecided": sorted(
                "%s at %d: %s" % (p, s, ", ".join(
                    tests_lib.resolve(test).label for test in t))
                for (p, s), t in left.items() if t),
            "margins": self.margins, "margins_from_noise": self.margin_notes,
            "out_of_reach": self.out_of_reach,
            "instrument_cells": sorted("%s at %d" % cell
                                       for cell in self.instrument),
            # the platforms' own, the instrument's left out
            "platform_cells": sum(len(t) for t in
                                  self.platform_cells.values()),
            "platform_decided": sum(
                len(t) - len(left.get(cell, []))
                for cell, t in self.platform_cells.items()),
            "instrument_notes": self.instrument_notes,
            "pairing": self.pairing,
            "tasks": uuids, "interrupted": interrupt.seen,
            "sessions": self.state["sessions"],
            "sla_failed": [u for u, ok in zip(uuids, passed) if not ok],
            "made_by": report["made_by"]}
        summary["cost"] = cost.of_run(document, rounds, summary["elapsed_s"],
                                      summary["decided"])
        for path, text in render.files(report, self.out).items():
            with open(path, "w") as f:
                f.write(text)
        with open(os.path.join(self.out, "decide.json"), "w") as f:
            json.dump(summary, f, indent=2, sort_keys=True)
        self._save(status=campaign.INTERRUPTED if interrupt.seen
                   else campaign.FINISHED)
        return summary, report

    def _rounds(self, interrupt):
        """Run the rounds.

        Returns (cells left undecided, the rounds' tasks, their
        summaries, Rally's JSON report of every round's task).
        """
        state = self.state
        left, uuids = dict(self.cells), list(state["tasks"])
        rounds = list(state["rounds"])
        if state["left"] is not None:
            left = campaign.cells_of(state["left"])
        document = self._report_of(uuids) if uuids else None
        # the cells the next round runs: a resumed run's as planned (all
        # undecided, where it was interrupted before it planned)
        planned = left if state["planned"] is None \
            else campaign.cells_of(state["planned"])
        for number in range(len(rounds) + 1, self.looks + 1):
            if not planned:
                break
            started = time.monotonic()
            todo, natives = self._not_done(
                number, planned, self.natives if number == 1 else ())
            plan = [row + [self.pairing["modes"].get(row[1])]
                    for row in planner.plan_round(
                        todo, number, self.args.get("seed", 1),
                        self.pairs, natives)]
            # none: its interrupted tasks ran every cell whole
            uuid, cut = self._round(number, plan, interrupt) if plan \
                else (None, False)
            if uuid is None and (plan or interrupt.seen):
                break
            uuids += [uuid] if uuid else []
            document = self._report_of(uuids)
            report = comparison.build([document], margins=self.margins)
            if interrupt.seen:
                # its report keeps what the cut-short cells finished
                self._keep_interrupted(number, uuid, document, planned)
                left = planner.undecided(report, self.cells)
                break
            seconds = time.monotonic() - started
            if number == 1 and self.auto:
                report = self._choose_margins(document, report)
            left = planner.undecided(report, self.cells)
            decided = self.total - sum(len(t) for t in left.values())
            kept = campaign.part_done(state, number)
            kept_from = (state.get("partial") or {}).get("tasks", []) \
                if kept else []
            rounds.append({"round": number, "task": uuid, "seconds": round(
                seconds, 1), "cells": len(plan) + len(kept),
                "decided": decided, "cut_by_budget": cut,
                "kept_from": kept_from})
            self._save(tasks=uuids, rounds=rounds, in_flight=None,
                       left=campaign.cells_list(left), planned=None,
                       partial=None, margins=self.margins,
                       margin_notes=self.margin_notes)
            self.progress.update(decided=decided)
            self.progress.say("round %d: task %s, %s, %d of %d cells decided"
                              % (number, uuid or ", ".join(kept_from),
                                 rally_runs.minutes(seconds),
                                 decided, self.total))
            if decided == self.total:
                self._save(planned=[])
                break
            planned = self._next_round(document, uuid, report, left,
                                       seconds, self.looks - number)
            self._save(planned=campaign.cells_list(planned))
            if not planned:
                break
        return left, uuids, rounds, document

    def _next_round(self, document, uuid, report, left, seconds, rounds):
        """The cells the next round runs: within reach, fitting the budget.

        rounds: how many are left after this one.
        """
        beyond = budget.out_of_reach(report, left, rounds, self.pairs,
                                     keep=self.instrument) if rounds else {}
        self.out_of_reach = budget.reach_lines(beyond)
        if beyond:
            self.progress.say("measured no more, out of reach of the %d "
                              "round(s) left: %s" % (
                                  rounds, "; ".join(self.out_of_reach)))
        left = budget.within_reach(left, beyond)
        todo = sum(1 for tests in left.values() if tests)
        costs, overhead, forms = budget.cell_costs(
            document, uuid, left, seconds, self.pairs)
        room = self.budget - self.progress.elapsed()
        planned = budget.fit_cells(left, costs, overhead, room, forms,
                                   first=planner.unanswered(report, left))
        if not planned:
            self.progress.say("stopping: %s" % (
                "another round would not end within the budget of %s"
                % rally_runs.minutes(self.budget) if todo
                else "no undecided cell is within reach"))
        elif len(planned) < todo:
            self.progress.say(
                "next round: the %d undecided cell(s) of %d that fit in "
                "the %s left" % (len(planned), todo, rally_runs.minutes(room)))
        return planned

    def _choose_pairing(self, interrupt):
        """Each step's {kind: mode} (decide/pairing.py), said and kept."""
        setting = self.pairing["setting"]
        if setting == pairing_lib.cpu_pairs.SEQUENTIAL:
            return
        tests = self.args.get("tests", [])
        steps, notes = pairing_lib.steps_at_once(
            self.args, self.steps, setting=setting)
        self.pairing["notes"] += notes
        for note in notes:
            self.progress.say(note)
        if not steps or not pairing_lib.kinds_of(tests):
            return
        if setting == pairing_lib.cpu_pairs.AT_ONCE:
            self.pairing["modes"] = pairing_lib.forced(setting, steps, tests)
            return
        pairs = max(self.pairs, pairing_lib.CALIBRATION_PAIRS)
        plan = pairing_lib.calibration_plan(steps, tests, pairs)
        self.progress.say("pairing: the A/A at once and in sequence first, "
                          "at %s at once (%d pairs each), to choose" % (
                              ", ".join(map(str, steps)), pairs))
        uuid, _ = self._round(1, plan, interrupt, looks=1)
        if uuid is None:
            return
        document = self.reads.report([uuid], os.path.join(
            self.out, pairing_lib.CALIBRATION_FILE))
        modes, facts, lines = pairing_lib.choose(
            comparison.build([document]), steps, tests)
        self.pairing.update(modes=modes, calibration=facts,
                            calibration_task=uuid)
        self.pairing["notes"] += lines
        for line in lines:
            self.progress.say(line)

    def _round(self, number, plan, interrupt, looks=None):
        """Run round number.

        Returns its task's uuid (None when interrupted) and whether the
        budget ended it after a workload (rally_runs.BudgetStop).
        """
        round_args = dict(self.args, plan=plan, round_number=number,
                          looks=looks or self.looks, paired=True)
        self.progress.update(round=number)
        offset = os.path.getsize(self.log_path) \
            if os.path.exists(self.log_path) else 0
        uuid, code, cut = rally_runs.run_round(
            self.rally, self.task, round_args, self.env, self.log_path,
            self.progress, plan, self.tags, interrupt, self.yielding,
            watch=self._watch(number))
        if interrupt.seen and uuid is None:
            return None, False
        status = self.reads.status(uuid) if uuid \
            else "not started"
        if status not in ("finished", "aborted"):
            raise planner.DecideError(
                "round %d: task %s is %s (rally exit %d): %s"
                % (number, uuid, status, code,
                   rally_runs.errors(self.log_path, offset)))
        return uuid, cut

    def _choose_margins(self, document, report):
        """Margins of the auto kinds from round 1's cells of each kind.

        One for the kind, one for each step's cells ("cpu at 1") and for
        those paired at once ("cpu at once"), each from its own cells'
        pairs and held at what its A/A's can settle. For the waves the
        whole run plans (pairs_per_round x max_rounds), so the margin does
        not hang on how long round 1 took; never above MAX_AUTO_MARGIN,
        beyond which "equivalent" would say nothing.
        """
        rounds = self.looks
        # one dip of the host sets no margin; the A/A's floor counts all
        spreads = planner.pair_spreads(report, self.platform_cells,
                                       "pair_sd_robust")
        floors = pairing_lib.with_calibration(planner.pair_spreads(
            report, self.instrument_aa()), self.out, self.steps,
            self.args.get("tests", []))
        roomy, _ = pairing_lib.steps_at_once(self.args, self.steps)
        for kind in self.auto:
            floor = self.margins.get(kind)
            # the kind's, then each step's and at once's where they paired
            own = sorted(key for key in spreads if key != kind
                         and margins_lib.kind_of_key(key) == kind)
            for key in [kind] + own:
                lowest = pairing_lib.margin_floor(key, floor, roomy)
                sd = planner.upper_quartile(spreads.get(key, []))
                chosen = sequential.margin_from_noise(
                    sd, self.pairs * rounds, self.looks, floor=lowest)
                # never narrower than the A/A's own pairs can hold
                aa_sd = max(floors[key]) if floors.get(key) else None
                held = sequential.margin_from_noise(
                    aa_sd, self.pairs * rounds, self.looks, floor=lowest)
                self.margins[key] = planner.auto_margin(chosen, held)
                self.margin_notes[key] = {
                    "pair_sd": sd, "pairs": self.pairs * rounds,
                    "margin": self.margins[key], "aa_pair_sd": aa_sd,
                    "aa_margin": held}
                self.progress.say(planner.margin_message(
                    key, self.margins[key], sd, len(spreads.get(key, [])),
                    self.pairs * rounds, aa_sd, held))
        return comparison.build([document], margins=self.margins)

    def instrument_aa(self):
        return {cell: tests for cell, tests in self.instrument.items()
                if native.is_aa(cell[0])}
