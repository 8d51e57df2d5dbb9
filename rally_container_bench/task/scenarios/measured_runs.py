"""One test, measured as a verdict needs it: paired, watched, re-measured.

An attempt of a test is its run in the instance and, where a native twin
is given, the same test on this host at the same concurrency right
before or after it (the order alternates between tests, attempts and
waves), so the host's drift between minutes cancels in the pair's ratio.
Around each run the foreign load of the host it ran on is measured (this
host's, or a compute host's over SSH: validity.hosts); an
attempt beside more than the limit is disturbed and measured again, up
to a bound, unless both runs of its pair were beside the same load with
a CPU free for it (foreign_load.alike_in_pair): it cancels in their
ratio. In a synchronised wave every instance votes at the end of an
attempt and the whole wave re-measures together, so N stay N at once.

Every attempt is kept in the iteration's results (records with their
attempt, order, foreign load and whether they were disturbed or
superseded); the report uses the final, undisturbed ones.
"""

import collections
import contextlib
import dataclasses
import time

from rally.common import logging

from rally_container_bench.task import output_tables as tables
from rally_container_bench.validity import clock
from rally_container_bench.validity import cpu
from rally_container_bench.validity import foreign_load
from rally_container_bench.validity import hosts
from rally_container_bench.workloads import common
from rally_container_bench.workloads import metrics
from rally_container_bench.workloads import tools

LOG = logging.getLogger(__name__)
INSTANCE = "instance"
# The window in which a busy host's load is read while waiting for quiet.
QUIET_WINDOW_S = 1.0
# A host that stayed busy through a whole wait is waited on for one
# window only for this long (this process's iterations): its load is no
# passing neighbour.
BUSY_MEMORY_S = 300.0
_stayed_busy = {}  # host name -> time.monotonic() of its last full wait
NATIVE_TWIN = "native twin"
QUIET = "yes"  # a quiet wait's row: the host went quiet
# or its load left a CPU free (foreign_load.leaves_room): a pair beside
# it, alike for both, keeps its answer
ROOM = "room beside it"
# Barrier points of one attempt: each of its two runs has two (the wave
# is there; the wave has read its hosts), then the decision.
SLOTS = 5
# A scheduled start waits at most this much beyond its lead: an
# instance's clock read wrongly must not stall its test.
MAX_EXTRA_WAIT_S = 1.0

Twin = collections.namedtuple("Twin", "executor executable workdir versions",
                              defaults=(None,))


def pairs(spec):
    """A test that runs the same on the host as inside an instance."""
    return tools.of(spec).paired


@dataclasses.dataclass
class Plan:
    """How an iteration measures its tests (one per run_tests call)."""

    executor: object
    executable: str
    workdir: str
    timeout: float
    endpoint: object
    versions: dict
    sync: object
    twin: Twin
    host: object  # validity.hosts view of where the tests run, or None
    limit: float
    attempts: int
    tests: int
    repeats: int = 1
    quiet_wait: float = 0.0  # seconds a re-measure waits for quiet, at most
    # of limit, where the host had no idle CPU (foreign_load.disturbed)
    saturated_share: float = foreign_load.SATURATED_SHARE

    def point(self, index, repeat, attempt, slot):
        return (((index * self.repeats + repeat) * self.attempts + attempt)
                * SLOTS + slot)

    @property
    def end_point(self):
        return self.tests * self.repeats * self.attempts * SLOTS

    def roles(self, spec, order):
        if self.twin is None or not pairs(spec):
            return [INSTANCE]
        return [INSTANCE, NATIVE_TWIN][::1 if order == 0 else -1]

    def describe(self):
        facts = {}
        if self.twin is not None:
            facts["native_twin"] = (
                "each test paired with the same test on this host at the "
                "same concurrency, right before or after it (alternating)")
        if self.repeats > 1:
            facts["repeat"] = "each test measured %d times" % self.repeats
        if self.host is not None:
            facts["foreign_load_limit"] = (
                "%g cores, %.3g where the host had no idle CPU (a "
                "disturbed test is measured again, at most %d time(s))"
                % (self.limit, self.limit * self.saturated_share,
                   self.attempts - 1))
            facts["load_read_on"] = self.host.name
        return facts


@dataclasses.dataclass
class Outcome:
    role: str
    run: object = None
    error: Exception = None
    load: dict = None  # foreign_load.load: foreign, own, busy cores
    host: dict = None  # cpu.host_load: busy, steal, running_max
    read_on: str = None  # the host whose load was read
    clock: dict = None
    started_clock: object = None
    limit: float = None
    saturated_share: float = foreign_load.SATURATED_SHARE

    @property
    def disturbed(self):
        return foreign_load.disturbed(self.load, self.limit,
                                      self.saturated_share)


