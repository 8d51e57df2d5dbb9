"""The plan of a test's attempts: barrier points, roles, disturbance."""

import collections
import contextlib
import shutil
import tempfile
import time
import unittest
from unittest import mock

from rally_container_bench.core import base
from rally_container_bench.task import output_tables as tables
from rally_container_bench.task.scenarios import at_once
from rally_container_bench.task.scenarios import measured_runs
from rally_container_bench.task.scenarios import quiet_wait as waits_lib
from rally_container_bench.validity import clock
from rally_container_bench.validity import cpu
from rally_container_bench.validity import cpu_pairs
from rally_container_bench.validity import hosts
from rally_container_bench.validity import run_level
from rally_container_bench.workloads import common
from rally_container_bench.workloads import tests as tests_lib


def _plan(**fields):
    values = dict(executor=None, executable="sysbench", workdir="/root",
                  timeout=60, endpoint=None, versions={}, sync=None,
                  twin=measured_runs.Twin(None, "sysbench", "/tmp"),
                  host=None, limit=0.25, attempts=3, tests=2, repeats=2)
    values.update(fields)
    return measured_runs.Plan(**values)


class PlanTestCase(unittest.TestCase):

    def test_every_run_and_decision_has_a_point_of_its_own(self):
        plan = _plan()
        points = [plan.point(t, r, a, s) for t in range(2) for r in range(2)
                  for a in range(3) for s in range(measured_runs.SLOTS)]
        self.assertEqual(len(points), len(set(points)))
        self.assertEqual(plan.end_point, max(points) + 1)

    def test_roles_alternate_and_only_local_tools_pair(self):
        plan = _plan()
        cpu = tests_lib.resolve("quick-cpu")
        self.assertEqual(["instance", "native twin"], plan.roles(cpu, 0))
        self.assertEqual(["native twin", "instance"], plan.roles(cpu, 1))
        self.assertEqual(["instance"], _plan(twin=None).roles(cpu, 1))
        iperf = tests_lib.resolve(next(
            n for n in tests_lib.names() if n.startswith("iperf3")))
        self.assertEqual(["instance"], plan.roles(iperf, 0))


class ScheduledStartTestCase(unittest.TestCase):

    def test_the_start_is_put_on_the_instance_s_clock(self):
        # the instance's clock 50 s ahead: read at 150.1 between 100 and
        # 100.2 on this host's
        read = clock.ClockRead(sent=100.0, guest=150.1, received=100.2)
        start = at_once.scheduled(time.time() + 1, read)
        self.assertAlmostEqual(time.time() + 51, start.at, delta=0.1)
        self.assertAlmostEqual(1 + at_once.MAX_EXTRA_WAIT_S,
                               start.at_most, delta=0.1)

    def test_an_unread_clock_is_taken_for_this_host_s(self):
        at = time.time() + 1
        self.assertEqual(at, at_once.scheduled(at).at)

    def test_a_start_already_past_waits_for_nothing_but_the_bound(self):
        start = at_once.scheduled(time.time() - 5)
        self.assertEqual(at_once.MAX_EXTRA_WAIT_S, start.at_most)

    def test_no_release_no_schedule(self):
        self.assertIsNone(at_once.scheduled(None))


class DisturbedTestCase(unittest.TestCase):

    def outcome(self, foreign, seconds):
        return measured_runs.Outcome(
            "instance", load={"foreign": foreign, "seconds": seconds},
            limit=0.25)

    def test_beyond_the_limit_is_disturbed(self):
        self.assertTrue(self.outcome(0.5, 5.0).disturbed)
        self.assertFalse(self.outcome(0.2, 5.0).disturbed)

    def test_a_short_run_allows_for_the_rounding_of_ticks(self):
        # 0.15 s: 3 ticks of rounding read as 0.2 cores
        self.assertFalse(self.outcome(0.4, 0.15).disturbed)
        self.assertTrue(self.outcome(0.5, 0.15).disturbed)

    def test_unmeasured_is_not_disturbed(self):
        self.assertFalse(measured_runs.Outcome("instance").disturbed)


