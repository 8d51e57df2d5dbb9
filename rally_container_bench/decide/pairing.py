"""How rcbench decide pairs each step's tests: at once or in sequence.

A step pairs at once where every pair of its wave can have two CPUs of
cores of their own (validity.cpu_pairs); only its cpu and memory tests
(a disk or a network is shared by both sides). Which of the two modes
is used is measured, not assumed: with ``pairing: auto`` a calibration
round runs the A/A (native against its own twin) both ways at each such
step, and each kind pairs at once only where

- its A/A pair SD at once is below the one in sequence (the floor the
  verdicts then stand on), and
- native's own level at once is within LEVEL_BOUND of its level alone
  (two sides that share a core's cache, a memory bus or a sibling
  thread slow each other: a level that drops is a cost, not noise).

Pure but for the report it reads (report.comparison) and the host's CPUs.
"""

import json
import os
import statistics

from scipy import stats

from rally_container_bench.decide import plan as planner
from rally_container_bench.engines.native import instance as native
from rally_container_bench.engines import registry
from rally_container_bench.report import comparison
from rally_container_bench.report import margins as margins_lib
from rally_container_bench.validity import cpu_pairs
from rally_container_bench.workloads import tests as tests_lib

AUTO = "auto"
SETTINGS = (AUTO,) + cpu_pairs.MODES
# Native's level at once may differ from its level alone by this much.
LEVEL_BOUND = 0.03


def kinds_of(tests):
    """{kind: [tests]} of the tests that may pair at once."""
    found = {}
    for test in tests:
        kind = cpu_pairs.kind_of(tests_lib.resolve(test))
        if kind in cpu_pairs.KINDS_AT_ONCE:
            found.setdefault(kind, []).append(test)
    return found


def steps_at_once(args, steps, host_cpus=cpu_pairs.host_cpus,
                  setting=AUTO):
    """({step: None} of the steps that may pair at once, notes on the rest).

    A local task's steps whose pairs each get two CPUs on cores of their
    own. A cloud's twins run on the compute hosts, where each instance's
    host decides (its pinned vCPU, a free core for the twin;
    task/scenarios/cloud.py): all its steps when at-once is asked, none
    with auto (the calibration reads this host's A/A, not theirs).
    """
    if args.get("compute_hosts") is not None or not set(
            planner.units_of(args)) <= set(registry.INSTANCE_NAMES):
        if setting == cpu_pairs.AT_ONCE:
            return list(steps), [
                "pairing: at once asked on a cloud: each instance's compute "
                "host pairs at once where the instance's vCPU is pinned and "
                "another core is free for its twin, else in sequence, and "
                "each cell says why"]
        return [], ["pairing: in sequence on a cloud (auto chooses from a "
                    "calibration on this host, not on the compute hosts; "
                    "pairing: at-once pairs at once where a compute host "
                    "can)"]
    usable, siblings = host_cpus()
    found, notes = [], []
    for step in steps:
        pair, why = cpu_pairs.pair_of(0, step, usable, siblings)
        if pair is None:
            notes.append("pairing at %d at once: in sequence (%s)"
                         % (step, why))
        else:
            found.append(step)
    return found, notes


# An auto margin is never below this where a cell's pairs have the host's
# floor: pairs at once, and pairs in sequence at a step that could pair at
# once (its instances and twins use half the host's CPUs at most: the
# harness and the engines' daemons keep CPUs of their own). There the
# pairs' floor lies under KEK's +-2 % resolution: cpu pair SD at 1 in
# sequence 0.59-0.64 %, A/A 0.26-0.70 %, on fresh machines of the CI
# kind (2026-12-05), 0.4-0.75 % at once on the fresh machine of
# 2026-12-04. Other steps keep the kind's floor: at 2 on 2 cores every
# CPU runs a test and the harness among them (cpu pair SD 0.8-2.4 %),
# and at +-1 % there four of nine cpu cells of README command 1's first
# round stayed undecided (2026-12-05).
PAIRED_FLOOR = 0.01


