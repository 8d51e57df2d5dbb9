"""Run sysbench tests through any Executor: prepare -> run -> cleanup.

No Rally import: the caller passes ``timed(label)``, a context-manager
factory put around the measured ``run`` step only (Rally scenarios give an
atomic action timer), so prepare and cleanup never count in the result.
"""

import contextlib

from rally_container_bench.core import base
from rally_container_bench.workloads import common
from rally_container_bench.workloads.sysbench import command
from rally_container_bench.workloads.sysbench import parse
from rally_container_bench.workloads.sysbench import presets as preset_lib
from rally_container_bench.workloads.sysbench import spec as spec_lib


class SysbenchError(common.WorkloadError):
    """sysbench could not run or its output could not be read."""


TestRun = common.TestRun
_untimed = common.untimed


def detect_version(executor, executable, timeout):
    """Ask ``executable --version``; 'sysbench 1.0.20' -> '1.0.20'."""
    try:
        result = executor.run([executable, "--version"], timeout)
    except base.DriverError as e:
        raise SysbenchError("sysbench is not usable at %r: %s"
                            % (executable, e))
    if result.exit_code != 0:
        raise SysbenchError(
            "%r --version exited %d (is sysbench installed?)"
            % (executable, result.exit_code), result.stdout + result.stderr)
    try:
        return command.parse_version(result.stdout)
    except command.VersionError as e:
        raise SysbenchError(str(e), result.stdout + result.stderr)


def run_test(executor, spec, version, executable, workdir, timeout,
             timed=_untimed, stamp=False, start=None, prepared=False):
    """Run one test in ``workdir``; return a TestRun or raise SysbenchError.

    fileio files are created before (unless prepared: prepare_test made
    them) and removed after the run, also when the run fails. stamp: the
    instance's clock is read just before sysbench starts
    (TestRun.started_inside); start: common.Start, where sysbench starts
    at a given moment (a stamped run only).
    """
    if not prepared:
        prepare_test(executor, spec, version, executable, workdir, timeout)
    needs_files = spec.test == "fileio"
    try:
        argv = command.build_argv(spec, version, "run", executable)
        with timed(spec.label):
            result = executor.run(
                common.stamped(argv, start) if stamp else argv, timeout,
                cwd=workdir)
        _check(result, spec, "run")
        started, stdout = common.split_stamp(result.stdout) if stamp \
            else (None, result.stdout)
        try:
            parsed = parse.parse(stdout)
        except parse.ParseError as e:
            raise SysbenchError("sysbench %s output is unreadable: %s"
                                % (spec.label, e), e.raw)
        return TestRun(spec=spec, command=command.to_shell(argv),
                       result=parsed, started_inside=started)
    finally:
        if needs_files:
            # Best effort: a failure here must not hide the run's error,
            # and the caller removes workdir anyway.
            with contextlib.suppress(base.DriverError):
                _step(executor, spec, version, executable, workdir,
                      timeout, "cleanup")


def prepare_test(executor, spec, version, executable, workdir, timeout):
    """Create a fileio test's files (sysbench fsyncs each); others: none.

    Whether there were files to create.
    """
    if spec.test != "fileio":
        return False
    _step(executor, spec, version, executable, workdir, timeout, "prepare")
    return True


def _step(executor, spec, version, executable, workdir, timeout, phase):
    argv = command.build_argv(spec, version, phase, executable)
    _check(executor.run(argv, timeout, cwd=workdir), spec, phase)


def _check(result, spec, phase):
    if result.exit_code == 0:
        return
    raw = (result.stdout + result.stderr).strip()
    hint = ""
    if spec.file_extra_flags == "direct" and "errno = 22" in raw:
        hint = (" (the filesystem of the work directory may not support "
                "O_DIRECT: put it elsewhere or drop file_extra_flags)")
    raise SysbenchError("sysbench %s %s exited %d%s: %s"
                        % (spec.label, phase, result.exit_code, hint,
                           raw[-1500:]), raw)


class Sysbench(common.Tool):
    name = "sysbench"
    paired = True
    inside = (("sysbench", "sysbench"),)
    presets = preset_lib.NAMES
    spec_errors = (spec_lib.SpecError,)
    keyed = False
    path_option = "sysbench_path"
    scripted = True

    def preset(self, name):
        return preset_lib.get(name)

    def from_dict(self, fields):
        return preset_lib.resolve(fields)

    def higher_is_better(self, metric):
        return parse.higher_is_better(metric)

    def file_bytes(self, spec):
        if spec.test != "fileio":
            return 0
        return spec_lib.size_in_bytes(spec.file_total_size
                                      or spec_lib.DEFAULT_FILE_TOTAL_SIZE)

    def version(self, executor, sysbench, timeout):
        return detect_version(executor, sysbench, timeout)

    def prepare(self, spec, job):
        return prepare_test(job.executor, spec, job.version, job.sysbench,
                            job.workdir, job.timeout)

    def run(self, spec, job):
        return run_test(job.executor, spec, job.version, job.sysbench,
                        job.workdir, job.timeout, timed=job.timed,
                        stamp=job.stamp, start=job.start,
                        prepared=job.prepared)
