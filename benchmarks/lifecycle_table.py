"""The ptcr method's tables from a tasks/local_lifecycle.yaml run.

    rally task report UUID --json --out lifecycle.json
    python -m benchmarks.lifecycle_table lifecycle.json

Prints, per profile (serial = concurrency 1, parallel = the largest
concurrency of each runtime), the mean milliseconds of create, start,
stop, remove and run per runtime, each cell also as a ratio to docker
(figures of one run on one machine: compare ratios, not absolutes), and
the footprint (PSS, KiB) per instance at each N.
"""

import argparse
import collections
import json
import statistics

from rally_container_bench.report import results

VERBS = ("create", "start", "stop", "remove", "run")
REFERENCE = "docker-runc"


def tables(document):
    collected = results.collect([document])
    durations = collections.defaultdict(list)
    memory = {}
    steps = collections.defaultdict(set)
    for sample in collected.samples:
        if sample.metric in VERBS:
            durations[(sample.platform, sample.concurrency,
                       sample.metric)].append(sample.value * 1000)
            steps[sample.platform].add(sample.concurrency)
        elif sample.metric.startswith("footprint."):
            memory[(sample.platform, sample.metric[10:])] = sample.value
    return durations, memory, steps, list(collected.platforms)


def print_profile(title, durations, steps, platforms, pick):
    print("\n%s: mean ms (x %s)" % (title, REFERENCE))
    print("%-22s %5s" % ("runtime", "conc") + "".join(
        "%18s" % verb for verb in VERBS))
    for label in platforms:
        if not steps[label]:
            continue
        step = pick(steps[label])
        cells = []
        for verb in VERBS:
            own = durations.get((label, step, verb))
            ref = durations.get((REFERENCE, pick(steps[REFERENCE]), verb)) \
                if steps[REFERENCE] else None
            if not own:
                cells.append("%18s" % "-")
                continue
            mean = statistics.mean(own)
            ratio = (" (%.2f)" % (mean / statistics.mean(ref))) if ref \
                else ""
            cells.append("%18s" % ("%.0f%s" % (mean, ratio)))
        print("%-22s %5d" % (label, step) + "".join(cells))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("file", help="rally task report --json output")
    args = parser.parse_args()
    with open(args.file) as f:
        durations, memory, steps, platforms = tables(json.load(f))
    print_profile("serial", durations, steps, platforms, min)
    print_profile("parallel", durations, steps, platforms, max)
    counts = sorted({int(key.split("@")[1]) for _, key in memory})
    print("\nfootprint: PSS KiB per instance, all / runtime overhead; "
          "daemons total")
    print("%-22s" % "runtime" + "".join(
        "%22s" % ("N=%d" % n) for n in counts) + "%12s" % "daemon")
    for label in platforms:
        cells = []
        for n in counts:
            total = memory.get((label, "instance@%d" % n))
            overhead = memory.get((label, "overhead@%d" % n))
            cells.append("%22s" % ("-" if total is None else
                                   "%.0f / %.0f" % (total, overhead)))
        daemon = memory.get((label, "daemon@%d" % counts[0])) if counts \
            else None
        print("%-22s" % label + "".join(cells) + "%12s" % (
            "-" if daemon is None else "%.0f" % daemon))


if __name__ == "__main__":
    main()