class ScriptedHost:
    """Stand-in for a host (validity.hosts): scripted foreign load.

    One value per window. The real reading: test_decide's hog beside a
    real rcbench decide.
    """

    name = "compute-1"

    def __init__(self, foreign, unplaced=()):
        self.foreign = list(foreign)
        self.unplaced = list(unplaced)  # Rally's CPU on some of the CPUs
        self.windows = 0

    @contextlib.contextmanager
    def window(self, owned=False):
        found = hosts.Window(self)
        at, self.windows = self.windows, self.windows + 1
        busy = self.foreign.pop(0) if self.foreign else 0.0
        rally = self.unplaced.pop(0) if self.unplaced else 0.0
        found.before = hosts.Reading(at, self.name, None, 1, 10.0, 1.0, {},
                                     unplaced=1.0)
        yield found
        found.after = hosts.Reading(at + 1, self.name, None, 1,
                                    10.0 + busy + rally, 1.0 + rally, {},
                                    unplaced=1.0 + rally)


class _Runs(measured_runs.MeasuredRunsMixin):
    pass


class QuietWaitTestCase(unittest.TestCase):

    def setUp(self):
        waits_lib._stayed_busy.clear()
        self.addCleanup(waits_lib._stayed_busy.clear)

    def wait(self, foreign, quiet_wait=30.0, unplaced=()):
        host = ScriptedHost(foreign, unplaced)
        runs = _Runs()
        with mock.patch.object(waits_lib, "QUIET_WINDOW_S", 0.001):
            row = runs._wait_for_quiet(
                _plan(host=host, quiet_wait=quiet_wait),
                tests_lib.resolve("quick-cpu"))
        return host.windows, [row] if row else None

    def test_waits_while_the_host_is_busy_then_goes_on(self):
        windows, waits = self.wait([0.9, 0.8, 0.1])
        self.assertEqual(3, windows)
        ((label, host, _waited, foreign, quiet),) = waits
        self.assertEqual(("compute-1", 0.1, "yes"), (host, foreign, quiet))

    def test_gives_up_after_quiet_wait(self):
        windows, waits = self.wait([0.9] * 100000, quiet_wait=0.05)
        self.assertLess(windows, 100000)
        self.assertEqual("no (gave up)", waits[0][4])
        self.assertGreaterEqual(waits[0][2], 0.0)
        # it stayed busy: the next re-measure reads one window only
        windows, waits = self.wait([0.9, 0.1])
        self.assertEqual((1, "no (still busy)"), (windows, waits[0][4]))
        windows, waits = self.wait([0.1, 0.9])
        self.assertEqual((1, waits_lib.QUIET), (windows, waits[0][4]))

    def test_waits_while_rallys_unplaced_cpu_may_hide_foreign_load(self):
        with mock.patch.object(waits_lib, "LOG") as log:
            windows, waits = self.wait([0.0, 0.0], unplaced=[0.6, 0.0])
        self.assertEqual((2, "yes"), (windows, waits[0][4]))
        self.assertIn("0.00 cores of foreign load, 0.60 of Rally's",
                      log.info.call_args_list[0][0][0])

    def test_a_load_that_leaves_a_cpu_free_ends_the_wait_of_a_pair(self):
        class TwoCpus(ScriptedHost):
            """One loop's core on a 2-CPU host with one instance."""

            @contextlib.contextmanager
            def window(self, owned=False):
                found = hosts.Window(self)
                self.windows += 1
                ticks = 2 * cpu.TICKS
                found.before = hosts.Reading(
                    0.0, self.name, cpu.CpuTimes(0, 0, 0, 2), 2, 0.0, 0.0,
                    {"i": 0.0})
                yield found
                found.after = hosts.Reading(
                    1.0, self.name, cpu.CpuTimes(ticks, 0, 0, 2), 2, 1.0,
                    0.0, {"i": 0.0})

        host = TwoCpus([])
        quick_cpu = tests_lib.resolve("quick-cpu")
        with mock.patch.object(waits_lib, "QUIET_WINDOW_S", 0.001):
            row = _Runs()._wait_for_quiet(_plan(host=host, quiet_wait=30.0),
                                          quick_cpu)
            self.assertEqual((1, 1.0, waits_lib.ROOM),
                             (host.windows, row[3], row[4]))
            # a test with no twin waits for quiet
            row = _Runs()._wait_for_quiet(
                _plan(host=host, quiet_wait=0.05, twin=None), quick_cpu)
        self.assertEqual("no (gave up)", row[4])

    def test_nothing_to_wait_for(self):
        self.assertEqual((0, None), self.wait([0.9], quiet_wait=0))
        self.assertIsNone(_Runs()._wait_for_quiet(
            _plan(host=None, quiet_wait=30), tests_lib.resolve("quick-cpu")))


