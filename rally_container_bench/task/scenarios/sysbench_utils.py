"""What every scenario that runs sysbench does with it, in Rally terms.

Each test's run step is the atomic action ``sysbench.<label>`` (e.g.
sysbench.cpu, sysbench.fileio.rndrd); its metrics go to the report as an
additive StatsTable ("<metric> (<unit>)" rows, aggregated over the
iterations by Rally), and the place it ran as a complete table.
"""

from rally import exceptions
from rally.task import atomic

from rally_container_bench.drivers import native
from rally_container_bench import opts
from rally_container_bench.workloads import common
from rally_container_bench.workloads import fio_run
from rally_container_bench.workloads import net_run
from rally_container_bench.workloads import sysbench_run
from rally_container_bench.workloads import tests as tests_lib

ENVIRONMENT_TITLE = "environment"


# The tool whose version a test records, where it is not the test's own.
SERVER_OF = {"http": "nginx"}


class SysbenchTestsFailed(exceptions.RallyException):
    error_code = 720
    msg_fmt = "%(message)s"


class SysbenchScenarioMixin:

    def add_environment(self, environment):
        """Where the iteration ran: the comparison report groups by it."""
        self.add_output(complete=environment_table(environment))

    def _timed(self, name):
        """The timer of one test's measured step (atomic action name)."""
        return atomic.ActionTimer(self, name)

    def _timer(self, tool):
        return lambda label: self._timed("%s.%s" % (tool, label))

    def run_tests(self, executor, tests, executable, workdir,
                  timeout=None, metadata=None, endpoint=None):
        """Run every test, report each, raise if any failed.

        A failed test does not stop the others, so one bad test loses no
        other result of the iteration. endpoint(service) -> base.Endpoint:
        where this host reaches a server inside (iperf3, http tests).
        """
        timeout = timeout or opts.register().command_timeout
        specs = tests_lib.resolve_all(tests)
        versions = self._versions(executor, specs, executable, timeout)
        environment = dict(executor.describe(), **{
            "%s_version" % SERVER_OF.get(tool, tool): version
            for tool, version in versions.items()})
        environment.update(metadata or {})
        self.add_environment(environment)
        failures = []
        for spec in specs:
            tool = spec.tool
            timed = self._timer(tool)
            try:
                if tool == "fio":
                    run = fio_run.run_test(executor, spec, "fio", workdir,
                                           timeout, timed=timed)
                elif tool == "iperf3":
                    run = net_run.run_iperf3(
                        executor, native.NativeExecutor(), spec,
                        _endpoint(endpoint, tool), workdir, timeout, timed)
                elif tool == "http":
                    run = net_run.run_http(
                        executor, native.NativeExecutor(), spec,
                        _endpoint(endpoint, tool), workdir, timeout,
                        versions[tool], timed)
                else:
                    run = sysbench_run.run_test(
                        executor, spec, versions[tool], executable, workdir,
                        timeout, timed=timed)
            except common.WorkloadError as e:
                failures.append(str(e))
                if e.raw:
                    self.add_output(complete=_raw_output(
                        "%s %s" % (tool, spec.label), e.raw))
                continue
            self.add_output(additive=_metrics_table(
                tool, run, versions[tool], getattr(spec, "threads", None)))
        if failures:
            raise SysbenchTestsFailed(
                message="%d of %d tests failed: %s"
                        % (len(failures), len(specs), " | ".join(failures)))

    def _versions(self, executor, specs, executable, timeout):
        """{tool: version} of the tools the specs need, asked first."""
        needed = {s.tool for s in specs}
        detect = {
            "sysbench": lambda: sysbench_run.detect_version(
                executor, executable, timeout),
            "fio": lambda: fio_run.detect_version(executor, "fio", timeout),
            "iperf3": lambda: net_run.iperf3_version(executor, timeout),
            "http": lambda: net_run.nginx_version(executor, timeout)}
        versions = {}
        for tool in sorted(needed, reverse=True):  # sysbench first
            try:
                versions[tool] = detect[tool]()
            except common.WorkloadError as e:
                if e.raw:
                    self.add_output(complete=_raw_output(
                        "%s --version" % tool, e.raw))
                raise
        return versions


def _endpoint(endpoint, service):
    if endpoint is None:
        raise net_run.NetworkTestError(
            "%s tests need the Rally host to reach into the instance, "
            "which this scenario cannot" % service)
    return endpoint(service)


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


def _metrics_table(tool, run, version, threads=None):
    names = sorted(run.result.metrics)
    how = ", %d thread(s)" % threads if threads else ""
    return {
        "title": "%s %s" % (tool, run.spec.label),
        "description": "%s %s%s: %s" % (SERVER_OF.get(tool, tool), version,
                                        how, run.command),
        "chart_plugin": "StatsTable",
        "data": [["%s (%s)" % (name, run.result.metrics[name].unit),
                  run.result.metrics[name].value] for name in names],
    }


def environment_table(environment):
    return {
        "title": ENVIRONMENT_TITLE,
        "description": "Where this iteration ran",
        "chart_plugin": "Table",
        "data": {"cols": ["key", "value"],
                 "rows": [[key, "" if value is None else str(value)]
                          for key, value in sorted(environment.items())]},
    }
