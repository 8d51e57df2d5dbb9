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
level for the report; every verdict comes from the pairs.

Rally runs as a child process (its output in rally-task.log); the
progress is one updating line on a terminal, plain lines in a file.
"""

import collections
import json
import os
import random
import statistics
import sys
import time

from rally_container_bench import decide_budget as budget
from rally_container_bench.engines import catalog
from rally_container_bench.engines import registry
from rally_container_bench import rally_reads
from rally_container_bench import rally_runs
from rally_container_bench.report import comparison
from rally_container_bench.report import equivalence
from rally_container_bench.report import render
from rally_container_bench.report import sequential
from rally_container_bench.validity import compute_hosts as host_access
from rally_container_bench.workloads import tests as tests_lib

NATIVE = comparison.NATIVE
DECIDED = ("equivalent", "worse", "better")
# An auto margin wider than this would make "equivalent" say nothing:
# cells that cannot be settled within it stay inconclusive, and say why.
MAX_AUTO_MARGIN = 0.25


class DecideError(Exception):
    pass


# A cloud task's cells that boot a VM (a local task's ask the catalog).
CLOUD_VMS = ("kvm", "kvm-tuned", "kvm-volume")


def units_of(args):
    """The run's cells by name, natives left out.

    A local task's platforms are engine names; a cloud task's platform
    "container" stands for its container targets (container: nova-lxc,
    nova-docker, zun), and Zun with several runtimes for one cell each
    (zun:runc, zun:runsc), as tasks/kvm_vs_docker.yaml names them.
    """
    found = []
    for platform in args.get("platforms", []):
        if platform == NATIVE:
            continue
        if platform != "container":
            found.append(platform)
            continue
        targets = args.get("container", "nova-lxc")
        for target in [targets] if isinstance(targets, str) else targets:
            runtimes = args.get("zun_runtime")
            if target == "zun" and isinstance(runtimes, list) \
                    and len(runtimes) > 1:
                found += ["zun:%s" % runtime for runtime in runtimes]
            else:
                found.append(target)
    return found


def cells_of(args):
    """{(cell, step): [test presets]} of the run, natives left out."""
    steps = args.get("concurrency", [1, 2])
    limits = args.get("max_concurrency", {})
    floors = args.get("min_concurrency", {})
    return {(cell, step): list(args.get("tests", []))
            for cell in units_of(args)
            for step in steps
            if floors.get(cell.split(":")[0], step) <= step
            <= limits.get(cell.split(":")[0], step)}


def natives_alone(args):
    """Whether native runs as cells of its own in round 1 (its level).

    Not on a cloud whose compute_hosts gives every instance its native
    twin on its own host, unless native_host names a host for it: the
    Rally host is never a stand-in for a compute host.
    """
    return NATIVE in args.get("platforms", []) and (
        args.get("compute_hosts") is None or bool(args.get("native_host")))


def times_for(step, pairs):
    """Iterations of a cell per round: ``pairs`` waves of step.

    A wave's pairs, measured at once, count as one observation
    (report/equivalence.py), so every step gets ``pairs`` a round.
    """
    return step * max(1, pairs)


def cell_runs(platform, step, pairs, booting_costs):
    """(times, repeat) of a cell's round.

    Waves where booting is cheap (containers): pairs of one instance
    share its placement (a container whose memory reads sit in the
    host's slower mode stays there), so separate instances keep the
    observations independent. Where booting costs a minute (a VM under
    TCG, booting_costs(platform) true): one wave, its tests repeated,
    each repeat a moment of its own.
    """
    if booting_costs(platform):
        return step, max(1, pairs)
    return times_for(step, pairs), 1


def _own_kernel(platform):
    try:
        return registry.instance_class(platform).own_kernel
    except catalog.UnknownEngine:  # a cloud's cell, or a typo validation
        return platform in CLOUD_VMS  # says so, before any boot


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
            rows = headline_rows(report, label, step, preset)
            if not rows or any(r["verdict"] not in DECIDED for r in rows):
                still.append(preset)
        left[(platform, step)] = still
    return left


def unanswered(report, left):
    """The undecided cells none of whose tests has an interval yet.

    Every run of theirs left out (a neighbour's load over all of them)
    or failed, or fewer waves than a verdict takes: they have no answer
    at all, where the others have one that is not sharp enough yet.
    """
    found = set()
    for (platform, step), presets in left.items():
        label = _label(report, platform)
        rows = [row for preset in presets
                for row in headline_rows(report, label, step, preset)]
        if presets and all(row["verdict"] is None for row in rows):
            found.add((platform, step))
    return found


def upper_quartile(values):
    """The SD an auto margin is chosen for: three cells in four hold it.

    Not the median, by which half the cells of a kind are noisier than
    their margin allows for (memory at +-2 % from a median 1.25 % left 3
    of 9 cells undecided after 18 pairs, 2026-11-29). None for no values.
    """
    if len(values) < 2:
        return values[0] if values else None
    return statistics.quantiles(values, n=4, method="inclusive")[2]


def pair_spreads(report, cells):
    """{kind: [pair SD of each cell's headline metric]}, decided or not.

    All of a kind's cells, not only those round 1 left undecided: those
    are by selection the noisiest, and two or three of them set a margin
    for the whole kind from their own spread (cpu +-3 % from 2 cells at
    2.2 % while the kind's 9 cells paired at a median 0.5 %, 2026-11-29).
    """
    spreads = collections.defaultdict(list)
    for (platform, step), presets in cells.items():
        label = _label(report, platform)
        for preset in presets:
            for row in headline_rows(report, label, step, preset):
                if row.get("pair_sd") is not None:
                    spreads[comparison.kind_of(row["metric"])].append(
                        row["pair_sd"])
    return spreads


def headline_rows(report, label, step, preset):
    spec = tests_lib.resolve(preset)
    prefix = "%s.%s." % (spec.tool, spec.label)
    headline = {m["name"] for m in report["metrics"] if m["headline"]}
    rows = comparison.rows_for(report, platform=label, concurrency=step)
    return [row for row in rows
            if row["metric"].startswith(prefix) and row["metric"] in headline]


def decide(rally, task, args, env, out, budget, max_rounds, pairs,
           margins=None, stream=sys.stdout, tags=("rcbench-decide",),
           harness_yields=False):
    """Run rounds; write the reports into out; return (summary, report).

    margins: {kind: fraction or "auto"}; an "auto" kind's margin is chosen
    after round 1 from the spread of its cells' pairs
    (report.sequential.margin_from_noise), its floor the default margin.
    harness_yields: Rally at the lowest CPU priority (rally_runs.yield_cpu;
    how: yield_kind).
    """
    run = SequentialRun(rally, task, args, env, out, budget, max_rounds,
                        pairs, margins, stream, tags, harness_yields)
    return run.run()


def refuse_unpaired(env_data, task_args, list_hosts):
    """DecideError when a cloud run would pair no test on its own host.

    rcbench decide settles each cell from its pairs; on a cloud a pair is
    the instance's test and its twin on the instance's compute host, so
    without compute_hosts every verdict would set the compute hosts
    against the Rally host (two instances on a one-CPU host read "-49 %
    worse" against native on two CPUs, 2026-12-02). list_hosts() ->
    {service: [hosts] or why not}: what the env's credentials see.
    """
    platforms = (env_data or {}).get("platforms") or {}
    if "openstack" not in platforms \
            or task_args.get("compute_hosts") is not None:
        return
    seen = list_hosts()
    lines = ["%s: %s" % (service, ", ".join(hosts) if isinstance(
        hosts, list) else hosts) for service, hosts in sorted(seen.items())]
    raise DecideError(
        "a cloud run needs compute_hosts: rcbench decide pairs every test "
        "with a native twin on the instance's own compute host (a verdict "
        "against native on the Rally host would compare two machines), "
        "and nothing says how to log in to them. The compute hosts this "
        "env sees: %s. Give them as --compute-hosts FILE (YAML or JSON: "
        "address, port, user, key_file, sysbench, workdir and per host "
        "overrides under hosts; %s), in the task args (compute_hosts), or "
        "in the Rally env's extras (compute_hosts: FILE); see %s."
        % ("; ".join(lines) or "none", host_access.EXAMPLE,
           host_access.GUIDE))


def yield_kind(args):
    """How Rally yields the CPU for these task args (harness_yields).

    A cloud task with compute_hosts runs every twin there, over SSH: Rally
    and its children may all yield. Else the twins are Rally's children:
    each goes into a session of its own, and only Rally's session yields,
    through the kernel's autogroup; without autogroup a nice would be
    inherited by the twins, so the setting is refused.
    """
    if args.get("compute_hosts") is not None:
        return rally_runs.CLOUD
    if not rally_runs.autogroup_enabled():
        raise DecideError(
            "harness_yields without compute_hosts needs the kernel's "
            "autogroup (%s is not 1): the native twins are Rally's "
            "children, and a lower priority of Rally alone would be "
            "theirs too; set it to 1 (sysctl kernel.sched_autogroup_"
            "enabled=1) or leave harness_yields out"
            % rally_runs.AUTOGROUP_ENABLED)
    return rally_runs.LOCAL


class SequentialRun:

    def __init__(self, rally, task, args, env, out, budget, max_rounds,
                 pairs, margins, stream, tags=("rcbench-decide",),
                 harness_yields=False):
        self.yielding = yield_kind(args) if harness_yields else None
        self.rally, self.task, self.args, self.env = rally, task, args, env
        self.reads = rally_reads.RallyReads.of_argv(rally)
        self.tags = list(tags)
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
            if natives_alone(args) else []
        self.total = sum(len(t) for t in self.cells.values())
        self.progress = rally_runs.Progress(budget, stream)
        self.progress.state.update(looks=max_rounds, cells=self.total,
                                   decided=0)
        self.log_path = os.path.join(out, "rally-task.log")

    def run(self):
        os.makedirs(self.out, exist_ok=True)
        open(self.log_path, "a").close()  # there to follow from the start
        with rally_runs.Interrupt() as interrupt:
            left, uuids, rounds, document = self._rounds(interrupt)
        if not uuids:
            raise DecideError("no round ran")
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
            "tasks": uuids, "interrupted": interrupt.seen,
            "sla_failed": [u for u, ok in zip(uuids, passed) if not ok],
            "made_by": report["made_by"]}
        for path, text in render.files(report, self.out).items():
            with open(path, "w") as f:
                f.write(text)
        with open(os.path.join(self.out, "decide.json"), "w") as f:
            json.dump(summary, f, indent=2, sort_keys=True)
        return summary, report

    def _rounds(self, interrupt):
        """Run the rounds.

        Returns (cells left undecided, the rounds' tasks, their
        summaries, Rally's JSON report of every round's task).
        """
        left, uuids, rounds = dict(self.cells), [], []
        document = None
        planned = left  # the cells the next round runs
        for number in range(1, self.looks + 1):
            started = time.monotonic()
            plan = plan_round(planned, number, self.args.get("seed", 1),
                              self.pairs,
                              self.natives if number == 1 else ())
            uuid, cut = self._round(number, plan, interrupt)
            if uuid is None:
                break
            uuids.append(uuid)
            document = self.reads.report(
                uuids, os.path.join(self.out, "rally.json"))
            report = comparison.build([document], margins=self.margins)
            seconds = time.monotonic() - started
            if number == 1 and self.auto:
                report = self._choose_margins(document, report)
            left = undecided(report, self.cells)
            decided = self.total - sum(len(t) for t in left.values())
            rounds.append({"round": number, "task": uuid, "seconds": round(
                seconds, 1), "cells": len(plan), "decided": decided,
                "cut_by_budget": cut})
            self.progress.update(decided=decided)
            self.progress.say("round %d: task %s, %s, %d of %d cells decided"
                              % (number, uuid, rally_runs.minutes(seconds),
                                 decided, self.total))
            if interrupt.seen or decided == self.total:
                break
            costs, overhead, forms = budget.cell_costs(document, uuid, left,
                                                       seconds)
            room = self.budget - self.progress.elapsed()
            planned = budget.fit_cells(left, costs, overhead, room, forms,
                                       first=unanswered(report, left))
            undecided_now = sum(1 for tests in left.values() if tests)
            if not planned:
                self.progress.say("stopping: another round would not end "
                                  "within the budget of %s"
                                  % rally_runs.minutes(self.budget))
                break
            if len(planned) < undecided_now:
                self.progress.say(
                    "next round: the %d undecided cell(s) of %d that fit "
                    "in the %s left" % (len(planned), undecided_now,
                                        rally_runs.minutes(room)))
        return left, uuids, rounds, document

    def _round(self, number, plan, interrupt):
        """Run round number.

        Returns its task's uuid (None when interrupted) and whether the
        budget ended it after a workload (rally_runs.BudgetStop).
        """
        round_args = dict(self.args, plan=plan, round_number=number,
                          looks=self.looks, paired=True)
        self.progress.update(round=number)
        offset = os.path.getsize(self.log_path) \
            if os.path.exists(self.log_path) else 0
        uuid, code, cut = rally_runs.run_round(
            self.rally, self.task, round_args, self.env, self.log_path,
            self.progress, plan, self.tags, interrupt, self.yielding)
        if interrupt.seen and uuid is None:
            return None, False
        status = self.reads.status(uuid) if uuid \
            else "not started"
        if status not in ("finished", "aborted"):
            raise DecideError("round %d: task %s is %s (rally exit %d): %s"
                              % (number, uuid, status, code,
                                 rally_runs.errors(self.log_path, offset)))
        return uuid, cut

    def _choose_margins(self, document, report):
        """Margins of the auto kinds from round 1's cells of each kind.

        For the waves the whole run plans (pairs_per_round x max_rounds),
        so the margin does not hang on how long round 1 took; never above
        MAX_AUTO_MARGIN, beyond which "equivalent" would say nothing.
        """
        rounds = self.looks
        spreads = pair_spreads(report, self.cells)
        for kind in self.auto:
            sd = upper_quartile(spreads[kind])
            chosen = sequential.margin_from_noise(
                sd, self.pairs * rounds, self.looks,
                floor=self.margins.get(kind))
            self.margins[kind] = min(MAX_AUTO_MARGIN, chosen)
            self.margin_notes[kind] = {"pair_sd": sd, "pairs": self.pairs
                                       * rounds, "margin": self.margins[kind]}
            self.progress.say(margin_message(
                kind, self.margins[kind], sd, len(spreads[kind]),
                self.pairs * rounds))
        return comparison.build([document], margins=self.margins)


def margin_message(kind, margin, sd, cells, waves):
    """What rcbench decide says of an auto margin after round 1."""
    if sd is None:
        return ("margin of %s: +-%g %% kept, not chosen: round 1 paired no "
                "%s test with a native twin (a margin follows the pairs' "
                "spread), so the default stays" % (kind, 100 * margin, kind))
    return ("margin of %s: +-%g %% (from round 1: pair SD %.2f %%, the upper "
            "quartile of %d cells, for the %d waves a cell may get)"
            % (kind, 100 * margin, 100 * sd, cells, waves))


def _label(report, cell):
    """The report's platform label of a cell of the task."""
    for label, named in (report.get("cells") or {}).items():
        if named == cell:
            return label
    for found in report["platforms"]:
        if found["driver"] == cell:
            return found["label"]
    return None
