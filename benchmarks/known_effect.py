"""How big the known effect really is: the CPU quota's, without the harness.

    python -m benchmarks.known_effect [--pairs 40] [--withheld 0.1] [--cpu 1]

The instrument check's native-slowed cell claims its tests lose
WITHHELD of their speed under the kernel's CPU quota
(engines.native.throttle). This measures that claim alone: the
quickstart's tests (sysbench cpu, memory read at 4G) run PAIRS times
each under the quota and without it, right after one another on one host
CPU, the order alternating, and prints per test the mean ratio (capped /
free) with its 95 % CI, the change the quota caused, and its distance
from the nominal -WITHHELD. The effect is "known within +-0.5 %" when
that CI's half-width and its distance from nominal are both within it.
"""

import argparse
import math
import statistics
import subprocess
import sys

from scipy import stats

from rally_container_bench.engines.native import throttle
from rally_container_bench.workloads.sysbench import command
from rally_container_bench.workloads.sysbench import parse
from rally_container_bench.workloads.sysbench import presets

TESTS = (("quick-cpu", {}, "events_per_s"),
         ("quick-memory-read", {"memory_total_size": "4G"}, "mib_per_s"))


def run(argv):
    out = subprocess.run(argv, capture_output=True, text=True, check=True)
    return parse.parse(out.stdout)


def measure(pairs, withheld, cpu, executable="sysbench"):
    """{test: [capped / free ratio of each pair]}."""
    version = command.parse_version(subprocess.run(
        [executable, "--version"], capture_output=True, text=True).stdout)
    cap = throttle.Throttle(withheld)
    found = {}
    try:
        for name, overrides, metric in TESTS:
            spec = presets.resolve(dict({"preset": name}, **overrides))
            argv = ["taskset", "-c", str(cpu)] + command.build_argv(
                spec, version, executable=executable)
            ratios = []
            for i in range(pairs):
                sides = [cap.wrap(argv), argv][::1 if i % 2 else -1]
                first, second = (run(a).metrics[metric].value for a in sides)
                capped, free = (second, first) if i % 2 == 0 \
                    else (first, second)
                ratios.append(capped / free)
            found[name] = ratios
    finally:
        cap.close()
    return found


def summary(ratios, withheld):
    logs = [math.log(r) for r in ratios]
    mean = statistics.fmean(logs)
    half = stats.t.ppf(0.975, len(logs) - 1) * statistics.stdev(logs) \
        / math.sqrt(len(logs))
    change = math.expm1(mean)
    return {"change": change, "ci_low": math.expm1(mean - half),
            "ci_high": math.expm1(mean + half), "pair_sd": statistics.stdev(
                logs), "from_nominal": change + withheld}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pairs", type=int, default=40)
    parser.add_argument("--withheld", type=float, default=0.1)
    parser.add_argument("--cpu", type=int, default=1)
    args = parser.parse_args(argv)
    ok, why = throttle.available()
    if not ok:
        raise SystemExit(why)
    known = True
    for name, ratios in measure(args.pairs, args.withheld, args.cpu).items():
        s = summary(ratios, args.withheld)
        held = max(s["ci_high"] - s["change"], abs(s["from_nominal"])) \
            <= 0.005
        known &= held
        print("%-18s %d pairs: %+.2f %% [%+.2f, %+.2f] (nominal %+.1f %%, "
              "off by %+.2f %%; pair SD %.2f %%)%s" % (
                  name, len(ratios), 100 * s["change"], 100 * s["ci_low"],
                  100 * s["ci_high"], -100 * args.withheld,
                  100 * s["from_nominal"], 100 * s["pair_sd"],
                  "" if held else "  NOT within +-0.5 %"))
    return 0 if known else 1


if __name__ == "__main__":
    sys.exit(main())