class MeasuredRunsMixin:
    """The attempts of one test; needs SysbenchScenarioMixin's helpers."""

    def _measure_test(self, plan, index, spec, checks, records, waits):
        """Measure one test (repeat times); return its failures, or None.

        checks, records and waits (the quiet waits) get its rows.
        """
        failures = [self._measure_repeat(plan, index, repeat, spec, checks,
                                         records, waits)
                    for repeat in range(plan.repeats)]
        return " | ".join(f for f in failures if f) or None

    def _measure_repeat(self, plan, index, repeat, spec, checks, records,
                        waits):
        for attempt in range(plan.attempts):
            order = (self._wave(plan) + index + repeat + attempt) % 2
            at = (index, repeat, attempt)
            outcomes = [self._measured_run(plan, at, spec, slot, role)
                        for slot, role in enumerate(plan.roles(spec, order))]
            disturbed = _pair_disturbed(plan, outcomes)
            row = None
            if disturbed and attempt < plan.attempts - 1:
                row = self._wait_for_quiet(plan, spec)
                if row:
                    waits.append(row)
            # Still busy after the wait: measuring again now would only
            # be discarded again; the run stays flagged, out of verdicts.
            again = self._remeasure(plan, at, spec, disturbed and not (
                row and row[-1] not in (QUIET, ROOM)))
            final = not again or attempt == plan.attempts - 1
            failure = self._keep(plan, spec, at, order, final, outcomes,
                                 checks, records)
            if final:
                return failure

    def _wait_for_quiet(self, plan, spec):
        """Before a re-measure: wait, bounded, while the host stays busy.

        Read in one-second windows on the host the tests run on (the
        task's own instances and harness are not foreign). Returns the
        wait's row of the iteration's quiet-wait table (its last field
        QUIET when the host went quiet), or None when it did not wait; a
        host that stayed busy through a whole wait is read for one window
        only for BUSY_MEMORY_S.
        """
        if plan.host is None or plan.quiet_wait <= 0:
            return
        started = time.monotonic()
        bound = plan.quiet_wait
        if started - _stayed_busy.get(plan.host.name, -BUSY_MEMORY_S) \
                < BUSY_MEMORY_S:
            bound = 0.0
        foreign, quiet, said = None, False, False
        while True:
            with plan.host.window(owned=False) as window:
                time.sleep(QUIET_WINDOW_S)
            if window.readings is None:
                return  # not read: nothing to wait for
            load = foreign_load.load(*window.readings)
            foreign = load.get("foreign")
            quiet = not foreign_load.disturbed(load, plan.limit,
                                               plan.saturated_share)
            room = len(plan.roles(spec, 0)) > 1 and \
                foreign_load.leaves_room(load, plan.limit)
            waited = time.monotonic() - started
            if quiet or room or waited >= bound:
                break
            if not said:
                said = True
                LOG.info("host busy: waiting for quiet on %s before "
                         "measuring %s again (%.2f cores of foreign load%s, "
                         "limit %g; at most %g s)"
                         % (plan.host.name, spec.label, foreign,
                            _unplaced_said(load), plan.limit,
                            plan.quiet_wait))
        if not (quiet or room) and bound:
            _stayed_busy[plan.host.name] = time.monotonic()
        if said:
            LOG.info("host busy: waited %.0f s on %s, %s" % (
                waited, plan.host.name,
                "quiet now: measuring %s again" % spec.label if quiet else
                "a CPU free beside the load: measuring %s again, the pair "
                "kept if the load is alike for both" % spec.label if room
                else "still busy: %s stays flagged, not measured again "
                "beside the load" % spec.label))
        return [spec.label, plan.host.name, round(waited, 1),
                None if foreign is None else round(foreign, 3),
                QUIET if quiet else ROOM if room else "no (gave up)"
                if bound else "no (still busy)"]

    def _wave(self, plan):
        iteration = self.context.get("iteration", 1)
        return plan.sync.wave_of(iteration) if plan.sync else iteration - 1

    def _remeasure(self, plan, at, spec, disturbed):
        """Whether the attempt is measured again (the wave's vote)."""
        if plan.attempts == 1:
            return False
        if plan.sync is None:
            return disturbed
        point = plan.point(*at, SLOTS - 1)
        self._at_start_barrier(point, "%s (re-measure?)" % spec.label,
                               vote=disturbed)
        return plan.sync.voted(self.context.get("iteration", 1), point)

    def _measured_run(self, plan, at, spec, slot, role):
        inside = role == INSTANCE
        executor = plan.executor if inside else plan.twin.executor
        clocked = inside and not executor.on_host and not getattr(
            executor, "replays", False)
        outcome = Outcome(role, limit=plan.limit,
                          saturated_share=plan.saturated_share)
        # The guest's clock is read before the barriers, the host's first
        # reading between the two: nothing but the test itself follows
        # the wave's last release. (A compute host's reading is a round
        # trip over SSH: after a single release it started one
        # instance's memory test up to 2 s after the other's, and pairs
        # at 2 measured that skew. Read before a single barrier, an
        # early instance's window held the wave's slower boots.)
        outcome.started_clock = self._read_clock(executor) if clocked \
            else None
        label = spec.label if inside else "%s (%s)" % (spec.label, role)
        start = None
        if plan.sync is not None:
            self._at_start_barrier(plan.point(*at, 2 * slot), label)
        with _window(plan.host, owned=not inside) as window:
            if plan.sync is not None:
                start = scheduled(self._at_start_barrier(
                    plan.point(*at, 2 * slot + 1),
                    "%s (hosts read)" % label), outcome.started_clock)
            try:
                if inside:
                    outcome.run = self._run_one(
                        executor, spec, plan.versions, plan.executable,
                        plan.workdir, plan.timeout, plan.endpoint,
                        start=start)
                else:
                    outcome.run = self._run_one(
                        executor, spec, plan.twin.versions,
                        plan.twin.executable, plan.twin.workdir,
                        plan.timeout, None, timed=common.untimed,
                        start=start)
            except common.WorkloadError as e:
                outcome.error = e
        if window.readings:
            before, after = window.readings
            outcome.load = foreign_load.load(before, after)
            outcome.host = cpu.host_load((before.cpu, before.running),
                                         (after.cpu, after.running))
            outcome.read_on = after.host
        second = self._read_clock(executor) if outcome.started_clock \
            else None
        outcome.clock = clock.clock_check(
            outcome.started_clock, second) if second else {}
        if inside and outcome.run is not None:
            self._record_inside(outcome.run, executor.on_host,
                                outcome.started_clock)
        return outcome

    def _keep(self, plan, spec, at, order, final, outcomes, checks,
              records):
        """Write an attempt into the iteration's results."""
        _, repeat, attempt = at
        last = final and repeat == plan.repeats - 1
        disturbed = _pair_disturbed(plan, outcomes)
        alike = not disturbed and any(o.disturbed for o in outcomes)
        failures = []
        for outcome in outcomes:
            checks.append(tables.validity_row(spec, attempt, outcome, (
                "re-measured" if not final else
                "left out: disturbed" if disturbed else
                tables.USED_ALIKE if alike else "used")))
            twin = outcome.role == NATIVE_TWIN
            if outcome.error is not None:
                if final:
                    failures.append(("native twin: " if twin else "")
                                    + str(outcome.error))
                    if outcome.error.raw:
                        self._raw_output_table(
                            "%s%s %s" % ("native twin " if twin else "",
                                         spec.tool, spec.label),
                            outcome.error.raw)
                continue
            facts = dict(attempt=attempt + 1, final=final,
                         repeat=repeat + 1, disturbed=disturbed, order=(
                             "instance first" if order == 0
                             else "native first"))
            if outcome.load and outcome.load.get("foreign") is not None:
                facts["foreign_cores"] = round(outcome.load["foreign"], 3)
            if alike:
                facts["beside_load_alike"] = True
            if plan.sync is not None:
                # The pairs of one wave share its moment: the report
                # counts them as one observation (report/equivalence.py).
                facts["wave"] = self._wave(plan) + 1
            if twin:
                facts["twin"] = "native"
            elif len(outcomes) > 1:
                facts["paired"] = True
            found = metrics.records_of(spec.tool, spec.label,
                                       outcome.run.result.metrics, **facts)
            records.extend(found)
            if last:  # Rally's tables: one value per iteration
                versions = plan.twin.versions if twin else plan.versions
                self._metrics_output(spec, outcome.run, found,
                                     versions[spec.tool], twin)
        return " | ".join(failures) or None


def _pair_disturbed(plan, outcomes):
    """Whether an attempt is disturbed (foreign_load.pair_disturbed).

    A pair beside more than the limit is kept where that load was alike
    for both runs, with a CPU left for it: it cancels in their ratio. A
    test without a twin has no pair to cancel it in.
    """
    return foreign_load.pair_disturbed([o.load for o in outcomes],
                                       plan.limit, plan.saturated_share)


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


def _unplaced_said(load):
    unplaced = load.get("unplaced") or 0.0
    return ", %.2f of Rally's that may hide some" % unplaced \
        if unplaced > load["foreign"] else ""


@contextlib.contextmanager
def _window(host, owned):
    """The host's Readings around a run (readings None: none watched)."""
    if host is None:
        yield hosts.Window(None)
        return
    with host.window(owned=owned) as found:
        yield found
