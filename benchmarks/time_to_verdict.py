"""The instrument's own figure: machine time to a verdict, old way vs new.

    python -m benchmarks.time_to_verdict [--platforms docker lxc ...]
        [--concurrency 1 2] [--tests quick-cpu quick-memory-read]
        [--times 4] [--budget-s 600] [--max-rounds 3] [--pairs 6]
        [--pinned-vs-unpinned] [--like tasks/args/local-quick.yaml]

--like FILE: the tests and harness_yields of an args file (the
quickstart's, say), not --tests and no yielding.
--pinned-vs-unpinned: instead of the old way, the new way twice in one
run, its pairs unpinned and pinned (each instance and its twin on one
host CPU): the pair SD per kind of test and the machine seconds per
decided cell of both, as ratios.

On this host, in one run: the same cells (platform x concurrency x test)
measured the new way — rcbench decide: native twins, foreign load
re-measured, rounds until decided within the budget, margins chosen from
round 1's spread (auto) — and then the old way — one task, fixed n
(times, in 2 interleaved rounds), unpaired against native alone, Welch's
t — judged at the same margins. Each cell's machine time is the summed
duration of its platform-step workloads (native's shared among the
platforms of its step): the old way's whole task, the new way's rounds.
Prints per cell the verdicts and machine seconds of both ways, the share
of cells decided, and machine seconds per decided cell.
"""

import argparse
import collections
import json
import os
import subprocess
import sys
import tempfile
import time

from rally_container_bench.decide import plan as planner
from rally_container_bench.decide import settings as decide_settings
from rally_container_bench.report import comparison
from tests.functional import helpers

TASK = os.path.join(helpers.TOP, "tasks", "local_kvm_vs_containers.yaml")


def machine_seconds(document, report):
    """{(label, step): seconds} of workloads, native's split over the rest."""
    by_driver = {p["driver"]: p["label"] for p in report["platforms"]}
    seconds = collections.Counter()
    for workload in helpers.workloads(document):
        args = next(iter(workload["scenario"].values()))
        step = next(iter(workload["runner"].values()))["concurrency"]
        label = by_driver.get(args.get("driver", "native"), "native")
        seconds[(label, step)] += workload.get("full_duration") or 0
    for (label, step), value in list(seconds.items()):
        if label == "native":
            others = [k for k in seconds if k[1] == step and k[0] != label]
            for key in others:
                seconds[key] += value / len(others)
    return seconds


def verdicts(report, cells):
    """{(label, step, preset): verdict} of the cells' headline metrics."""
    labels = {p["driver"]: p["label"] for p in report["platforms"]}
    found = {}
    for (platform, step), presets in cells.items():
        for preset in presets:
            rows = planner.headline_rows(report, labels.get(platform), step,
                                         preset)
            name = preset if isinstance(preset, str) else json.dumps(
                preset, sort_keys=True)  # a preset with overrides
            found[(labels.get(platform, platform), step, name)] = (
                rows[0]["verdict"] if rows else None)
    return found


def old_way(home, args, margins):
    uuid, _ = home.start(TASK, "--task-args", json.dumps(
        dict(args, rounds=2)), timeout=3600)
    document = home.results(uuid)
    report = comparison.build([document], margins=margins)
    return report, machine_seconds(document, report)


def pinned_vs_unpinned(home, args, settings, cells):
    """Both ways of pairing in one run, unpinned first; prints ratios."""
    found = {}
    for pinned in (False, True):
        with tempfile.TemporaryDirectory(prefix="rcbench-ttv-") as out:
            started = time.monotonic()
            report, seconds, _ = new_way(home, dict(args, pinned=pinned),
                                         settings, out)
            found[pinned] = (report, seconds, time.monotonic() - started)
    print("%-10s %-9s %-9s %s" % ("pairs", "kind", "pair SD",
                                  "machine-s per decided cell"))
    costs = {}
    for pinned, (report, seconds, wall) in sorted(found.items()):
        name = "pinned" if pinned else "unpinned"
        judged = verdicts(report, cells)
        done = sum(1 for v in judged.values() if v in planner.DECIDED)
        spent = sum(seconds[(k[0], k[1])] for k in judged)
        costs[pinned] = spent / done if done else None
        for noise in report.get("noise", []):
            print("%-10s %-9s %7.2f %%  %s" % (
                name, noise["kind"], 100 * noise["pair_sd"],
                "%.0f (%d of %d decided, wall %.0f s)" % (
                    costs[pinned] or spent, done, len(judged), wall)))
    sds = {pinned: {n["kind"]: n["pair_sd"] for n in found[pinned][0].get(
        "noise", [])} for pinned in found}
    for kind in sorted(sds[True]):
        if sds[False].get(kind):
            print("pair SD of %s, pinned / unpinned: %.2f"
                  % (kind, sds[True][kind] / sds[False][kind]))
    if costs[True] and costs[False]:
        print("machine-s per decided cell, pinned / unpinned: %.2f"
              % (costs[True] / costs[False]))


