#!/usr/bin/env python3
"""End every process under a root pid, this one but: .ci/run's EXIT trap.

A shell that a signal ends (CI's time limit: SIGTERM) runs its EXIT trap
while the command it waited for goes on: tox, stestr, the tests and the
engines' clients they run. Stopping the engines and the cloud under them
then leaves tests that keep creating instances. So the trap ends that
tree first.

Each generation is frozen (SIGSTOP) before its children are listed, so
that none forks a child the listing misses; then each gets SIGTERM and
SIGCONT, and what is left after GRACE_S SIGKILL. A process is signalled
only while it is the one listed (its start time): a pid that ended and
was taken by another process is left alone.

Usage: .venv/bin/python tools/end-tree.py ROOT_PID
"""

import os
import signal
import sys
import time

from rally_container_bench.core import processes

GRACE_S = 10.0


def children(parents):
    """[processes.Recorded] of the children of any of parents, now."""
    found = []
    for name in os.listdir("/proc"):
        if name.isdigit() and processes.parent(int(name)) in parents:
            recorded = processes.Recorded.of(int(name))
            if recorded is not None:  # gone meanwhile
                found.append(recorded)
    return found


def freeze(root, spared):
    """Every process under root but spared, each stopped: [Recorded].

    A level at a time: one reading of /proc per generation.
    """
    frozen, level = [], {root}
    while level:
        found = [p for p in children(level) if p.pid not in spared]
        for process in found:
            process.signal(signal.SIGSTOP)
        frozen += found
        level = {process.pid for process in found}
    return frozen


def main(argv):
    if len(argv) != 2 or not argv[1].isdigit():
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    frozen = freeze(int(argv[1]), {os.getpid()})
    for process in frozen:
        process.signal(signal.SIGTERM)
        process.signal(signal.SIGCONT)
    deadline = time.monotonic() + GRACE_S
    left = frozen
    while left and time.monotonic() < deadline:
        time.sleep(0.1)
        left = [process for process in left if process.alive()]
    for process in left:
        process.signal(signal.SIGKILL)
    if frozen:
        print("end-tree: ended %d process(es) under %s (%d killed after "
              "%.0f s)" % (len(frozen), argv[1], len(left), GRACE_S))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
