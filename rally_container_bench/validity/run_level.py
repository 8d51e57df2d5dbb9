"""A run far below its level: the host slowed beneath the guest.

Each side of a pair runs the same command on the same host every time:
the twins of one test at one step and mode on one host measure one thing
through a task, and so do one platform's instances; the recent median of
a side's runs is its level. A run more than BOUND below it ran while the
host itself was slow, where no CPU accounting sees it: on the 2-vCPU CI
host both twins of a wave of 2 read 57 % of their level (827 and 835
events/s against 1452), with no steal, no foreign load and their own
CPUs busy (a slower physical core under the VM); such a wave kept cells
undecided (README command 1, 2026-12-07: lxc, docker and podman cpu at
2). Its pair is measured again, as a disturbed one is (measured_runs).

Both sides are judged, each against its own level: dips came to
instances as often as to twins (three command-1 runs of 2026-12-07: 67
pairs off by more than 6 % with the twin low, 65 with the instance low),
and measuring again only the pairs of a low twin would have moved every
verdict towards "worse" by the dips' share of their size. A platform
whose own runs dip often has them measured again too: the report counts
each side's (a platform far above its twins there dips of its own). A
run still below its level at the last attempt is kept and flagged (the
verdicts' dip rule, report.equivalence, may still leave its wave out).

The levels are shared by the task's runner processes through files
beside the host's registry of instances (foreign_load.Registry): one per
test, step, mode and side, a value a line.
"""

import hashlib
import json
import os
import statistics

from rally_container_bench.validity import cpu_pairs

# How far below its level a run is slow: twins of the CI host's
# command-1 runs drifted 2-4 % through a run (2026-12-07); at 10 % the
# cpu twins of three runs flagged 0, 3 and 9 of 57-96 each, the memory
# twins 1-10 of 57-132 (memory read wanders more).
BOUND = 0.10
# Runs of a side measured before one is judged, and the recent ones its
# level is the median of (a slow drift moves the level along).
HISTORY = 5
WINDOW = 20
# The metric a kind's level is read on (the run's result metrics).
METRICS = {"cpu": "events_per_s", "memory": "mib_per_s"}
NATIVE = "native"
DIRECTORY = "@levels"  # "@": not an instance (Registry.sources)


def shortfall(value, recent, bound=BOUND):
    """value's change from the median of recent where below -bound, else None.

    None too before HISTORY values, or for a value or level of 0.
    """
    if len(recent) < HISTORY or not value:
        return None
    level = statistics.median(recent[-WINDOW:])
    if level <= 0:
        return None
    change = value / level - 1
    return change if change < -bound else None


def key_of(spec, step, mode, side):
    """A file name for one side's runs of a test at a step and mode.

    side: NATIVE for twins (every cell's twins are native's runs), else
    the platform.
    """
    text = json.dumps([spec.tool, spec.to_dict(), step, mode, side],
                      sort_keys=True)
    return hashlib.sha1(text.encode()).hexdigest()[:16]


def described(bound, times):
    """The environment's words on the check (Plan.describe)."""
    return ("a cpu or memory test whose run or twin read more than %g %% "
            "below the median of that side's recent runs of it on this "
            "host is measured again with its pair, at most %d time(s)"
            % (100 * bound, times))


def judge_run(registry_path, spec, step, mode, side, result_metrics,
              bound=BOUND):
    """A run's shortfall below its side's level, or None; then kept.

    result_metrics: the run's parsed metrics ({name: Metric}). Only
    sysbench's cpu and memory tests have a level; bound 0 judges none.
    """
    found = result_metrics.get(METRICS.get(cpu_pairs.kind_of(spec)))
    if not bound or found is None:
        return None
    return Levels(registry_path).judge(key_of(spec, step, mode, side),
                                       found.value, bound)


class Levels:
    """The runs' values of one host in this task (registry_path's)."""

    def __init__(self, registry_path):
        self.path = os.path.join(registry_path, DIRECTORY)

    def recent(self, key):
        try:
            with open(os.path.join(self.path, key)) as f:
                lines = f.read().split()
        except OSError:
            return []
        found = []
        for line in lines[-WINDOW:]:
            try:
                found.append(float(line))
            except ValueError:
                continue  # a line another process is writing
        return found

    def add(self, key, value):
        os.makedirs(self.path, exist_ok=True)
        # one short line in append mode: runners writing at once do not
        # interleave within it
        fd = os.open(os.path.join(self.path, key),
                     os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            os.write(fd, ("%r\n" % float(value)).encode())
        finally:
            os.close(fd)

    def judge(self, key, value, bound=BOUND):
        """value's shortfall below the level (None: within it); then kept."""
        found = shortfall(value, self.recent(key), bound)
        self.add(key, value)
        return found