class RemeasureTestCase(unittest.TestCase):
    """A disturbed test is measured again only if its host went quiet."""

    def setUp(self):
        waits_lib._stayed_busy.clear()
        self.addCleanup(waits_lib._stayed_busy.clear)

    def attempts(self, foreign):
        """Attempts made of one test whose runs are all disturbed."""
        made = []
        runs = _Runs()
        runs.context = {"iteration": 1}

        def measured_run(plan, at, spec, slot, role):
            made.append(at[2])
            return measured_runs.Outcome(
                role, load={"foreign": 0.9, "seconds": 5.0}, limit=0.25)

        runs._measured_run = measured_run
        runs._keep = lambda *args: None
        waits = []
        plan = _plan(host=ScriptedHost(foreign), quiet_wait=0.05,
                     twin=None)
        with mock.patch.object(waits_lib, "QUIET_WINDOW_S", 0.001):
            runs._measure_repeat(plan, 0, 0, tests_lib.resolve("quick-cpu"),
                                 [], [], waits)
        return sorted(set(made)), [w[4] for w in waits]

    def test_quiet_after_the_wait_measures_again(self):
        self.assertEqual(([0, 1, 2], ["yes", "yes"]),
                         self.attempts([0.9, 0.1, 0.1]))

    def test_still_busy_after_the_wait_keeps_the_flagged_run(self):
        made, waits = self.attempts([0.9] * 100000)
        self.assertEqual(([0], ["no (gave up)"]), (made, waits))
        # the next test on that host: one window, still busy, kept
        made, waits = self.attempts([0.9])
        self.assertEqual(([0], ["no (still busy)"]), (made, waits))


class AlikePairTestCase(unittest.TestCase):
    """A pair beside the same load, a CPU free for it, is kept."""

    def setUp(self):
        waits_lib._stayed_busy.clear()
        self.addCleanup(waits_lib._stayed_busy.clear)

    def attempts(self, foreign_by_role):
        made, kept = [], []
        runs = _Runs()
        runs.context = {"iteration": 1}

        def measured_run(plan, at, spec, slot, role):
            made.append(at[2])
            return measured_runs.Outcome(role, load={
                "foreign": foreign_by_role[role], "seconds": 5.0, "cpus": 2,
                "instances": 1, "unplaced": 0.0, "runnable": 1}, limit=0.25)

        runs._measured_run = measured_run
        runs._keep = lambda plan, spec, at, order, final, outcomes, *rest: \
            kept.append((at[2], final, measured_runs._pair_disturbed(
                plan, outcomes)))
        plan = _plan(host=ScriptedHost([0.9]), quiet_wait=0.05)
        with mock.patch.object(waits_lib, "QUIET_WINDOW_S", 0.001):
            runs._measure_repeat(plan, 0, 0, tests_lib.resolve("quick-cpu"),
                                 [], [], [])
        return sorted(set(made)), kept

    def test_a_steady_neighbour_beside_both_keeps_the_first_attempt(self):
        made, kept = self.attempts({measured_runs.INSTANCE: 1.0,
                                    measured_runs.NATIVE_TWIN: 0.98})
        self.assertEqual(([0], [(0, True, False)]), (made, kept))

    def test_a_neighbour_beside_one_of_the_two_is_measured_again(self):
        made, kept = self.attempts({measured_runs.INSTANCE: 1.0,
                                    measured_runs.NATIVE_TWIN: 0.0})
        self.assertEqual(0, made[0])
        self.assertGreater(len(made), 1)
        self.assertTrue(kept[0][2])

    def test_a_test_without_a_twin_has_no_pair_to_cancel_it(self):
        plan = _plan(twin=None)
        lone = [measured_runs.Outcome(measured_runs.INSTANCE, load={
            "foreign": 1.0, "seconds": 5.0, "cpus": 2, "instances": 1},
            limit=0.25)]
        self.assertTrue(measured_runs._pair_disturbed(plan, lone))


