"""The start barrier across forked processes, as Rally's runner forks them.

Real processes (multiprocessing, fork) and real waits: no engine.
"""

import multiprocessing
import time
import unittest

from rally_container_bench.core import abort
from rally_container_bench.validity import barrier


def _member(sync, iteration, delays, leave_at, results):
    """An iteration: arrives at each point after its delay, or leaves."""
    released = []
    for point, delay in enumerate(delays):
        time.sleep(delay)
        if leave_at == point:
            sync.leave(iteration, point)
            break
        waited, timed_out = sync.wait(iteration, point)
        released.append((time.time(), timed_out))
    results.put((iteration, released))


def _run(sync, plans):
    """{iteration: [(release time, timed out)]} of processes per plan."""
    return _processes(_member, [(sync, i, delays, leave)
                                for i, (delays, leave) in plans.items()])


def _processes(target, arguments):
    """{iteration: result} of target(*args, results) forked per args."""
    context = multiprocessing.get_context("fork")
    results = context.Queue()
    procs = [context.Process(target=target, args=args + (results,))
             for args in arguments]
    for proc in procs:
        proc.start()
    found = dict(results.get(timeout=30) for _ in procs)
    for proc in procs:
        proc.join(10)
    return found


class StartBarrierTestCase(unittest.TestCase):

    def test_a_wave_starts_each_test_together(self):
        sync = barrier.StartBarrier(times=3, concurrency=3, points=2,
                                    timeout=20)
        found = _run(sync, {1: ([0.0, 0.0], None), 2: ([0.3, 0.0], None),
                            3: ([0.6, 0.4], None)})
        for point in range(2):
            releases = [found[i][point][0] for i in (1, 2, 3)]
            self.assertLess(max(releases) - min(releases), 0.15, point)
        # the last to arrive sets the time: 0.6 s, then 0.4 s more
        self.assertFalse(any(t for i in found for _, t in found[i]))

    def test_waves_are_counted_separately(self):
        # times 4 at concurrency 2: iterations 3 and 4 are the second wave
        sync = barrier.StartBarrier(times=4, concurrency=2, points=1,
                                    timeout=20)
        self.assertEqual([0, 0, 1, 1], [sync.wave_of(i) for i in range(1, 5)])
        # 2 s: forking the four under load took up to ~0.4 s (a 0.5 s
        # wait left too little between the waves on a busy machine)
        found = _run(sync, {1: ([0.0], None), 2: ([2.0], None),
                            3: ([0.0], None), 4: ([0.0], None)})
        self.assertLess(abs(found[3][0][0] - found[4][0][0]), 0.15)
        self.assertGreater(found[1][0][0] - found[3][0][0], 1.0)

    def test_the_last_wave_may_be_smaller(self):
        sync = barrier.StartBarrier(times=5, concurrency=2, points=1,
                                    timeout=20)
        self.assertEqual(1, sync.size(sync.wave_of(5)))
        found = _run(sync, {5: ([0.0], None)})
        self.assertFalse(found[5][0][1])

    def test_a_member_that_fails_releases_the_others(self):
        sync = barrier.StartBarrier(times=3, concurrency=3, points=2,
                                    timeout=20)
        started = time.time()
        found = _run(sync, {1: ([0.0, 0.0], None), 2: ([0.0, 0.0], None),
                            3: ([0.5], 0)})  # fails before its first test
        self.assertEqual([], found[3])
        for i in (1, 2):
            self.assertFalse(found[i][1][1])
            self.assertLess(found[i][1][0] - started, 5)

    def test_a_wait_is_bounded(self):
        sync = barrier.StartBarrier(times=2, concurrency=2, points=1,
                                    timeout=0.5)
        started = time.monotonic()
        waited, timed_out = sync.wait(1, 0)
        self.assertTrue(timed_out)
        self.assertGreaterEqual(waited, 0.5)
        self.assertLess(time.monotonic() - started, 2)
        # never released: its tests start at once, not at a time
        self.assertIsNone(sync.start_at(1, 0))

    def test_a_release_sets_the_wave_s_start_a_lead_later(self):
        sync = barrier.StartBarrier(times=3, concurrency=3, points=1,
                                    timeout=20)
        found = _run(sync, {1: ([0.0], None), 2: ([0.0], None),
                            3: ([0.3], None)})
        released = max(found[i][0][0] for i in found)
        for iteration in (1, 2, 3):
            start_at = sync.start_at(iteration, 0)
            self.assertAlmostEqual(released + barrier.lead(3), start_at,
                                   delta=0.15)

    def test_a_release_by_a_member_that_left_sets_a_start_too(self):
        sync = barrier.StartBarrier(times=2, concurrency=2, points=1,
                                    timeout=20)
        found = _run(sync, {1: ([0.0], None), 2: ([0.3], 0)})
        self.assertFalse(found[1][0][1])
        self.assertAlmostEqual(found[1][0][0] + barrier.lead(2),
                               sync.start_at(1, 0), delta=0.15)

    def test_the_lead_grows_with_the_wave_and_is_bounded(self):
        self.assertEqual(0.0, barrier.lead(1))
        self.assertLess(barrier.lead(2), barrier.lead(8))
        self.assertEqual(barrier.MAX_LEAD_S, barrier.lead(1000))

    def test_an_abort_ends_the_wait(self):
        abort.arm()
        self.addCleanup(abort.disarm)
        sync = barrier.StartBarrier(times=2, concurrency=2, points=1,
                                    timeout=60)
        context = multiprocessing.get_context("fork")
        aborter = context.Process(target=lambda: (time.sleep(0.3),
                                                  abort.request()))
        aborter.start()
        started = time.monotonic()
        with self.assertRaises(abort.Aborted):
            sync.wait(1, 0)
        self.assertLess(time.monotonic() - started, 2)
        aborter.join(5)


def _voter(sync, iteration, vote, results):
    sync.wait(iteration, 0, vote=vote)
    results.put((iteration, sync.voted(iteration, 0)))


class VoteTestCase(unittest.TestCase):
    """The wave decides together: one vote at a point is seen by all."""

    def votes(self, votes):
        sync = barrier.StartBarrier(times=len(votes), concurrency=len(votes),
                                    points=2, timeout=10)
        return _processes(_voter, [(sync, i + 1, vote)
                                   for i, vote in enumerate(votes)])

    def test_one_vote_is_seen_by_the_whole_wave(self):
        self.assertEqual({1: True, 2: True, 3: True},
                         self.votes([False, True, False]))

    def test_no_vote_no_decision(self):
        self.assertEqual({1: False, 2: False}, self.votes([False, False]))
