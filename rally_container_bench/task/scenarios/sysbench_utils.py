"""What every scenario that runs sysbench does with it, in Rally terms.

Each test's run step is the atomic action ``sysbench.<label>`` (e.g.
sysbench.cpu, sysbench.fileio.rndrd); its metrics go to the report as an
additive StatsTable ("<metric> (<unit>)" rows, aggregated over the
iterations by Rally), and the place it ran as a complete table.
"""

import os
import shutil
import tempfile
import time

from rally import exceptions
from rally.task import atomic

from rally_container_bench.core import base
from rally_container_bench.core import provenance
from rally_container_bench.engines.native import instance as native
from rally_container_bench import opts
from rally_container_bench.report import overlap
from rally_container_bench.task import output_tables as tables
from rally_container_bench.task.scenarios import measured_runs
from rally_container_bench.task.scenarios import sysbench_builds
from rally_container_bench.validity import barrier
from rally_container_bench.validity import clock
from rally_container_bench.validity import cpu_pairs
from rally_container_bench.validity import hosts
from rally_container_bench.workloads import common
from rally_container_bench.workloads import metrics
from rally_container_bench.workloads import tests as tests_lib
from rally_container_bench.workloads import tools


class SysbenchTestsFailed(exceptions.RallyException):
    error_code = 720
    msg_fmt = "%(message)s"


class StartBarrierMixin:
    """An iteration's place at the synchronised start (rcbench_start_barrier).

    Without that context every method is a no-op.
    """

    def _at_start_barrier(self, point, label, vote=False):
        """Wait for the wave at point; the start it set (None: at once).

        The start is this host's time (epoch) the wave's tests start at;
        its lead left when this instance was released is recorded.
        """
        sync = barrier.current()
        if sync is None:
            return None
        iteration = self.context.get("iteration", 1)
        waited, timed_out = sync.wait(iteration, point, vote=vote)
        start_at = None if timed_out else sync.start_at(iteration, point)
        self._barrier_next = point + 1
        self.__dict__.setdefault("_barrier_waits", []).append(
            [label, round(waited, 3), "timed out" if timed_out else "no",
             None if start_at is None
             else round(start_at - time.time(), 3)])
        return start_at

    def _wave_cpu(self):
        """This iteration's host CPU: the wave's instances spread in turn."""
        sync = barrier.current()
        size = sync.concurrency if sync is not None else 1
        cpus = sorted(os.sched_getaffinity(0))
        position = (self.context.get("iteration", 1) - 1) % size
        return cpus[position % len(cpus)]

    def _pair_placement(self, pairing, tuned_cpuset=None, vm=False):
        """(instance's CPU, twin's CPU, measured_runs.Pairing) of a pair.

        Asked at once (cpu_pairs.MODES in pairing): two CPUs of cores of
        their own for this iteration, the sides alternating wave by wave
        from the round's seed; where the host has too few, a tuning
        fixed the instance's CPUs, or the instance is a VM (vm), both on
        this iteration's CPU in sequence, and the Pairing says why.
        """
        asked = cpu_pairs.asked(pairing)
        if asked is None:
            cpu = None if tuned_cpuset else self._wave_cpu()
            return cpu, cpu, measured_runs.Pairing(None, None, None)
        if tuned_cpuset:
            return None, None, measured_runs.Pairing(
                asked, "the tuning's cpuset %s fixes the instance's CPUs"
                % tuned_cpuset, None)
        if vm:
            cpu = self._wave_cpu()
            return cpu, cpu, measured_runs.Pairing(
                asked, cpu_pairs.VM_IN_SEQUENCE, None)
        sync = barrier.current()
        size = sync.concurrency if sync is not None else 1
        iteration = self.context.get("iteration", 1)
        usable, siblings = cpu_pairs.host_cpus()
        pair, why = cpu_pairs.pair_of((iteration - 1) % size, size, usable,
                                      siblings)
        if pair is None:
            cpu = self._wave_cpu()
            return cpu, cpu, measured_runs.Pairing(asked, why, None)
        mine, twins = self._alternated(pair)
        return mine, twins, measured_runs.Pairing(
            asked, None, "instance on CPU %d, twin on CPU %d" % (mine, twins))

    def _alternated(self, pair, turn=None):
        """(this side's CPU, the twin's) of a pair (cpu_pairs.sides).

        Alternating wave by wave (or turn by turn) from the round's seed.
        """
        found = self.context.get("rcbench_round") or {}
        seed = found.get("seed", 1) * 1000 + found.get("round", 1)
        if turn is None:
            sync = barrier.current()
            iteration = self.context.get("iteration", 1)
            turn = sync.wave_of(iteration) if sync else iteration - 1
        return cpu_pairs.sides(pair, seed, turn)

    def _leave_start_barrier(self):
        """Release the points this iteration will not reach (it failed)."""
        sync = barrier.current()
        if sync is not None:
            sync.leave(self.context.get("iteration", 1),
                       getattr(self, "_barrier_next", 0))
            self._barrier_next = sync.points  # once: it is gone

    def _start_barrier_table(self):
        waits = getattr(self, "_barrier_waits", None)
        if waits:
            self.add_output(complete={
                "title": tables.START_BARRIER,
                "description": "Seconds this instance waited for the "
                               "others of its wave before each test, and "
                               "the lead left to the wave's start when it "
                               "was released",
                "chart_plugin": "Table",
                "data": {"cols": ["test", "waited_s", "timed_out",
                                  "lead_left_s"],
                         "rows": waits}})