class ReleaseTestCase(unittest.TestCase):
    """Only the test itself follows the wave's release."""

    def wave_run(self, test, prepare_fails=False):
        """The events of one synchronised run of test, prepared files."""
        events = []

        class Host(ScriptedHost):
            @contextlib.contextmanager
            def window(self, owned=False):
                events.append("host read")
                yield hosts.Window(self)
                events.append("host read")

        runs = _Runs()
        runs.context = {"iteration": 1}
        runs._read_clock = lambda executor: None
        runs._at_start_barrier = lambda point, label: events.append(
            "released %d" % point)

        def run(argv, timeout, cwd=None):
            events.append(argv[argv.index("run") if "run" in argv else -1])
            if prepare_fails and "prepare" in argv:
                return base.CommandResult("", 1, "", "No space left", 0.1)
            return base.CommandResult("", 0, "", "", 0.1)

        def run_one(executor, spec, *args, prepared=False, **kwargs):
            events.append("test (files %s)" % (
                "laid out" if prepared else "its own"))

        runs._run_one = run_one
        executor = mock.Mock(on_host=True, replays=False, run=run)
        plan = _plan(host=Host([0.0]), executor=executor, sync=mock.Mock(),
                     versions={"sysbench": "1.0.20"})
        outcome = runs._measured_run(plan, (0, 0, 0), tests_lib.resolve(
            test), 0, measured_runs.INSTANCE)
        return events, outcome

    def test_the_hosts_first_reading_comes_between_two_barriers(self):
        events, _ = self.wave_run("quick-cpu")
        self.assertEqual(["released 0", "host read", "released 1",
                          "test (files its own)", "host read"], events)

    def test_a_waves_files_are_laid_out_before_its_release(self):
        # each instance's layout before the wave's runs start together:
        # after the release that starts them, a 256 MiB layout overlapped
        # the runs of the instances that had theirs
        events, outcome = self.wave_run("quick-fileio-rndrd")
        self.assertEqual(["released 0", "prepare", "host read",
                          "released 1", "test (files laid out)",
                          "host read"], events)
        self.assertIsNone(outcome.error)

    def test_a_layout_that_fails_fails_the_run_but_keeps_the_wave(self):
        events, outcome = self.wave_run("quick-fileio-rndrd",
                                        prepare_fails=True)
        # the release is still reached: the others of the wave go on
        self.assertEqual(["released 0", "prepare", "host read",
                          "released 1", "host read"], events)
        self.assertIn("prepare exited 1", str(outcome.error))


