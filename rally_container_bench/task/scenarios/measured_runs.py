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
ratio. So is an attempt one of whose runs read far below the recent runs
of its side (validity.run_level: the host slowed where no CPU accounting
sees it); at the last attempt it is kept, flagged. In a synchronised
wave every instance votes at the end of an attempt and the whole wave
re-measures together, so N stay N at once.

Every attempt is kept in the iteration's results (records with their
attempt, order, foreign load and whether they were disturbed or
superseded); the report uses the final, undisturbed ones.
"""

import collections
import dataclasses

from rally_container_bench.task import output_tables as tables
from rally_container_bench.task.scenarios import at_once
from rally_container_bench.task.scenarios import quiet_wait
from rally_container_bench.validity import clock
from rally_container_bench.validity import cpu_pairs
from rally_container_bench.validity import foreign_load
from rally_container_bench.validity import hosts
from rally_container_bench.validity import run_level
from rally_container_bench.workloads import common
from rally_container_bench.workloads import metrics
from rally_container_bench.workloads import tools

INSTANCE = "instance"
NATIVE_TWIN = "native twin"
# Barrier points of one attempt: each of its two runs has two (the wave
# is there; the wave has read its hosts), then the decision.
SLOTS = 5
# How an iteration's tests are paired: asked (a mode of
# validity.cpu_pairs, or {kind: mode}; None: in sequence), why it pairs
# in sequence all the same, and the two CPUs of its pairs at once.
Pairing = collections.namedtuple("Pairing", "asked in_sequence_why cpus")
# A twin's executor, on its CPU of a pair at once where one is asked, and
# beside: the same on the instance's CPU, for the tests paired in sequence
# (None: executor's). On two CPUs in turn a pair in sequence took the
# CPUs' difference in: the disk's completions land on one, and fileio's
# A/A at 1 had a pair SD of 30-42 % (KEK's campaign, 2026-12-06).
Twin = collections.namedtuple("Twin", "executor executable workdir versions "
                              "beside", defaults=(None, None))


def placed_twin(executor_on, cpu, twin_cpu, executable, workdir):
    """The Twin of a pair placed on (cpu, twin_cpu).

    executor_on(cpu): the twin's executor pinned on cpu; beside only
    where the pair has two CPUs (at once), for its tests in sequence.
    """
    return Twin(executor_on(twin_cpu), executable, workdir,
                beside=executor_on(cpu) if twin_cpu != cpu else None)


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
    # a mode (cpu_pairs.MODES) or {kind: mode}; why a step that asked
    # for pairs at once pairs in sequence (None: it may); the two CPUs
    pairing: object = None
    in_sequence_why: str = None
    cpus: str = None
    lead: float = at_once.FIRST_LEAD_S
    # a run this far below its side's level is measured again (0: never);
    # cell: the instances' platform (their side's level)
    level_bound: float = run_level.BOUND
    cell: str = None

    def mode(self, spec):
        """How a test is paired with its twin (cpu_pairs.MODES)."""
        if self.twin is None or not pairs(spec) or self.in_sequence_why:
            return cpu_pairs.SEQUENTIAL
        return cpu_pairs.mode_of(self.pairing, cpu_pairs.kind_of(spec))

    def point(self, index, repeat, attempt, slot):
        return (((index * self.repeats + repeat) * self.attempts + attempt)
                * SLOTS + slot)

    @property
    def end_point(self):
        return self.tests * self.repeats * self.attempts * SLOTS

    def roles(self, spec, order):
        if self.twin is None or not pairs(spec):
            return [INSTANCE]
        if self.mode(spec) == cpu_pairs.AT_ONCE:
            return [INSTANCE, NATIVE_TWIN]
        return [INSTANCE, NATIVE_TWIN][::1 if order == 0 else -1]

    def describe(self):
        facts = {}
        if self.twin is not None:
            facts["native_twin"] = (
                "each test paired with the same test on this host at the "
                "same concurrency, right before or after it (alternating)")
            if cpu_pairs.asked(self.pairing):
                facts["native_twin"] = (
                    "cpu and memory tests asked at once (%s) with their "
                    "twin on another CPU, released at one instant; %s" % (
                        self.pairing, self.in_sequence_why or
                        "CPUs: %s" % self.cpus))
        if self.repeats > 1:
            facts["repeat"] = "each test measured %d times" % self.repeats
        if self.host is not None:
            facts["foreign_load_limit"] = (
                "%g cores, %.3g where the host had no idle CPU (a "
                "disturbed test is measured again, at most %d time(s))"
                % (self.limit, self.limit * self.saturated_share,
                   self.attempts - 1))
            if self.twin is not None and self.level_bound \
                    and self.attempts > 1:
                facts["run_level"] = run_level.described(
                    self.level_bound, self.attempts - 1)
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
    skew: float = None  # at once: the instance's start after its twin's
    skewed: bool = False  # beyond cpu_pairs.skew_bound: left out
    below_level: float = None  # run_level.shortfall of its run

    @property
    def disturbed(self):
        return foreign_load.disturbed(self.load, self.limit,
                                      self.saturated_share)


class MeasuredRunsMixin(at_once.AtOnceMixin, quiet_wait.QuietWaitMixin):
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
            if plan.mode(spec) == cpu_pairs.AT_ONCE:
                outcomes = self._pair_at_once(plan, at, spec, lambda inside: (
                    Outcome(INSTANCE if inside else NATIVE_TWIN,
                            limit=plan.limit,
                            saturated_share=plan.saturated_share)),
                    lambda host: hosts.watched(host, owned=True))
            else:
                outcomes = [self._measured_run(plan, at, spec, slot, role)
                            for slot, role in enumerate(
                                plan.roles(spec, order))]
            disturbed = _pair_disturbed(plan, outcomes)
            dipped = _below_level(plan, spec, outcomes)
            row = None
            if disturbed and attempt < plan.attempts - 1:
                row = self._wait_for_quiet(plan, spec)
                if row:
                    waits.append(row)
            # Still busy after the wait: measuring again now would only
            # be discarded again; the run stays flagged, out of verdicts.
            again = self._remeasure(plan, at, spec, dipped or (
                disturbed and not (row and row[-1] not in (
                    quiet_wait.QUIET, quiet_wait.ROOM))))
            final = not again or attempt == plan.attempts - 1
            failure = self._keep(plan, spec, at, order, final, outcomes,
                                 checks, records)
            if final:
                return failure

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
        executor = plan.executor if inside else (
            plan.twin.beside or plan.twin.executor)
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
        # where the side's sysbench is: (versions, executable, workdir)
        where = (plan.versions, plan.executable, plan.workdir) if inside \
            else (plan.twin.versions, plan.twin.executable, plan.twin.workdir)
        # the wave's runs before are over: its layouts overlap no run
        prepared, outcome.error = self._prepare(executor, spec, where,
                                                plan.timeout)
        with hosts.watched(plan.host, owned=not inside) as window:
            if plan.sync is not None:
                start = at_once.scheduled(self._at_start_barrier(
                    plan.point(*at, 2 * slot + 1),
                    "%s (hosts read)" % label), outcome.started_clock)
            try:
                if outcome.error is None:
                    outcome.run = self._run_one(
                        executor, spec, *where, plan.timeout,
                        plan.endpoint if inside else None,
                        timed=None if inside else common.untimed,
                        start=start, prepared=prepared)
            except common.WorkloadError as e:
                outcome.error = e
        foreign_load.read_window(outcome, window)
        self._check_clock(executor, outcome)
        if inside and outcome.run is not None:
            self._record_inside(outcome.run, executor.on_host,
                                outcome.started_clock)
        return outcome

    def _prepare(self, executor, spec, where, timeout):
        """(prepared, WorkloadError or None): the test's files, laid out.

        where: (versions, executable, workdir) of the side's sysbench.
        Before the wave's release, so that its runs start together on
        files every instance has (sysbench fileio: written and fsynced,
        256 MiB an instance in KEK's campaign); laid out after it, a
        wave's first runs overlapped the others' layout. A replayed
        script lays out its own.
        """
        if getattr(executor, "replays", False):
            return False, None
        versions, executable, workdir = where
        job = common.Job(executor=executor, workdir=workdir,
                         timeout=timeout, sysbench=executable,
                         version=(versions or {}).get(spec.tool))
        try:
            return tools.of(spec).prepare(spec, job), None
        except common.WorkloadError as e:
            return False, e

    def _check_clock(self, executor, outcome):
        """The instance's clock against this host's over the run."""
        second = self._read_clock(executor) if outcome.started_clock \
            else None
        outcome.clock = clock.clock_check(
            outcome.started_clock, second) if second else {}

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
            if len(outcomes) > 1:
                facts.update(at_once.pairing_facts(plan, spec, outcome))
            if outcome.load and outcome.load.get("foreign") is not None:
                facts["foreign_cores"] = round(outcome.load["foreign"], 3)
            if alike:
                facts["beside_load_alike"] = True
            if outcome.below_level is not None:
                facts["below_level"] = round(outcome.below_level, 4)
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
    test without a twin has no pair to cancel it in. A pair at once
    whose sides started too far apart is measured again as well.
    """
    return any(o.skewed for o in outcomes) or foreign_load.pair_disturbed(
        [o.load for o in outcomes], plan.limit, plan.saturated_share)


def _below_level(plan, spec, outcomes):
    """Whether a run of the pair read far below its side's level.

    Sets each run's below_level (run_level); a pair on a watched host
    (its registry keeps the levels) that can be measured again.
    """
    registry = getattr(plan.host, "registry", None)
    if len(outcomes) < 2 or registry is None or plan.attempts < 2:
        return False
    step = plan.sync.concurrency if plan.sync else 1
    for outcome in outcomes:
        if outcome.run is not None:
            outcome.below_level = run_level.judge_run(
                registry.path, spec, step, plan.mode(spec),
                run_level.NATIVE if outcome.role == NATIVE_TWIN
                else plan.cell, outcome.run.result.metrics, plan.level_bound)
    return any(o.below_level is not None for o in outcomes)


def plan_pairing(pairing):
    """Plan's fields of a Pairing (None: in sequence)."""
    if pairing is None:
        return {}
    return {"pairing": pairing.asked,
            "in_sequence_why": pairing.in_sequence_why, "cpus": pairing.cpus}