class SysbenchScenarioMixin(measured_runs.MeasuredRunsMixin,
                            StartBarrierMixin):

    def add_environment(self, environment):
        """Where the iteration ran: the comparison report groups by it."""
        self.add_output(complete=environment_table(environment))

    def _scratch_here(self, stack, parent=None):
        """A private directory on this host for native runs, removed after.

        Named as Rally names the task's resources (under parent, default
        [container_bench] native_workdir or the system's temporary
        directory): rcbench cleanup --task finds one a killed run left.
        """
        path = os.path.join(
            parent or opts.register().native_workdir or tempfile.gettempdir(),
            self.generate_random_name())
        os.mkdir(path, 0o700)
        stack.callback(shutil.rmtree, path, True)
        return path

    def _timed(self, name):
        """The timer of one test's measured step (atomic action name)."""
        return atomic.ActionTimer(self, name)

    def _timer(self, tool):
        return lambda label: self._timed("%s.%s" % (tool, label))

    def run_tests(self, executor, tests, executable, workdir,
                  timeout=None, metadata=None, endpoint=None,
                  synchronised=True, twin=None, host=hosts.HERE, repeat=1,
                  pairing=None):
        """Run every test, report each, raise if any failed.

        A failed test does not stop the others, so one bad test loses no
        other result of the iteration. endpoint(port) -> base.Endpoint:
        where this host reaches a server listening on port inside
        (iperf3, http tests).
        With a start barrier (and synchronised), each test starts when the
        instance's whole wave is ready for it. twin: a measured_runs.Twin,
        the native twin each test is paired with. host: the
        validity.hosts view of the host the tests run on, whose foreign
        load is read during each run (disturbed runs are measured
        again); None: none is read; default: this host where the
        executor runs here. repeat: measure each test (with its twin)
        this many times in a row. pairing: a measured_runs.Pairing (its
        tests' twins at once, where asked and possible).
        """
        if host is hosts.HERE:
            host = hosts.LocalHost(opts.register()) if executor.on_host \
                else None
        try:
            self._run_tests(executor, tests, executable, workdir, timeout,
                            metadata, endpoint, synchronised, twin,
                            host, repeat, pairing)
        finally:
            self._leave_start_barrier()
            self._start_barrier_table()

    def _run_tests(self, executor, tests, executable, workdir, timeout,
                   metadata, endpoint, synchronised, twin, host,
                   repeat=1, pairing=None):
        conf = opts.register()
        timeout = timeout or conf.command_timeout
        specs = tests_lib.resolve_all(tests)
        executable, twin, builds = sysbench_builds.for_tests(
            executor, specs, executable, twin, conf.sysbench_build, timeout,
            image=(metadata or {}).get("image"))
        versions = self._versions(executor, specs, executable, timeout)
        environment = dict(executor.describe(), **{
            tools.get(tool).version_key: version
            for tool, version in versions.items()})
        environment.update(builds)
        environment.update(metadata or {})
        sync = barrier.current() if synchronised else None
        if sync is not None:
            environment["start_barrier"] = (
                "each test starts when the instance's wave of %d is ready "
                "(timeout %g s)" % (sync.concurrency, sync.timeout))
        plan = measured_runs.Plan(
            executor=executor, executable=executable, workdir=workdir,
            timeout=timeout, endpoint=endpoint, versions=versions, sync=sync,
            twin=twin and twin._replace(versions=self._versions(
                twin.executor, [s for s in specs if measured_runs.pairs(s)],
                twin.executable, timeout)),
            host=host, limit=conf.foreign_load_limit,
            attempts=1 + (conf.remeasure_limit if host else 0),
            tests=len(specs), repeats=repeat, quiet_wait=conf.quiet_wait,
            saturated_share=conf.saturated_load_share,
            level_bound=conf.run_level_bound,
            cell=environment.get("driver") or type(executor).__name__,
            **measured_runs.plan_pairing(pairing))
        environment.update(plan.describe())
        self.add_environment(environment)
        failures, checks, records, waits = [], [], [], []
        for index, spec in enumerate(specs):
            failure = self._measure_test(plan, index, spec, checks, records,
                                         waits)
            if failure:
                failures.append(failure)
        if sync is not None:
            # and none deletes its instance while others still test
            self._at_start_barrier(plan.end_point, "(end of the tests)")
        if records:
            self.add_output(complete=metrics.records_table(records))
        if waits:
            self.add_output(complete=_quiet_wait_table(waits))
        if checks:
            self.add_output(complete=_validity_table(checks))
        if failures:
            raise SysbenchTestsFailed(
                message="%d of %d tests failed: %s"
                        % (len(failures), len(specs), " | ".join(failures)))

    def _record_inside(self, run, on_this_host, started):
        """The test's run inside the instance: a child atomic action.

        From the instance's clock at sysbench's start and sysbench's own
        total time, on the Rally host's clock (report/overlap.py measures
        the tests at once with it).
        """
        offset = clock.clock_offset(started) if not on_this_host else 0.0
        length = run.result.metrics.get("total_time_s")
        if run.started_inside is None or offset is None or length is None:
            return
        name = "%s.%s" % (run.spec.tool, run.spec.label)
        actions = [a for a in self.atomic_actions() if a["name"] == name]
        if actions:
            start = run.started_inside - offset
            actions[-1].setdefault("children", []).append({
                "name": overlap.INSIDE, "children": [], "failed": False,
                "started_at": start, "finished_at": start + length.value})

    def _read_clock(self, executor):
        return _guest_clock(executor)

    def _raw_output_table(self, label, raw):
        self.add_output(complete=_raw_output(label, raw))

    def _metrics_output(self, spec, run, records, version, twin=False):
        table = _metrics_table(spec.tool, run, records, version,
                               getattr(spec, "threads", None))
        if twin:
            table["title"] = tables.NATIVE_TWIN_PREFIX + table["title"]
            table["description"] = "On this host, paired with the "\
                "instance's run: " + table["description"]
        self.add_output(additive=table)

    def _run_one(self, executor, spec, versions, executable, workdir,
                 timeout, endpoint, timed=None, start=None, prepared=False):
        # A replayed script's actions already hold the times inside.
        job = common.Job(executor=executor, workdir=workdir, timeout=timeout,
                         version=versions[spec.tool], sysbench=executable,
                         endpoint=endpoint, client=native.NativeExecutor(),
                         timed=timed or self._timer(spec.tool),
                         stamp=not getattr(executor, "replays", False),
                         start=start, prepared=prepared)
        return tools.of(spec).run(spec, job)

    def _versions(self, executor, specs, executable, timeout):
        """{tool: version} of the tools the specs need, asked first."""
        needed = {s.tool for s in specs}
        versions = {}
        for tool in sorted(needed, reverse=True):  # sysbench first
            try:
                versions[tool] = tools.get(tool).version(
                    executor, executable, timeout)
            except common.WorkloadError as e:
                if e.raw:
                    self.add_output(complete=_raw_output(
                        "%s --version" % tool, e.raw))
                raise
        return versions


