"""Pairs in sequence against pairs at once: pair SD and bias, measured.

    python -m benchmarks.pairs_at_once --pairs 32 --out DIR
    python -m benchmarks.pairs_at_once --from DIR/rally.json

One Rally task (rcbench decide's round runner, Rally yielding the CPU
where the kernel has autogroup) of four cells at concurrency 1, run in
alternating blocks of BLOCK pairs so that the hour's drift falls alike
on all four:

- native against native (NativeHost.against_twin), in sequence and at
  once (native-aa, native-aa-at-once);
- a container (docker by default) against native, in sequence and at
  once (LocalInstances.boot_sysbench_delete with native_twin).

For cpu and memory read it prints, per cell, the pairs kept, the pair SD
(of the within-pair log ratios) and the bias (the mean ratio, with its
95 % CI), and the at-once SD as a share of the sequential one. The sides
alternate between the two CPUs (validity.cpu_pairs.sides); the start
skew of the pairs at once is printed too.

Then the same native pairs with no harness at all ("bare native-aa"):
the same sysbench commands pinned with taskset, started by this process
one after the other or together, nothing else running. Where the bare
pairs are as noisy as the harness's, the floor is the host's; where
they are steadier, the harness adds the difference (issue 79: "nothing
of the harness runs on either CPU ..., or its share is measured").

On the 2-vCPU CI host, 2026-12-07 18:12 (32 pairs each): cpu pair SD at
once / in sequence native-aa 1.40 / 1.06 %, docker 1.73 / 0.68 %; bare
1.74 / 0.90 %. At once was the noisier there, with the harness and
without: that host's two vCPUs dip apart, and drift between the two runs
of a pair was the smaller part.
"""

import argparse
import collections
import json
import math
import os
import statistics
import subprocess
import sys

from scipy import stats

from benchmarks import instrument_check
from rally_container_bench.engines.native import instance as native
from rally_container_bench.report import results
from rally_container_bench.validity import cpu_pairs
from rally_container_bench.workloads import metrics
from rally_container_bench.workloads.sysbench import command
from rally_container_bench.workloads.sysbench import parse
from rally_container_bench.workloads import tests as tests_lib

TESTS = ["quick-cpu", {"preset": "quick-memory-read",
                       "memory_total_size": "4G"}]
HEADLINES = ("sysbench.cpu.events_per_s", "sysbench.memory.read.mib_per_s")
BLOCK = 2
BARE = "bare native-aa"
BARE_FILE = "bare.json"


