"""A pair at once: the instance's test and its twin released together.

Each side runs on a CPU of its own (validity.cpu_pairs), both commands
sent first, then both wait (asleep, in ``sh``: no CPU of either is
spent) for one instant on this host's clock, converted to the
instance's where it has a clock of its own (a VM). Whatever moves the
host during the pair moves both sides: it cancels in their ratio. The
start skew is measured on both sides (each run's own stamp of its
start): a pair whose sides started further apart than 1 % of its length
is left out and measured again (the next pair gets a longer lead).
"""

import threading
import time

from rally_container_bench.core import base
from rally_container_bench.validity import clock
from rally_container_bench.validity import cpu_pairs
from rally_container_bench.validity import foreign_load
from rally_container_bench.workloads import common

# The first pair's lead: two commands dispatched (a docker exec took
# 0.1-0.3 s, 2026-12-04); a skewed pair doubles it, up to MAX_LEAD_S.
FIRST_LEAD_S = 0.4
MAX_LEAD_S = 4.0
# A scheduled start waits at most this much beyond its lead: an
# instance's clock read wrongly must not stall its test.
MAX_EXTRA_WAIT_S = 1.0


class AtOnceMixin:
    """Needs MeasuredRunsMixin's and SysbenchScenarioMixin's helpers."""

    def _pair_at_once(self, plan, at, spec, outcome_of, window_of):
        """[instance's, twin's] measured_runs.Outcome of one attempt.

        outcome_of(role) -> a new Outcome; window_of(host) -> a context
        of the host's Readings around both runs.
        """
        executor = plan.executor
        inside, twin = outcome_of(True), outcome_of(False)
        if not executor.on_host and not getattr(executor, "replays", False):
            inside.started_clock = self._read_clock(executor)
        if not plan.twin.executor.on_host:  # a compute host's own clock
            twin.started_clock = self._read_clock(plan.twin.executor)
        start_at = None
        if plan.sync is not None:
            self._at_start_barrier(plan.point(*at, 0), spec.label)
        with window_of(plan.host) as window:
            if plan.sync is not None:
                start_at = self._at_start_barrier(
                    plan.point(*at, 1), "%s (hosts read)" % spec.label)
            if start_at is None:
                start_at = time.time() + plan.lead
            failed = []
            helper = threading.Thread(
                target=self._twin_at, daemon=True,
                args=(plan, spec, twin, start_at, failed))
            helper.start()
            try:
                inside.run = self._run_one(
                    executor, spec, plan.versions, plan.executable,
                    plan.workdir, plan.timeout, plan.endpoint,
                    start=scheduled(start_at, inside.started_clock))
            except common.WorkloadError as e:
                inside.error = e
            finally:
                helper.join()
        if plan.sync is not None:  # the sequential pair's other points
            for slot in (2, 3):
                self._at_start_barrier(plan.point(*at, slot), spec.label)
        if failed:
            raise failed[0]
        for outcome in (inside, twin):
            foreign_load.read_window(outcome, window)
        self._check_clock(executor, inside)
        skew = start_skew(inside, twin)
        if skew is not None:
            inside.skew = twin.skew = skew
            if abs(skew) > cpu_pairs.skew_bound(shortest(inside, twin)):
                inside.skewed = twin.skewed = True
                plan.lead = min(MAX_LEAD_S, 2 * plan.lead)
        if inside.run is not None:
            self._record_inside(inside.run, executor.on_host,
                                inside.started_clock)
        return [inside, twin]

    def _twin_at(self, plan, spec, outcome, start_at, failed):
        try:
            outcome.run = self._run_one(
                plan.twin.executor, spec, plan.twin.versions,
                plan.twin.executable, plan.twin.workdir, plan.timeout,
                None, timed=common.untimed,
                start=scheduled(start_at, outcome.started_clock))
        except common.WorkloadError as e:
            outcome.error = e
        except base.DriverError as e:
            failed.append(e)


def pairing_facts(plan, spec, outcome):
    """A paired record's mode (cpu_pairs.SAID), CPUs and start skew."""
    mode = plan.mode(spec)
    facts = {"pairing": cpu_pairs.SAID[mode]}
    if mode == cpu_pairs.AT_ONCE:
        facts["order"] = "at once"
        facts["cpus"] = plan.cpus
        if outcome.skew is not None:
            facts["skew_ms"] = round(1000 * outcome.skew, 2)
        if outcome.skewed:
            facts["skewed"] = True
    return facts


def scheduled(start_at, clock_read=None):
    """common.Start of a wave's start (this host's epoch), or None.

    On the instance's clock where it was read (clock_read), else on the
    one of the host the command runs on, taken for this host's (a
    host's own offset delays all of its runs alike, by MAX_EXTRA_WAIT_S
    at most beyond the lead).
    """
    if start_at is None:
        return None
    offset = clock.clock_offset(clock_read) or 0.0
    return common.Start(
        at=start_at + offset,
        at_most=max(0.0, start_at - time.time()) + MAX_EXTRA_WAIT_S)


def start_skew(inside, twin):
    """Seconds the instance's test started after its twin's (None: unread).

    On this host's clock: a VM's own start (and a twin's on a compute
    host) is moved by its clock's offset, read before the pair.
    """
    if inside.run is None or twin.run is None:
        return None
    started, reference = inside.run.started_inside, twin.run.started_inside
    if started is None or reference is None:
        return None
    offsets = [clock.clock_offset(o.started_clock) if o.started_clock
               else 0.0 for o in (inside, twin)]
    if None in offsets:
        return None
    return (started - offsets[0]) - (reference - offsets[1])


def shortest(*outcomes):
    """The shorter run's length in seconds (sysbench's total time)."""
    found = [o.run.result.metrics.get("total_time_s") for o in outcomes]
    values = [m.value for m in found if m is not None]
    return min(values) if values else 0.0
