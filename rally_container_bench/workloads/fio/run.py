"""Run fio jobs through any Executor: run (timed) -> remove the file.

No Rally import; ``timed(label)`` is put around the run only, as in
sysbench_run. fio lays its file out inside the run (that is part of what a
fixed-work job measures on a fresh file, as sysbench's seqwr does).
"""

import contextlib

from rally_container_bench.core import base
from rally_container_bench.workloads import common
from rally_container_bench.workloads.fio import command
from rally_container_bench.workloads.fio import parse
from rally_container_bench.workloads.fio import presets as preset_lib
from rally_container_bench.workloads.fio import spec as spec_lib


class FioError(common.WorkloadError):
    """fio could not run or its output could not be read."""


def detect_version(executor, executable, timeout):
    try:
        result = executor.run([executable, "--version"], timeout)
    except base.DriverError as e:
        raise FioError("fio is not usable at %r: %s" % (executable, e))
    if result.exit_code != 0:
        raise FioError("%r --version exited %d (is fio installed?)"
                       % (executable, result.exit_code),
                       result.stdout + result.stderr)
    try:
        return command.parse_version(result.stdout)
    except command.VersionError as e:
        raise FioError(str(e), result.stdout + result.stderr)


def run_test(executor, spec, executable, workdir, timeout,
             timed=common.untimed):
    """Run one job in workdir; return a TestRun or raise FioError."""
    argv = command.build_argv(spec, workdir, executable)
    try:
        with timed(spec.label):
            result = executor.run(argv, timeout, cwd=workdir)
        raw = result.stdout + result.stderr
        if result.exit_code != 0:
            raise FioError("%s exited %d: %s" % (
                spec.label, result.exit_code, raw.strip()[-1500:]), raw)
        try:
            parsed = parse.parse(result.stdout)
        except parse.ParseError as e:
            raise FioError("%s output is unreadable: %s" % (spec.label, e),
                           raw)
        return common.TestRun(spec=spec, command=command.to_shell(argv),
                              result=parsed)
    finally:
        with contextlib.suppress(base.DriverError):
            executor.run(command.cleanup_argv(workdir), timeout)


class Fio(common.Tool):
    name = "fio"
    paired = True
    inside = (("fio", "fio"),)
    presets = preset_lib.NAMES
    spec_errors = (spec_lib.FioSpecError,)

    def preset(self, name):
        return preset_lib.get(name)

    def from_dict(self, fields):
        return spec_lib.from_dict(fields)

    def higher_is_better(self, metric):
        return parse.higher_is_better(metric)

    def file_bytes(self, spec):
        return spec_lib.size_in_bytes(spec.size)

    def version(self, executor, sysbench, timeout):
        return detect_version(executor, "fio", timeout)

    def run(self, spec, job):
        return run_test(job.executor, spec, "fio", job.workdir, job.timeout,
                        timed=job.timed)