def plan_of(pairs, engine):
    """The task's plan: the four cells in turn, BLOCK pairs at a time."""
    cells = ((native.AA, cpu_pairs.SEQUENTIAL),
             (native.AA_AT_ONCE, cpu_pairs.AT_ONCE),
             (engine, cpu_pairs.SEQUENTIAL), (engine, cpu_pairs.AT_ONCE))
    return [[cell, 1, TESTS, BLOCK, 1, mode]
            for _ in range(-(-pairs // BLOCK)) for cell, mode in cells]


def pairs_of(document):
    """{(cell, mode, metric): [(instance, twin, skew_ms)]} of final pairs."""
    found = collections.defaultdict(list)
    for task in results.tasks_of(document):
        for subtask in task["subtasks"]:
            for workload in subtask["workloads"]:
                for iteration in workload["data"]:
                    _iteration_pairs(iteration, found)
    return found


def _iteration_pairs(iteration, found):
    cell = results.environment_of(iteration).get("driver")
    sides = collections.defaultdict(dict)
    for table in iteration.get("output", {}).get("complete", []):
        if table.get("title") != metrics.RECORDS_TITLE:
            continue
        for record in metrics.records_from(table):
            facts = record.metadata
            if record.metric not in HEADLINES or not facts.get("final") \
                    or facts.get("disturbed"):
                continue
            key = (record.metric, facts.get("repeat"), facts.get("attempt"))
            side = "twin" if facts.get("twin") else "instance"
            sides[key][side] = record.value
            sides[key]["mode"] = facts.get("pairing", results.IN_SEQUENCE)
            sides[key]["skew"] = facts.get("skew_ms")
    for (metric, _, _), got in sides.items():
        if "twin" in got and "instance" in got:
            found[(cell, got["mode"], metric)].append(
                (got["instance"], got["twin"], got["skew"]))


def bare_pairs(pairs, seed, first=0):
    """{(BARE, mode, metric): [(side a, side b, None)]}: no harness.

    Each test's sysbench command as native runs it, pinned with taskset:
    in sequence on one CPU (the CPU and the order alternating), and at
    once on two CPUs of cores of their own (the sides alternating as
    cpu_pairs.sides has them), both started by this process together,
    which one first alternating too. first: the number of the first pair
    (the pairs after the task go on from those before it).
    """
    pair, why = cpu_pairs.pair_of(0, 1, *cpu_pairs.host_cpus())
    if pair is None:
        raise SystemExit("bare pairs: %s" % why)
    version = command.parse_version(subprocess.run(
        ["sysbench", "--version"], capture_output=True, text=True,
        check=True).stdout)
    found = collections.defaultdict(list)
    for test, metric in zip(TESTS, HEADLINES):
        argv = command.build_argv(tests_lib.resolve(test), version)
        name = metric.rsplit(".", 1)[1]
        for n in range(first, first + pairs):
            # the CPU of the pair in sequence: side a's at once in half
            # the pairs, b's in the other half (a vCPU busy just before
            # read 1.4 % faster at once on the CI host, 2026-12-07)
            cpu = pair[(n // 2) % 2]
            (a,), (b,) = (_rates([cpu], argv, name) for _ in "ab")
            found[(BARE, results.IN_SEQUENCE, metric)].append(
                (a, b, None) if n % 4 < 2 else (b, a, None))
            sides = cpu_pairs.sides(pair, seed, n)
            a, b = _rates(sides, argv, name) if n % 4 < 2 else \
                _rates(sides[::-1], argv, name)[::-1]
            found[(BARE, results.AT_ONCE, metric)].append((a, b, None))
    return found


def _rates(cpus, argv, name):
    """(metric of argv on each of cpus): all started together."""
    runs = [subprocess.Popen(["taskset", "-c", str(c)] + argv,
                             stdout=subprocess.PIPE, text=True)
            for c in cpus]
    return tuple(parse.parse(p.communicate()[0]).metrics[name].value
                 for p in runs)


def figures(found):
    """[{cell, mode, metric, pairs, sd, bias, ci, skew_ms}] of each group."""
    rows = []
    for (cell, mode, metric), pairs in sorted(found.items()):
        logs = [math.log(a / b) for a, b, _ in pairs]
        n = len(logs)
        sd = statistics.stdev(logs) if n > 1 else None
        mean = statistics.fmean(logs)
        half = stats.t.ppf(0.975, n - 1) * sd / math.sqrt(n) if sd else None
        skews = [abs(s) for _, _, s in pairs if s is not None]
        rows.append({
            "cell": cell, "mode": mode, "metric": metric, "pairs": n,
            "sd": sd, "bias": math.expm1(mean),
            "ci": None if half is None else (math.expm1(mean - half),
                                             math.expm1(mean + half)),
            "skew_ms": max(skews) if skews else None})
    return rows


def show(rows, stream=sys.stdout):
    print("%-20s %-12s %-32s %5s %8s %24s %9s" % (
        "cell", "mode", "metric", "pairs", "pair SD", "bias [95 % CI]",
        "skew max"), file=stream)
    for r in rows:
        print("%-20s %-12s %-32s %5d %7.2f%% %+7.2f%% [%+.2f, %+.2f] %9s" % (
            r["cell"], r["mode"], r["metric"], r["pairs"],
            100 * (r["sd"] or 0), 100 * r["bias"],
            *(100 * x for x in (r["ci"] or (0, 0))),
            "–" if r["skew_ms"] is None else "%.2f ms" % r["skew_ms"]),
            file=stream)
    by = {(r["cell"], r["mode"], r["metric"]): r for r in rows}
    for cell in sorted({r["cell"] for r in rows}):
        for metric in HEADLINES:
            once = by.get((cell, results.AT_ONCE, metric))
            seq = by.get((cell, results.IN_SEQUENCE, metric))
            if once and seq and once["sd"] and seq["sd"]:
                print("%s %s: pair SD at once / in sequence = %.2f" % (
                    cell, metric, once["sd"] / seq["sd"]), file=stream)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--pairs", type=int, default=32,
                   help="pairs per cell and mode (default 32)")
    p.add_argument("--engine", default="docker",
                   help="the container engine against native")
    p.add_argument("--env", default="rcbench-local")
    p.add_argument("--rally-config")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--bare-pairs", type=int,
                   help="native pairs with no harness, per test and mode "
                        "(default: --pairs; 0: none)")
    p.add_argument("--budget-s", type=float, default=1800)
    p.add_argument("--out", default="benchmark-pairs-at-once")
    p.add_argument("--from", dest="source",
                   help="a rally.json of an earlier run: read it only")
    args = p.parse_args(argv)
    if args.source:
        with open(args.source) as f:
            document = json.load(f)
        bare = _bare_read(args.source)
    else:
        # the bare pairs half before the task, half after: the hour's
        # drift falls alike on them and on the harness's
        count = args.pairs if args.bare_pairs is None else args.bare_pairs
        bare = bare_pairs(count // 2, args.seed) if count > 1 else {}
        document = instrument_check.run_task(
            args, plan_of(args.pairs, args.engine), {"looks": 1},
            "rcbench-pairs-at-once")
        if count > 0:
            after = bare_pairs(count - count // 2, args.seed,
                               first=count // 2)
            for key, pairs in after.items():
                bare.setdefault(key, []).extend(pairs)
            _bare_write(args.out, bare)
    found = pairs_of(document)
    found.update(bare)
    rows = figures(found)
    show(rows)
    if args.out and not args.source:
        with open(os.path.join(args.out, "figures.json"), "w") as f:
            json.dump(rows, f, indent=2)
    return 0


def _bare_read(source):
    """The bare pairs written beside an earlier run's rally.json, or {}."""
    path = os.path.join(os.path.dirname(source), BARE_FILE)
    if not os.path.exists(path):
        return {}
    with open(path) as f:
        return {tuple(key.split("|")): [tuple(p) for p in pairs]
                for key, pairs in json.load(f).items()}


def _bare_write(out, found):
    with open(os.path.join(out, BARE_FILE), "w") as f:
        json.dump({"|".join(key): pairs for key, pairs in found.items()},
                  f, indent=1)


if __name__ == "__main__":
    sys.exit(main())