def _guest_clock(executor):
    if executor is None:
        return None
    try:
        return clock.read_guest_clock(executor)
    except base.DriverError:
        return None


def _quiet_wait_table(waits):
    return {"title": tables.QUIET_WAIT,
            "description": "Before a disturbed test was measured again: "
                           "how long it waited for its host's foreign load "
                           "to drop below the limit ([container_bench] "
                           "quiet_wait at most), and the load it last read",
            "chart_plugin": "Table",
            "data": {"cols": ["test", "host", "waited_s", "foreign_cores",
                              "quiet"],
                     "rows": waits}}


def _validity_table(checks):
    return {"title": tables.VALIDITY,
            "description": "The CPU of the host each run ran on (host: the "
                           "Rally host, or the instance's compute host) "
                           "during each run of each "
                           "test (busy and steal shares, most runnable "
                           "tasks seen; foreign: cores busy with work that "
                           "is neither the harness nor the task's instances, "
                           "own: theirs; disturbed: foreign above the limit) "
                           "and the instance's clock against the host's "
                           "(guest elapsed / host elapsed; mismatch: beyond "
                           "2 % whatever the SSH latency)",
            "chart_plugin": "Table",
            "data": {"cols": list(tables.VALIDITY_COLUMNS),
                     "rows": checks}}


# Enough lines for sysbench's own error and its summary, not a runaway log.
RAW_LINES = 60


def _raw_output(label, raw):
    lines = raw.splitlines()
    if len(lines) > RAW_LINES:
        lines = (["... %d lines left out ..." % (len(lines) - RAW_LINES)]
                 + lines[-RAW_LINES:])
    return {"title": "%s failed: its output" % label,
            "description": "What the tool printed (stdout and stderr)",
            "chart_plugin": "TextArea", "data": lines}


def _metrics_table(tool, run, records, version, threads=None):
    how = ", %d thread(s)" % threads if threads else ""
    return {
        "title": tables.workload(tool, run.spec.label),
        "description": "%s %s%s: %s" % (tools.get(tool).program, version,
                                        how, run.command),
        "chart_plugin": "StatsTable",
        "data": metrics.stats_rows(records),
    }


def environment_table(environment):
    """The environment table of an iteration, with what made it.

    This harness's version and commit, Rally's, Python's, numpy's and
    scipy's (core.provenance): rcbench diff and the gate compare them.
    """
    environment = dict(provenance.facts(), **environment)
    return {
        "title": tables.ENVIRONMENT,
        "description": "Where this iteration ran",
        "chart_plugin": "Table",
        "data": {"cols": ["key", "value"],
                 "rows": [[key, "" if value is None else str(value)]
                          for key, value in sorted(environment.items())]},
    }
