"""How big the known effect really is: the busy neighbour's, no harness.

    python -m benchmarks.known_effect [--pairs 40] [--nice 10] [--cpu 1]

The instrument check's native-slowed cell claims its tests lose the
share the kernel's scheduler gives a busy neighbour at nice NICE on
their CPU (engines.native.known_effect: 9.70 % at 10). This measures
that claim alone: the quickstart's tests (sysbench cpu, memory read at
4G) run PAIRS times each beside the neighbour and alone, right after one
another on one host CPU, the order alternating, and prints per test the
mean ratio (beside / alone) as a change with its 95 % CI, and its
distance from the nominal. The effect is "known within +-0.5 %" when
that CI's half-width and its distance from nominal are both within it.
"""

import argparse
import subprocess
import sys

from rally_container_bench.engines.native import known_effect
from rally_container_bench.report import equivalence
from rally_container_bench.report import sequential
from rally_container_bench.workloads.sysbench import command
from rally_container_bench.workloads.sysbench import parse
from rally_container_bench.workloads.sysbench import presets

TESTS = (("quick-cpu", {}, "events_per_s"),
         ("quick-memory-read", {"memory_total_size": "4G"}, "mib_per_s"))


def run(argv):
    out = subprocess.run(argv, capture_output=True, text=True, check=True)
    return parse.parse(out.stdout)


def measure(pairs, nice, cpu, executable="sysbench"):
    """{test: [beside / alone ratio of each pair]}."""
    version = command.parse_version(subprocess.run(
        [executable, "--version"], capture_output=True, text=True).stdout)
    neighbour = known_effect.Neighbour(nice)
    pin = ["taskset", "-c", str(cpu)]
    found = {}
    for name, overrides, metric in TESTS:
        spec = presets.resolve(dict({"preset": name}, **overrides))
        argv = command.build_argv(spec, version, executable=executable)
        ratios = []
        for i in range(pairs):
            beside_first = i % 2 == 0
            sides = [pin + neighbour.wrap(argv), pin + argv]
            if not beside_first:
                sides.reverse()
            first, second = (run(a).metrics[metric].value for a in sides)
            beside, alone = (first, second) if beside_first \
                else (second, first)
            ratios.append(beside / alone)
        found[name] = ratios
    return found


def summary(ratios, expected):
    """The change (mean log ratio, 95 % t CI) as the report pairs it."""
    found = equivalence.paired_effect(ratios, [1.0] * len(ratios), True)
    return {"change": found.ratio - 1, "ci_low": found.ci_low - 1,
            "ci_high": found.ci_high - 1,
            "pair_sd": sequential.pair_sd(ratios, [1.0] * len(ratios)),
            "from_nominal": found.ratio - 1 - expected}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pairs", type=int, default=40)
    parser.add_argument("--nice", type=int, default=known_effect.DEFAULT_NICE)
    parser.add_argument("--cpu", type=int, default=1)
    args = parser.parse_args(argv)
    expected = -known_effect.share(args.nice)
    known = True
    for name, ratios in measure(args.pairs, args.nice, args.cpu).items():
        s = summary(ratios, expected)
        held = max(s["ci_high"] - s["change"], abs(s["from_nominal"])) \
            <= 0.005
        known &= held
        print("%-18s %d pairs on CPU %d: %+.2f %% [%+.2f, %+.2f] (nominal "
              "%+.2f %%, off by %+.2f %%; pair SD %.2f %%)%s" % (
                  name, len(ratios), args.cpu, 100 * s["change"],
                  100 * s["ci_low"], 100 * s["ci_high"], 100 * expected,
                  100 * s["from_nominal"], 100 * s["pair_sd"],
                  "" if held else "  NOT within +-0.5 %"))
    return 0 if known else 1


if __name__ == "__main__":
    sys.exit(main())