def margin_floor(key, kind_floor, steps_with_room):
    """The lowest auto margin of a margins' key ("cpu at 1", "cpu at once").

    steps_with_room: steps_at_once's steps (those whose pairs could run
    at once on this host; none on a cloud).
    """
    if margins_lib.is_at_once_key(key) \
            or margins_lib.step_of_key(key) in steps_with_room:
        return min(kind_floor, PAIRED_FLOOR)
    return kind_floor


def forced(setting, steps, tests):
    """{step: {kind: mode}} of a fixed setting (at-once, sequential)."""
    kinds = kinds_of(tests)
    return {step: {kind: setting for kind in kinds} for step in steps}


# The calibration's A/A cells run in blocks of this many waves, the two
# modes in turn: native's level at once against alone is read across
# minutes whose drift (2-4 % on the CI host) would pass for a cost.
BLOCK_WAVES = 2
# Pairs of each mode at least. The choice matters where the two modes'
# A/A SDs differ, and there 6 pairs each tell them apart: at a true
# ratio of 3 the wrong one looks steadier with odds 0.015 (F(5, 5));
# on this machine kind the ratio was 2.1-20 in six runs of README
# command 1 (cpu at once / in sequence 1.21 / 0.29 ... 0.91 / 0.29 %,
# 2026-12-05). Where they are close either mode pairs about as well. 10
# pairs cost README command 1 another 20 s of its 10 minutes, and the
# modes still swap with the hour (cpu 0.56 / 2.80 %, then 1.18 / 0.58 %,
# 2026-12-04), which more pairs within one run do not show.
CALIBRATION_PAIRS = 6
# At once is chosen where its A/A is steadier than in sequence beyond what
# chance gives two equal spreads: the F test of the two A/As' pair
# variances, one-sided at this level. Three calibrations of 6 pairs each
# within an hour on one 2-vCPU host (2026-12-07) chose cpu in sequence,
# at once, in sequence, and memory at once at 3.23 % against 3.38 %: its
# cells at 1 then paired at 22 % (a margin of +-25 %). At 6 pairs each, at
# once needs an SD under 0.45 of the sequential one; issue 79's host read
# 0.40 % against 2.5 %.
STEADIER_ALPHA = 0.05
CALIBRATION_FILE = "pairing-calibration.json"


def calibration_plan(steps, tests, pairs):
    """The calibration round's plan rows (plan_round's, with a pairing).

    At each step the A/A in sequence and at once, pairs waves each, in
    alternating blocks of BLOCK_WAVES.
    """
    bound = [t for ts in kinds_of(tests).values() for t in ts]
    plan = []
    if not bound:
        return plan
    for step in steps:
        left = max(1, pairs)
        while left > 0:
            waves = min(BLOCK_WAVES, left)
            left -= waves
            plan += [[cell, step, bound, planner.times_for(step, waves), 1,
                      mode] for cell, mode in (
                          (native.AA, cpu_pairs.SEQUENTIAL),
                          (native.AA_AT_ONCE, cpu_pairs.AT_ONCE))]
    return plan


def choose(report, steps, tests):
    """({step: {kind: mode}}, {kind: facts}, [lines]) from the calibration.

    report: the comparison of the calibration round. A kind pairs at
    once at every step where it may, when its A/A at once (over those
    steps) has the lower pair SD and native's level at once holds.
    """
    kinds = kinds_of(tests)
    modes, facts, lines = {}, {}, []
    for kind, presets in sorted(kinds.items()):
        found = {"aa_sd_at_once": _median(_aa(report, native.AA_AT_ONCE,
                                              steps, presets, "pair_sd")),
                 "aa_sd_in_sequence": _median(_aa(report, native.AA, steps,
                                                  presets, "pair_sd")),
                 "level_at_once": _median(_levels(report, steps, presets)),
                 "aa_pairs": _median(
                     _aa(report, native.AA_AT_ONCE, steps, presets, "moments")
                     + _aa(report, native.AA, steps, presets, "moments"))}
        at_once, why = _verdict(found)
        found.update(mode=cpu_pairs.SAID[at_once], why=why)
        facts[kind] = found
        modes[kind] = at_once
        lines.append("pairing of %s: %s (%s)" % (kind, found["mode"], why))
    return ({step: dict(modes) for step in steps}, facts, lines)


