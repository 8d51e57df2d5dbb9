"""Did the N instances of a step really work at once? PURE.

KEK's question at concurrency N is "N instances working at once": a test
that ran while the step's other instances were still booting, or after
most of them had finished, measures orchestration, not virtualization.
From one workload's iterations (Rally's atomic actions, one clock: the
Rally host's), for every test run (sysbench.*, fio.*, iperf3.*, http.*),
over the time it ran inside the instance where the scenario recorded it
(a child action ``inside``: sysbench's start on the instance's clock and
its own total time), else over the Rally host's timing of the command,
which also holds its dispatch (an SSH channel, an exec):

- effective concurrency: the time-weighted mean number of runs of the
  same test (this one included) during it;
- beside phases: the share of its time during which another instance of
  the step was in build, network or delete.

And per wave of N instances started together (PerfKitBenchmarker's
cluster_boot): time from the first create request to the last instance
ready (build + network), and the spread of the create requests (skew).
"""

import collections

from rally_container_bench.workloads import tools

TEST_PREFIXES = tools.metric_prefixes()
PHASES = ("build", "network", "delete")
# Flag a group whose tests ran below this share of N at once, or beside
# other instances' phases for more than this share of their time.
MIN_EFFECTIVE_SHARE = 0.9
MAX_BESIDE_SHARE = 0.05

# The child action of a test with its run inside the instance.
INSIDE = "inside"

TestRun = collections.namedtuple("TestRun", "test effective beside")
Wave = collections.namedtuple("Wave", "size slowest_ready skew")


def _intervals(iteration, wanted):
    found = []
    for action in iteration.get("atomic_actions", []):
        inside = [child for child in action.get("children", [])
                  if child.get("name") == INSIDE]
        span = inside[-1] if inside else action
        start, end = span.get("started_at"), span.get("finished_at")
        if start is not None and end is not None and wanted(action["name"]):
            found.append((action["name"], start, end))
    return found


def _covered(intervals, start, end):
    """Length of the union of intervals clipped to [start, end]."""
    clipped = sorted((max(a, start), min(b, end)) for a, b in intervals
                     if b > start and a < end)
    total, reach = 0.0, start
    for a, b in clipped:
        if b > reach:
            total += b - max(a, reach)
            reach = b
    return total


def test_runs(iterations):
    """[TestRun] of every test run in one workload's iterations."""
    tests = [_intervals(i, lambda n: n.startswith(TEST_PREFIXES))
             for i in iterations]
    phases = [[(a, b) for _, a, b in _intervals(i, PHASES.__contains__)]
              for i in iterations]
    runs = []
    for index, own in enumerate(tests):
        for name, start, end in own:
            length = end - start
            if length <= 0:
                continue
            same = sum(max(0.0, min(b, end) - max(a, start))
                       for other in tests for n, a, b in other if n == name)
            others = [span for j, spans in enumerate(phases) if j != index
                      for span in spans]
            runs.append(TestRun(name, same / length,
                                _covered(others, start, end) / length))
    return runs


def waves(iterations, concurrency):
    """[Wave] of the instances in groups of N by create request time."""
    ready = []
    for iteration in iterations:
        spans = dict((n, (a, b)) for n, a, b in _intervals(
            iteration, ("build", "network").__contains__))
        if "build" in spans:
            end = spans.get("network", spans["build"])[1]
            ready.append((spans["build"][0], end))
    ready.sort()
    found = []
    for first in range(0, len(ready), max(1, concurrency)):
        wave = ready[first:first + concurrency]
        starts = [a for a, _ in wave]
        found.append(Wave(len(wave), max(b for _, b in wave) - min(starts),
                          max(starts) - min(starts)))
    return found


def summary(runs, concurrency):
    """{test: {effective, effective_min, beside, runs, flags}} of runs."""
    by_test = collections.defaultdict(list)
    for run in runs:
        by_test[run.test].append(run)
    found = {}
    for test, group in by_test.items():
        effective = sum(r.effective for r in group) / len(group)
        beside = sum(r.beside for r in group) / len(group)
        flags = []
        if effective < MIN_EFFECTIVE_SHARE * concurrency:
            flags.append("ran %.2g at once on average, below %.0f %% of N"
                         % (effective, 100 * MIN_EFFECTIVE_SHARE))
        if beside > MAX_BESIDE_SHARE:
            flags.append("%.0f %% of its time beside other instances' "
                         "build/network/delete" % (100 * beside))
        found[test] = {"effective": effective,
                       "effective_min": min(r.effective for r in group),
                       "beside": beside, "runs": len(group),
                       "flags": flags}
    return found
