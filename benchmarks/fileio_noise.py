"""fileio's own noise on this host: which shape of the test pairs best.

    python -m benchmarks.fileio_noise [--pairs 8] [--rounds 2]
        [--workdir DIR] [--shapes quick kept 5s pinned 256m]

The quickstart leaves fileio out because an instance and its twin moved by
13 % (pair SD) through it. This measures plain native runs only, so what
it finds is the test's own noise, not the harness's: consecutive runs of
one shape make a pair, and a shape's pair SD is the SD of the pairs'
differences in % (as an instance and its twin's). Shapes run in blocks of
two pairs, in turn, `rounds` times over, so a slow minute of the host
falls on every shape. Each shape's SD is printed with its ratio to the
quickstart's shape (quick) measured in the same run, and the pairs a cell
would need for a +-5 % margin at that SD (95 % two one-sided tests, the
difference's mean 0).

Shapes (random read, 4 KiB blocks, one thread, O_DIRECT unless said):
  quick   quick-fileio-rndrd as the harness runs it: 64 MiB in 8 files laid
          out afresh (prepare) before each run, 2 s
  kept    the same files kept from run to run (one prepare per block)
  5s      as quick, 5 s a run
  1s      as quick, 1 s a run (half the quickstart's cost a pair)
  abba    as 1s, a pair's second side run twice between two of its first
          (first, second, second, first: quick's reading time; a drift
          of the disk within the pair cancels), each side's mean
  pinned  as quick, sysbench pinned to one CPU (taskset)
  crossed as quick, a pair's sides on CPUs 0 and 1, the first side's CPU
          alternating pair by pair (how a pair in sequence ran on two
          CPUs until 2026-12-06)
  256m    as quick, 256 MiB in 32 files
  cached  as quick without O_DIRECT: through the page cache
  both    256m and pinned

On this host (2-core VM, virtio disk; 2026-11-28), two runs: quick 11.0
and 8.3 %, pinned 7.1 and 14.0 %, 256m 4.7 and 12.3 %, kept 18.2 %, 5s
34.7 %, cached 13.2 %, both 11.4 % (8 and 12 pairs a shape). No shape
is steadily quieter: at 8-12 pairs an SD is known to +-25 %, and the
shapes swap places between runs. The noise is the disk's, not the
test's shape: plain runs alone pair at 8-14 %, which is where the
harness's instance-twin pairs were (13.2 %). A +-5 % margin then needs
~8-22 pairs a cell (the last column) when the true difference is 0.
2026-11-29, same host kind, 8 pairs: quick 5.7 %, kept 2.6 %, pinned
3.7 %, cached 2.1 %; then 12 pairs: quick 4.1 %, 1s 5.9 % (1.47 of
quick's: half the time a run, twice the pairs), kept 7.7 %.
2026-12-01, 12 pairs, two runs: quick 5.8 and 5.4 %, 1s 5.8 and 7.8 %,
abba 4.3 and 5.6 % (0.74 and 1.04 of quick's). With one file set per
side kept through 16 pairs (a script beside this one), abba's SD was
0.49, 0.87 and 0.68 of 2 s pairs' in three runs: a drift within a pair
cancels at times, but the disk's noise is mostly faster than a pair.
Running a pair's two sides at once paired at 0.15 %, but what it measures
is the two sides' contention, not a path's own cost: a side made slower
by strace (-20 % back to back on one CPU) read -37 % at once on that
CPU (they share it) and -0.6 % at once on two CPUs (they share the
disk's queue). Rejected for twins.
2026-12-06, KEK's local form (256 MiB in 8 files, kept, 2 s), 10 pairs
of each: both sides on one CPU 7.6 %, the two CPUs in turn 32.4 %. This
host's disk interrupts all land on CPU 1 (/proc/interrupts), where a
run read 72.2 MiB/s against 53.5 on CPU 0 (medians of 20): a pair that
crosses the CPUs measures them. `--shapes pinned crossed` shows it.
"""

import argparse
import dataclasses
import math
import os
import statistics
import subprocess
import sys
import tempfile
import time

from rally_container_bench.workloads.sysbench import command
from rally_container_bench.workloads.sysbench import parse
from rally_container_bench.workloads.sysbench import presets