def with_calibration(floors, out, steps, tests):
    """floors ({margin key: [A/A pair SD]}) with the calibration's too.

    The calibration ran the A/A both ways at each step that may pair at
    once; round 1 runs it only the way each kind chose. A key round 1
    has no A/A for keeps the calibration's as its floor: "cpu at 1" in
    sequence (a VM's cell, the known effect) where round 1 paired cpu at
    once had its margin at +-1 % from its own cells' pairs, under the
    A/A's 2.24 % in sequence (README command 1, 2026-12-06).
    """
    path = os.path.join(out, CALIBRATION_FILE)
    if not os.path.exists(path):
        return floors
    with open(path) as f:
        report = comparison.build([json.load(f)])
    bound = [t for ts in kinds_of(tests).values() for t in ts]
    cells = {(cell, step): bound for step in steps
             for cell in (native.AA, native.AA_AT_ONCE)}
    merged = dict(floors)
    for key, found in planner.pair_spreads(report, cells).items():
        merged.setdefault(key, found)
    return merged


def _verdict(found):
    once, seq = found["aa_sd_at_once"], found["aa_sd_in_sequence"]
    level = found["level_at_once"]
    if once is None or seq is None:
        return cpu_pairs.SEQUENTIAL, "the calibration's A/A has no SD"
    said = "A/A pair SD %.2f %% at once, %.2f %% in sequence" % (
        100 * once, 100 * seq)
    if level is not None and abs(level) > LEVEL_BOUND:
        return cpu_pairs.SEQUENTIAL, (
            "%s; but native's level at once is %+.1f %% of its level alone,"
            " beyond +-%g %%: the sides slow each other" % (
                said, 100 * level, 100 * LEVEL_BOUND))
    level_said = "" if level is None else \
        "; native's level at once %+.1f %% of alone" % (100 * level)
    if steadier(once, seq, found.get("aa_pairs") or CALIBRATION_PAIRS):
        return cpu_pairs.AT_ONCE, said + level_said
    if once < seq:
        return cpu_pairs.SEQUENTIAL, said + (
            ": at once is not steadier beyond chance (F test at %g)"
            % STEADIER_ALPHA)
    return cpu_pairs.SEQUENTIAL, said + ": at once is no steadier here"


def steadier(once, seq, pairs):
    """Whether pair SD once is below seq beyond chance (pairs each)."""
    if pairs < 2 or seq <= once:
        return False
    if once == 0:
        return True
    return (seq / once) ** 2 > stats.f.ppf(1 - STEADIER_ALPHA, pairs - 1,
                                           pairs - 1)


def _aa(report, cell, steps, presets, field):
    label = planner.label_of(report, cell)
    return [row[field] for step in steps for preset in presets
            for row in planner.headline_rows(report, label, step, preset)
            if row.get(field) is not None]


def _levels(report, steps, presets):
    """Native's level at once against alone: the two A/As' own means."""
    found = []
    once = planner.label_of(report, native.AA_AT_ONCE)
    alone = planner.label_of(report, native.AA)
    for step in steps:
        for preset in presets:
            a = {r["metric"]: r for r in planner.headline_rows(
                report, once, step, preset)}
            b = {r["metric"]: r for r in planner.headline_rows(
                report, alone, step, preset)}
            for metric in set(a) & set(b):
                if a[metric].get("mean") and b[metric].get("mean"):
                    found.append(a[metric]["mean"] / b[metric]["mean"] - 1)
    return found


def _median(values):
    return statistics.median(values) if values else None
