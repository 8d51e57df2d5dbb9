"""Does the plugin change what it measures? sysbench cpu events/s through
NativeHost.sysbench (Rally CLI, runner, our executor) vs plain sysbench.

    python -m benchmarks.native_overhead [--rounds 5] [--time 10]
                                         [--concurrency 1]

Rounds alternate plain / plugin (ABAB...) so drift on a noisy machine hits
both sides alike; the figure is the ratio of the medians measured in this
one run (goal: within 2%). At concurrency N both sides run N sysbench
processes at once.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys

from rally_container_bench.workloads.sysbench import parse
from tests.functional import helpers

_TASK = """---
version: 2
title: native overhead benchmark
subtasks:
  - title: plugin side
    workloads:
      - scenario:
          NativeHost.sysbench:
            tests: [{"test": "cpu", "cpu_max_prime": 20000, "time": %d}]
        runner:
          constant:
            times: %d
            concurrency: %d
"""


def plain(seconds, concurrency):
    argv = ["sysbench", "cpu", "--cpu-max-prime=20000", "--threads=1",
            "--time=%d" % seconds, "run"]
    procs = [subprocess.Popen(argv, stdout=subprocess.PIPE, text=True)
             for _ in range(concurrency)]
    values = [parse.parse(p.communicate()[0]).metrics["events_per_s"].value
              for p in procs]
    return statistics.mean(values)


def plugin(home, task_file):
    uuid, _ = home.start(task_file)
    (workload,) = helpers.workloads(home.results(uuid))
    if workload["failed_iteration_count"]:
        sys.exit("plugin side had failed iterations")
    values = [helpers.additive(it)["sysbench cpu"]["events_per_s (events/s)"]
              for it in workload["data"]]
    return statistics.mean(values)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--time", type=int, default=10)
    parser.add_argument("--concurrency", type=int, default=1)
    args = parser.parse_args()
    home = helpers.RallyHome()
    try:
        task_file = os.path.join(home.path, "task.yaml")
        with open(task_file, "w") as f:
            f.write(_TASK % (args.time, args.concurrency, args.concurrency))
        rows = []
        for round_no in range(1, args.rounds + 1):
            a = plain(args.time, args.concurrency)
            b = plugin(home, task_file)
            rows.append((a, b))
            print("round %d: plain %.2f events/s, plugin %.2f events/s, "
                  "plugin/plain %.4f" % (round_no, a, b, b / a), flush=True)
    finally:
        home.close()
    med_plain = statistics.median(a for a, _ in rows)
    med_plugin = statistics.median(b for _, b in rows)
    summary = {
        "concurrency": args.concurrency, "rounds": args.rounds,
        "seconds_per_run": args.time,
        "plain_median_events_per_s": round(med_plain, 2),
        "plugin_median_events_per_s": round(med_plugin, 2),
        "plugin_over_plain": round(med_plugin / med_plain, 4),
        "within_2_percent": abs(med_plugin / med_plain - 1) <= 0.02,
    }
    print(json.dumps(summary, indent=2))


if __name__ == "__main__":
    main()