class KeptTestCase(unittest.TestCase):
    """What an attempt's records say about when it was measured."""

    def keep(self, sync=None, iteration=3, **outcome):
        """(records, validity rows) of one attempt of a cpu test's pair."""
        runs = _Runs()
        runs.context = {"iteration": iteration}
        runs._metrics_output = lambda *args: None
        found = {"events_per_s": mock.Mock(value=990.0, unit="events/s",
                                           higher_is_better=True)}
        outcomes = [measured_runs.Outcome(role, run=mock.Mock(
            result=mock.Mock(metrics=found)), **outcome)
            for role in (measured_runs.INSTANCE, measured_runs.NATIVE_TWIN)]
        records, checks = [], []
        versions = {"sysbench": "1.0.20"}
        plan = _plan(sync=sync, repeats=1, versions=versions,
                     twin=measured_runs.Twin(None, "sysbench", "/tmp",
                                             versions))
        runs._keep(plan, tests_lib.resolve(
            "quick-cpu"), (0, 0, 0), 0, True, outcomes, checks, records)
        return records, checks

    def kept(self, sync):
        return [r.metadata.get("wave") for r in self.keep(sync)[0]]

    def test_a_pair_beside_load_alike_is_used_and_says_so(self):
        records, checks = self.keep(iteration=1, limit=0.25, load={
            "foreign": 1.0, "seconds": 5.0, "cpus": 2, "instances": 1})
        self.assertEqual([(False, True)] * 2, [
            (r.metadata["disturbed"], r.metadata.get("beside_load_alike"))
            for r in records])
        column = tables.VALIDITY_COLUMNS.index
        self.assertEqual([("yes", tables.USED_ALIKE)] * 2, [
            (row[column("disturbed")], row[column("verdicts")])
            for row in checks])

    def test_a_synchronised_wave_is_recorded_on_both_of_a_pair(self):
        sync = mock.Mock()
        sync.wave_of.return_value = 1  # iteration 3 at 2: the second wave
        self.assertEqual([2, 2], self.kept(sync))
        self.assertEqual([None, None], self.kept(None))


Metric = collections.namedtuple("Metric", "value unit")
Result = collections.namedtuple("Result", "metrics")


class TwinCpuTestCase(unittest.TestCase):
    """A test paired in sequence runs its twin beside the instance.

    Where a step's cpu pairs run at once, its twin's executor is on
    another CPU; fileio (and a kind left in sequence) runs the twin on
    the instance's CPU, its "beside" executor.
    """

    def twin_executor(self, twin):
        runs = _Runs()
        runs.context = {"iteration": 1}
        runs._read_clock = lambda executor: None
        seen = []

        def run_one(executor, *args, **kwargs):
            seen.append(executor)
            return None

        runs._run_one = run_one
        runs._prepare = lambda executor, spec, where, timeout: (
            seen.append(executor) or (True, None))
        plan = _plan(executor=mock.Mock(on_host=True), twin=twin,
                     pairing={"cpu": cpu_pairs.AT_ONCE})
        spec = tests_lib.resolve("quick-fileio-rndrd")
        self.assertEqual(cpu_pairs.SEQUENTIAL, plan.mode(spec))
        runs._measured_run(plan, (0, 0, 0), spec, 0,
                           measured_runs.NATIVE_TWIN)
        # its files are laid out where it runs
        self.assertEqual(2, len(seen))
        self.assertIs(seen[0], seen[1])
        return seen[0]

    def test_the_twin_in_sequence_runs_on_the_instance_s_cpu(self):
        on_its_cpu, beside = mock.Mock(), mock.Mock()
        self.assertIs(beside, self.twin_executor(measured_runs.Twin(
            on_its_cpu, "sysbench", "/tmp", beside=beside)))
        # one CPU for both (no pair at once): the twin's own executor
        self.assertIs(on_its_cpu, self.twin_executor(measured_runs.Twin(
            on_its_cpu, "sysbench", "/tmp")))


