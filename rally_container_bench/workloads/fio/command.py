"""A FioSpec -> fio's argv, and fio's version. Pure: no I/O."""

import re
import shlex

FILE_NAME = "rcbench-fio.dat"
_VERSION_RE = re.compile(r"^fio-([0-9]+(?:\.[0-9]+)*)", re.M)


class VersionError(ValueError):
    """``fio --version`` printed something that is not a version."""


def parse_version(text):
    """'fio-3.33' -> '3.33'."""
    match = _VERSION_RE.search(text or "")
    if not match:
        raise VersionError("not fio's version output: %r"
                           % (text or "")[:200])
    return match.group(1)


def file_path(workdir):
    return "%s/%s" % (workdir.rstrip("/") or "", FILE_NAME)


def build_argv(spec, workdir, executable="fio"):
    """One job on one file in workdir, JSON on stdout."""
    argv = [executable, "--name=rcbench", "--filename=%s" % file_path(workdir),
            "--rw=%s" % spec.rw, "--bs=%s" % spec.bs,
            "--size=%s" % spec.size, "--ioengine=%s" % spec.ioengine,
            "--iodepth=%d" % spec.iodepth, "--numjobs=%d" % spec.numjobs,
            "--direct=%d" % int(spec.direct), "--group_reporting",
            "--output-format=json"]
    if spec.rwmixread is not None:
        argv.append("--rwmixread=%d" % spec.rwmixread)
    if spec.runtime:
        argv += ["--runtime=%d" % spec.runtime, "--time_based"]
    return argv


def cleanup_argv(workdir):
    return ["rm", "-f", file_path(workdir)]


def to_shell(argv):
    return " ".join(shlex.quote(a) for a in argv)
