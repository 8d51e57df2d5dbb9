"""What every scenario that runs sysbench does with it, in Rally terms.

Each test's run step is the atomic action ``sysbench.<label>`` (e.g.
sysbench.cpu, sysbench.fileio.rndrd); its metrics go to the report as an
additive StatsTable ("<metric> (<unit>)" rows, aggregated over the
iterations by Rally), and the place it ran as a complete table.
"""

from rally import exceptions
from rally.task import atomic

from rally_container_bench import opts
from rally_container_bench.sysbench import presets
from rally_container_bench.workloads import sysbench_run

ENVIRONMENT_TITLE = "environment"


class SysbenchTestsFailed(exceptions.RallyException):
    error_code = 720
    msg_fmt = "%(message)s"


class SysbenchScenarioMixin:

    def add_environment(self, environment):
        """Where the iteration ran: the comparison report groups by it."""
        self.add_output(complete=environment_table(environment))

    def _timed(self, label):
        return atomic.ActionTimer(self, "sysbench.%s" % label)

    def run_sysbench_tests(self, executor, tests, executable, workdir,
                           timeout=None, metadata=None):
        """Run every test; report each; raise at the end if any failed.

        A failed test does not stop the others, so one bad test loses no
        other result of the iteration.
        """
        timeout = timeout or opts.register().command_timeout
        specs = presets.resolve_all(tests)
        try:
            version = sysbench_run.detect_version(executor, executable,
                                                  timeout)
        except sysbench_run.SysbenchError as e:
            if e.raw:
                self.add_output(complete=_raw_output("--version", e.raw))
            raise
        environment = dict(executor.describe(), sysbench_version=version)
        environment.update(metadata or {})
        self.add_environment(environment)
        failures = []
        for spec in specs:
            try:
                run = sysbench_run.run_test(
                    executor, spec, version, executable, workdir, timeout,
                    timed=self._timed)
            except sysbench_run.SysbenchError as e:
                failures.append(str(e))
                if e.raw:
                    self.add_output(complete=_raw_output(spec.label, e.raw))
                continue
            self.add_output(additive=_metrics_table(run, version))
        if failures:
            raise SysbenchTestsFailed(
                message="%d of %d sysbench tests failed: %s"
                        % (len(failures), len(specs), " | ".join(failures)))


# Enough lines for sysbench's own error and its summary, not a runaway log.
RAW_LINES = 60


def _raw_output(label, raw):
    lines = raw.splitlines()
    if len(lines) > RAW_LINES:
        lines = (["... %d lines left out ..." % (len(lines) - RAW_LINES)]
                 + lines[-RAW_LINES:])
    return {"title": "sysbench %s failed: its output" % label,
            "description": "What sysbench printed (stdout and stderr)",
            "chart_plugin": "TextArea", "data": lines}


def _metrics_table(run, version):
    names = sorted(run.result.metrics)
    return {
        "title": "sysbench %s" % run.spec.label,
        "description": "sysbench %s, %d thread(s): %s"
                       % (version, run.spec.threads, run.command),
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