class AtOnceTestCase(unittest.TestCase):
    """_pair_at_once with stand-in runs (their start stamps written here).

    The real pairs at once: tests/functional/test_decide_at_once.py.
    """

    def pair(self, starts, twin_error=None, length=1.0):
        runs = _Runs()
        runs.context = {"iteration": 1}
        runs._read_clock = lambda executor: None
        runs._record_inside = lambda *args: None
        seen = []

        def run_one(executor, spec, versions, executable, workdir, timeout,
                    endpoint, timed=None, start=None):
            side = "twin" if timed is not None else "instance"
            seen.append((side, start.at))
            if side == "twin" and twin_error:
                raise twin_error
            return common.TestRun(spec, "sysbench", Result(
                {"total_time_s": Metric(length, "s")}), starts[side])

        runs._run_one = run_one
        executor = mock.Mock(on_host=True)
        plan = _plan(executor=executor, twin=measured_runs.Twin(
            mock.Mock(), "sysbench", "/tmp", {"sysbench": "1.0.20"}),
            versions={"sysbench": "1.0.20"}, pairing="at-once",
            cpus="instance on CPU 0, twin on CPU 1")
        outcomes = runs._pair_at_once(
            plan, (0, 0, 0), tests_lib.resolve("quick-cpu"),
            lambda inside: measured_runs.Outcome(
                measured_runs.INSTANCE if inside
                else measured_runs.NATIVE_TWIN),
            lambda host: contextlib.nullcontext(hosts.Window(None)))
        return plan, outcomes, seen

    def test_both_sides_wait_for_one_instant_and_the_skew_is_kept(self):
        plan, outcomes, seen = self.pair({"instance": 100.002,
                                          "twin": 100.0})
        self.assertEqual(1, len({at for _, at in seen}))
        self.assertAlmostEqual(0.002, outcomes[0].skew)
        self.assertFalse(any(o.skewed for o in outcomes))
        self.assertEqual(at_once.FIRST_LEAD_S, plan.lead)
        self.assertEqual(cpu_pairs.AT_ONCE, plan.mode(
            tests_lib.resolve("quick-cpu")))

    def test_a_skew_beyond_a_hundredth_flags_the_pair_and_the_lead_grows(self):
        plan, outcomes, _ = self.pair({"instance": 100.02, "twin": 100.0})
        self.assertTrue(all(o.skewed for o in outcomes))
        self.assertTrue(measured_runs._pair_disturbed(plan, outcomes))
        self.assertEqual(2 * at_once.FIRST_LEAD_S, plan.lead)
        facts = at_once.pairing_facts(
            plan, tests_lib.resolve("quick-cpu"), outcomes[0])
        self.assertEqual({"pairing": "at once", "order": "at once",
                          "cpus": "instance on CPU 0, twin on CPU 1",
                          "skew_ms": 20.0, "skewed": True}, facts)

    def test_an_engine_fault_of_the_twin_fails_the_iteration(self):
        with self.assertRaises(base.DriverError):
            self.pair({"instance": 1.0, "twin": 1.0},
                      twin_error=base.CommandTimeout("sysbench hung"))

    def test_a_step_that_cannot_pair_at_once_pairs_in_sequence(self):
        plan = _plan(pairing="at-once", in_sequence_why="2 need 4 CPUs")
        self.assertEqual(cpu_pairs.SEQUENTIAL,
                         plan.mode(tests_lib.resolve("quick-cpu")))
        self.assertEqual(cpu_pairs.SEQUENTIAL, _plan(pairing="at-once").mode(
            tests_lib.resolve("quick-fileio-rndrd")))
        said = cpu_pairs.pairing_said(measured_runs.Pairing(
            "at-once", "2 need 4 CPUs", None))
        self.assertIn("in sequence, at once asked: 2 need 4 CPUs", said)

    def test_a_step_whose_kinds_were_all_chosen_in_sequence_says_so(self):
        # decide's calibration chose in sequence for both kinds (README
        # command 1 on a fresh machine, 2026-12-06): the placement table
        # said "at once ()" for the cells at 1
        chosen = {"cpu": cpu_pairs.SEQUENTIAL,
                  "memory": cpu_pairs.SEQUENTIAL}
        self.assertEqual("in sequence", cpu_pairs.pairing_said(
            measured_runs.Pairing(chosen, None, None)))
        said = cpu_pairs.pairing_said(measured_runs.Pairing(
            dict(chosen, cpu=cpu_pairs.AT_ONCE), None, None))
        self.assertTrue(said.startswith("at once (cpu): "), said)


