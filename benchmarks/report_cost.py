"""What the comparison report costs, on real recorded results.

    python -m benchmarks.report_cost [--rounds 3] [FILE ...]

Default input: tests/fixtures/rally/local-quick-4.json (a quickstart run:
6 platforms x concurrency 1 and 2 x 4 iterations). Prints the median
seconds of the statistics (comparison.build) and of each format, and the
size of each file.
"""

import argparse
import json
import os
import statistics
import time

from rally_container_bench.report import comparison
from rally_container_bench.report import render

FIXTURE = os.path.join(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))), "tests", "fixtures", "rally",
    "local-quick-4.json")


def median_seconds(fn, rounds):
    times, result = [], None
    for _ in range(rounds):
        started = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - started)
    return statistics.median(times), result


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="*", default=[FIXTURE])
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    documents = []
    for path in args.files:
        with open(path) as f:
            documents.append(json.load(f))
    seconds, report = median_seconds(
        lambda: comparison.build(documents), args.rounds)
    print("statistics  %6.2f s  (%d rows, %d metrics)"
          % (seconds, len(report["rows"]), len(report["metrics"])))
    for kind, renderer in render.RENDERERS.items():
        seconds, text = median_seconds(lambda: renderer(report), args.rounds)
        print("%-10s  %6.2f s  %8d bytes" % (kind, seconds, len(text)))


if __name__ == "__main__":
    main()