SHAPES = {
    "quick": ({}, {}),
    "kept": ({}, {"kept": True}),
    "5s": ({"time": 5}, {}),
    "1s": ({"time": 1}, {}),
    "abba": ({"time": 1}, {"abba": True}),
    "pinned": ({}, {"cpu": 0}),
    "crossed": ({}, {"crossed": True}),
    "256m": ({"file_total_size": "256M", "file_num": 32}, {}),
    "cached": ({"file_extra_flags": None}, {}),
    "both": ({"file_total_size": "256M", "file_num": 32}, {"cpu": 0}),
}
METRIC = "read_mib_per_s"


def spec_of(overrides):
    return dataclasses.replace(presets.get("quick-fileio-rndrd"),
                               **overrides)


def sysbench(spec, version, phase, workdir, cpu=None):
    argv = command.build_argv(spec, version, phase)
    if cpu is not None:
        argv = ["taskset", "-c", str(cpu)] + argv
    return subprocess.run(argv, cwd=workdir, check=True,
                          capture_output=True, text=True).stdout


def one_run(spec, version, workdir, how, prepared, cpu=None):
    if not prepared:
        sysbench(spec, version, "prepare", workdir)
    out = sysbench(spec, version, "run", workdir,
                   how.get("cpu") if cpu is None else cpu)
    value = parse.parse(out).metrics[METRIC].value
    if not how.get("kept"):
        sysbench(spec, version, "cleanup", workdir)
    return value


def block(name, version, workdir, pairs):
    """pairs consecutive pairs of one shape: their differences in %."""
    overrides, how = SHAPES[name]
    spec = spec_of(overrides)
    if how.get("kept"):
        sysbench(spec, version, "prepare", workdir)
    diffs = []
    try:
        for pair in range(pairs):
            runs = [one_run(spec, version, workdir, how, how.get("kept")
                            and i > 0,
                            (pair + i) % 2 if how.get("crossed") else None)
                    for i in range(4 if how.get("abba") else 2)]
            first, second = runs if len(runs) == 2 else (
                statistics.mean([runs[0], runs[3]]),
                statistics.mean(runs[1:3]))
            diffs.append(100.0 * (second - first) / first)
    finally:
        sysbench(spec, version, "cleanup", workdir)
    return diffs


def pairs_for(sd, margin=5.0):
    """Pairs that give a 95 % TOST +-margin when the mean difference is 0."""
    return math.ceil((1.645 * sd / margin) ** 2) if sd else 1


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=8,
                        help="pairs of each shape in all (default 8)")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--shapes", nargs="+", choices=sorted(SHAPES),
                        default=["quick", "kept", "5s", "pinned", "256m"])
    parser.add_argument("--workdir", default=None,
                        help="where the files go (default: the temp dir)")
    args = parser.parse_args(argv)
    version = command.parse_version(subprocess.run(
        ["sysbench", "--version"], capture_output=True, text=True).stdout)
    diffs = {name: [] for name in args.shapes}
    per_block = max(1, args.pairs // args.rounds)
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="rcbench-fileio-noise-",
                                     dir=args.workdir) as workdir:
        for round_no in range(args.rounds):
            for name in args.shapes:
                diffs[name] += block(name, version, workdir, per_block)
                print("round %d/%d %-7s %d pairs so far (%.0f s)"
                      % (round_no + 1, args.rounds, name, len(diffs[name]),
                         time.monotonic() - started), file=sys.stderr)
    reference = statistics.stdev(diffs["quick"]) if "quick" in diffs \
        else None
    print("sysbench %s fileio rndrd, %s, %d pairs per shape, %.0f s"
          % (version, os.uname().nodename, len(diffs[args.shapes[0]]),
             time.monotonic() - started))
    print("%-8s %10s %10s %14s %s" % (
        "shape", "pair SD %", "mean %", "pairs for 5%", "SD / quick's"))
    for name in args.shapes:
        sd = statistics.stdev(diffs[name])
        print("%-8s %10.1f %+10.1f %14d %s" % (
            name, sd, statistics.mean(diffs[name]), pairs_for(sd),
            "%.2f" % (sd / reference) if reference else "-"))


if __name__ == "__main__":
    main()