class RunLevelTestCase(unittest.TestCase):
    """A run far below its side's recent runs: its pair again.

    The host is a stand-in (no load); the levels are the real file store
    (validity.run_level) in a temporary registry, each side's seeded
    with 5 runs at 1500.
    """

    def setUp(self):
        self.registry = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.registry)
        self.spec = tests_lib.resolve("quick-cpu")
        levels = run_level.Levels(self.registry)
        for side in (run_level.NATIVE, "docker"):
            for value in (1500, 1510, 1490, 1505, 1495):
                levels.add(run_level.key_of(self.spec, 1, "sequential",
                                            side), value)

    def attempts(self, twins, instances=(), **plan_fields):
        """(attempts made, records, validity rows) of one test."""
        made, records, checks = [], [], []
        values = {measured_runs.NATIVE_TWIN: list(twins),
                  measured_runs.INSTANCE: list(instances)}
        runs = _Runs()
        runs.context = {"iteration": 1}
        runs._metrics_output = lambda *args: None

        def measured_run(plan, at, spec, slot, role):
            made.append(at[2])
            scripted = values[role]
            metric = mock.Mock(value=scripted.pop(0) if scripted else 1500.0,
                               unit="events/s", higher_is_better=True)
            return measured_runs.Outcome(role, run=mock.Mock(
                result=mock.Mock(metrics={"events_per_s": metric})))

        runs._measured_run = measured_run
        host = ScriptedHost([])
        host.registry = mock.Mock(path=self.registry)
        versions = {"sysbench": "1.0.20"}
        plan = _plan(host=host, repeats=1, versions=versions, cell="docker",
                     twin=measured_runs.Twin(None, "sysbench", "/tmp",
                                             versions), **plan_fields)
        runs._measure_repeat(plan, 0, 0, self.spec, checks, records, [])
        return sorted(set(made)), records, checks

    def rows(self, checks, run):
        column = tables.VALIDITY_COLUMNS.index
        return [(row[column("disturbed")], row[column("verdicts")])
                for row in checks if row[column("run")] == run]

    def test_a_slow_twin_is_measured_again_and_the_next_kept(self):
        made, records, checks = self.attempts([800.0, 1490.0])
        self.assertEqual([0, 1], made)
        first = [r for r in records if r.metadata.get("twin")
                 and r.metadata["attempt"] == 1]
        self.assertAlmostEqual(800 / 1500 - 1,
                               first[0].metadata["below_level"], places=3)
        self.assertFalse(first[0].metadata["final"])
        self.assertEqual([(tables.BELOW_LEVEL, "re-measured"), ("", "used")],
                         self.rows(checks, "native twin"))

    def test_a_slow_instance_is_measured_again_as_a_slow_twin_is(self):
        # judged against its platform's own level, not native's
        made, _, checks = self.attempts([1500.0] * 2, instances=[700.0])
        self.assertEqual([0, 1], made)
        self.assertEqual([(tables.BELOW_LEVEL, "re-measured"), ("", "used")],
                         self.rows(checks, "instance"))

    def test_a_run_slow_to_the_last_attempt_is_kept_flagged(self):
        made, records, checks = self.attempts([800.0, 790.0, 805.0])
        self.assertEqual([0, 1, 2], made)
        final = [r for r in records if r.metadata["final"]]
        self.assertEqual(2, len(final))
        self.assertTrue(any("below_level" in r.metadata for r in final))
        self.assertEqual((tables.BELOW_LEVEL, "used"),
                         self.rows(checks, "native twin")[-1])

    def test_a_bound_of_0_judges_no_run(self):
        made, records, _ = self.attempts([800.0], [700.0], level_bound=0)
        self.assertEqual([0], made)
        self.assertFalse(any("below_level" in r.metadata for r in records))