def new_way(home, args, settings, out):
    env = dict(os.environ, HOME=home.path, XDG_CACHE_HOME=helpers.CACHE_HOME)
    args_file = os.path.join(out, "args.json")
    with open(args_file, "w") as f:
        json.dump(dict(args, decide=settings), f)
    subprocess.run([os.path.join(helpers.BIN, "rcbench"), "decide",
                    "--task", TASK, "--task-args-file", args_file,
                    "--env", "local", "--out", out, "--rally-config",
                    home.conf], check=True, env=env, cwd=helpers.TOP,
                   stdout=sys.stderr)
    with open(os.path.join(out, "rally.json")) as f:
        document = json.load(f)
    with open(os.path.join(out, "comparison.json")) as f:
        report = json.load(f)
    with open(os.path.join(out, "decide.json")) as f:
        margins = json.load(f)["margins"]
    return report, machine_seconds(document, report), margins


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--platforms", nargs="+",
                        default=["docker", "podman-crun", "lxc"])
    parser.add_argument("--concurrency", nargs="+", type=int, default=[1, 2])
    parser.add_argument("--tests", nargs="+",
                        default=["quick-cpu", "quick-memory-read"])
    parser.add_argument("--times", type=int, default=4,
                        help="the old way's fixed iterations per step")
    parser.add_argument("--budget-s", type=float, default=600)
    parser.add_argument("--max-rounds", type=int, default=3)
    parser.add_argument("--pairs", type=int, default=6,
                        help="the new way's pairs per cell and round")
    parser.add_argument("--like", metavar="ARGS_FILE",
                        help="take the tests and harness_yields of this "
                             "task args file")
    parser.add_argument("--pinned-vs-unpinned", action="store_true",
                        help="the new way with its pairs unpinned, then "
                             "pinned, instead of the old way")
    options = parser.parse_args()
    settings = {"budget_s": options.budget_s,
                "max_rounds": options.max_rounds,
                "pairs_per_round": options.pairs,
                "margins": {"cpu": "auto", "memory": "auto",
                            "disk": "auto"}}
    tests = options.tests
    if options.like:
        like = decide_settings.read_task_args(options.like, None)
        tests = like["tests"]
        settings["harness_yields"] = decide_settings.settings_of(like)[
            "harness_yields"]
    args = {"platforms": ["native"] + options.platforms,
            "concurrency": options.concurrency, "tests": tests,
            "times": options.times, "seed": 1}
    cells = planner.cells_of(args)
    home = helpers.RallyHome()
    if options.pinned_vs_unpinned:
        try:
            pinned_vs_unpinned(home, args, settings, cells)
        finally:
            home.close()
        return
    try:
        with tempfile.TemporaryDirectory(prefix="rcbench-ttv-") as out:
            started = time.monotonic()
            new_report, new_seconds, margins = new_way(home, args, settings,
                                                       out)
            new_wall = time.monotonic() - started
        started = time.monotonic()
        old_report, old_seconds = old_way(home, args, margins)
        old_wall = time.monotonic() - started
    finally:
        home.close()
    old, new = verdicts(old_report, cells), verdicts(new_report, cells)
    print("margins (chosen by the new way from its round 1, applied to "
          "both): %s" % json.dumps(margins, sort_keys=True))
    print("%-34s %-13s %9s %-13s %9s" % ("cell", "old verdict", "old s",
                                         "new verdict", "new s"))
    for key in sorted(old):
        label, step, preset = key
        print("%-34s %-13s %9.0f %-13s %9.0f" % (
            "%s at %d, %s" % key, old[key], old_seconds[(label, step)],
            new[key], new_seconds[(label, step)]))
    decided = lambda found: sum(  # noqa
        1 for v in found.values() if v in planner.DECIDED)
    print("cells decided: old %d of %d, new %d of %d"
          % (decided(old), len(old), decided(new), len(new)))

    def per_decided(found, seconds):
        spent = sum(seconds[(k[0], k[1])] for k in found)
        if not decided(found):
            return "%.0f machine-s, no cell decided" % spent
        return "%.0f machine-s per decided cell" % (spent / decided(found))
    print("old: %s, wall %.0f s; new: %s, wall %.0f s (new/old wall %.2f)"
          % (per_decided(old, old_seconds), old_wall,
             per_decided(new, new_seconds), new_wall, new_wall / old_wall))


if __name__ == "__main__":
    main()
