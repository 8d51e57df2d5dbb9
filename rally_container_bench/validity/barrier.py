"""A synchronised start: the N instances of a step run each test together.

Rally's constant runner starts iteration i (1-based) when a slot of its
N frees up, in order, across its worker processes (forked after the
contexts' setup). Iterations 1..N are the first wave, N+1..2N the next
(they can only start as the first wave's end), and so on: wave
(i - 1) // N of size min(N, times - wave * N). Before each of its tests,
an instance waits at point p of its wave until every instance of the
wave is there, or gone: one whose boot or test failed leaves, which
counts as arriving at every point it has not reached. Each wait is
bounded (timeout: the tests then start anyway, and the result says so)
and ends at once when the task is aborted.

A release is a time, not a signal: the wave's tests start at the release
plus a lead (``start_at``), each waiting inside its instance for that
moment. Dispatching N commands at once (docker execs, SSH channels)
takes a spread of its own, and once the first tests run, the later
dispatches compete with them for the CPUs: started on release, 32 at
once on 2 cores ran 27 at once on average one night in CI. Sent during
the lead, every command is there before any test starts.

The shared state lives in shared memory made before Rally forks (the
rcbench_start_barrier context arms it): no Rally import here.
"""

import multiprocessing
import time

from rally_container_bench.core import abort

_current = None
# The lead per instance of a wave, and its bound: 32 docker execs on 2
# idle cores took 0.28 s to dispatch (2026-11-29), so 3 s is 10 times it.
LEAD_PER_INSTANCE_S = 0.1
MAX_LEAD_S = 3.0


def lead(size):
    """Seconds between a wave's release and its tests' start."""
    return 0.0 if size < 2 else min(MAX_LEAD_S, LEAD_PER_INSTANCE_S * size)


class StartBarrier:

    def __init__(self, times, concurrency, points, timeout):
        self.times = times
        self.concurrency = max(1, min(concurrency, times))
        self.points = max(1, points)
        self.timeout = timeout
        waves = -(-times // self.concurrency)
        context = multiprocessing.get_context("fork")
        self._arrived = context.Array("i", waves * self.points, lock=False)
        self._released_at = context.Array("d", waves * self.points,
                                          lock=False)
        self._votes = context.Array("i", waves * self.points, lock=False)
        self._condition = context.Condition()

    def wave_of(self, iteration):
        return (iteration - 1) // self.concurrency

    def size(self, wave):
        return min(self.concurrency, self.times - wave * self.concurrency)

    def _slot(self, wave, point):
        return wave * self.points + point

    def wait(self, iteration, point, vote=False):
        """Wait at point (0-based) until the wave is there; (s, timed out).

        s: seconds waited. vote: this instance's say at the point, read
        by every instance of the wave with ``voted`` once released.
        Raises abort.Aborted when the task is aborted.
        """
        wave = self.wave_of(iteration)
        slot = self._slot(wave, min(point, self.points - 1))
        started = time.monotonic()
        deadline = started + self.timeout
        with self._condition:
            self._votes[slot] += bool(vote)
            self._arrived[slot] += 1
            if self._arrived[slot] >= self.size(wave):
                self._released_at[slot] = time.time()
                self._condition.notify_all()
                return 0.0, False
            while self._arrived[slot] < self.size(wave):
                left = deadline - time.monotonic()
                if left <= 0:
                    return time.monotonic() - started, True
                self._condition.wait(min(left, 0.1))
                abort.check("waiting at the start barrier (wave %d)" % wave)
        return time.monotonic() - started, False

    def start_at(self, iteration, point):
        """This host's time (epoch) the wave's tests start after a point.

        The release plus the wave's lead; None where the point was not
        released (a timed-out wait: its tests start at once).
        """
        wave = self.wave_of(iteration)
        slot = self._slot(wave, min(point, self.points - 1))
        with self._condition:
            released = self._released_at[slot]
        return released + lead(self.size(wave)) if released else None

    def voted(self, iteration, point):
        """True when an instance of the wave voted at point."""
        slot = self._slot(self.wave_of(iteration),
                          min(point, self.points - 1))
        with self._condition:
            return self._votes[slot] > 0

    def leave(self, iteration, next_point):
        """The instance will not reach points next_point..: release them."""
        wave = self.wave_of(iteration)
        with self._condition:
            for point in range(next_point, self.points):
                slot = self._slot(wave, point)
                self._arrived[slot] += 1
                if self._arrived[slot] == self.size(wave):
                    self._released_at[slot] = time.time()
            self._condition.notify_all()


def arm(barrier):
    """Make barrier the one of the workload about to run (before forks)."""
    global _current
    _current = barrier


def disarm():
    global _current
    _current = None


def current():
    """The armed StartBarrier, or None (no synchronised start)."""
    return _current
