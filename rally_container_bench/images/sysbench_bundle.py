"""This host's sysbench as one bundle that runs on any x86-64 Linux.

The bundle is the executable of [container_bench] sysbench_path with
every library it loads and the loader it was linked with, beside it (a
wrapper runs it through that loader, so a guest's own libc is never
used). Pushed to a guest or a compute host, it runs there the very bytes
the native twin runs here. Made once per build, cached in
<cache>/sysbench-bundle-<id>/:

  bin/sysbench, lib/*   the files
  sysbench              the wrapper
  bundle.tar.gz         the same, as pushed (ordered, times zeroed)
"""

import dataclasses
import functools
import gzip
import hashlib
import io
import os
import shutil
import subprocess
import tarfile
import tempfile

from rally_container_bench.images import sysbench_build as build_lib
from rally_container_bench import opts

ARCHIVE = "bundle.tar.gz"


class BundleError(Exception):
    """The bundle could not be made; the message says why."""


@dataclasses.dataclass(frozen=True)
class Bundle:
    dir: str
    build: build_lib.Build
    source: str  # the executable it was made of

    @property
    def wrapper(self):
        return os.path.join(self.dir, build_lib.WRAPPER)

    @property
    def archive(self):
        return os.path.join(self.dir, ARCHIVE)

    def read_archive(self):
        with open(self.archive, "rb") as f:
            return f.read()


def of_executable(executable=None, conf=None):
    """The bundle of executable on this host (made if needed).

    Default: [container_bench] sysbench_path.
    """
    conf = conf or opts.register()
    executable = executable or conf.sysbench_path
    source = shutil.which(executable)
    if source is None:
        raise BundleError("no sysbench here to bundle: %r is not found "
                          "(apt-get install sysbench, or set "
                          "[container_bench] sysbench_path)" % executable)
    source = os.path.realpath(source)
    stat = os.stat(source)
    return _made(source, stat.st_mtime_ns, stat.st_size,
                 opts.resolved_dir(conf.image_cache_dir))


def build_here(executable):
    """The Build of executable on this host, None where there is none.

    Read once per file version per process (what the bundle is made of).
    """
    source = shutil.which(executable)
    if source is None:
        return None
    source = os.path.realpath(source)
    stat = os.stat(source)
    try:
        return _closure_build(source, stat.st_mtime_ns, stat.st_size)[0]
    except BundleError:
        return None


@functools.lru_cache(maxsize=16)
def _closure_build(source, mtime_ns, size):
    """(Build, files, loader name) of source and what it loads."""
    files, loader = _closure(source)
    build = build_lib.of_files([("sysbench", _sha256(source))] + [
        (name, _sha256(path)) for name, path in files])
    return build, files, loader


@functools.lru_cache(maxsize=None)
def _made(source, mtime_ns, size, cache_dir):
    build, files, loader = _closure_build(source, mtime_ns, size)
    directory = os.path.join(cache_dir, "sysbench-bundle-" + build.short())
    bundle = Bundle(directory, build, source)
    if not os.path.exists(bundle.archive):
        _write(bundle, files, loader)
    return bundle


def _closure(source):
    """([(name, path)] of what source loads, the loader's name or None)."""
    proc = subprocess.run(["ldd", source], stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True,
                          env=dict(os.environ, LC_ALL="C"))
    if proc.returncode != 0 and "not a dynamic executable" in proc.stdout:
        return [], None
    if proc.returncode != 0:
        raise BundleError("ldd %s exited %d: %s"
                          % (source, proc.returncode, proc.stdout[-500:]))
    try:
        libraries, loader = build_lib.parse_ldd(proc.stdout)
    except build_lib.BuildError as e:
        raise BundleError("%s cannot run here: %s" % (source, e))
    found = [(os.path.basename(path), path) for _, path in libraries]
    if loader is None:
        return found, None
    return found + [(os.path.basename(loader), loader)], \
        os.path.basename(loader)


def _write(bundle, files, loader):
    os.makedirs(os.path.dirname(bundle.dir), exist_ok=True)
    staged = tempfile.mkdtemp(prefix=".sysbench-bundle-",
                              dir=os.path.dirname(bundle.dir))
    try:
        os.makedirs(os.path.join(staged, "bin"))
        shutil.copyfile(bundle.source,
                        os.path.join(staged, build_lib.BINARY))
        if files:
            os.makedirs(os.path.join(staged, build_lib.LIB_DIR))
        for name, path in files:
            shutil.copyfile(path, os.path.join(
                staged, build_lib.LIB_DIR, name))
        with open(os.path.join(staged, build_lib.WRAPPER), "w") as f:
            f.write(build_lib.wrapper_text(loader))
        for root, _, names in os.walk(staged):
            for name in names:
                os.chmod(os.path.join(root, name), 0o755)
        os.chmod(staged, 0o755)
        data = _archive(staged)
        with open(os.path.join(staged, ARCHIVE), "wb") as f:
            f.write(data)
        shutil.rmtree(bundle.dir, ignore_errors=True)
        os.rename(staged, bundle.dir)
    except BaseException:
        shutil.rmtree(staged, ignore_errors=True)
        raise


def _archive(directory):
    """The bundle's files as a tar.gz, the same bytes for the same build."""
    names = sorted(
        os.path.relpath(os.path.join(root, name), directory)
        for root, _, found in os.walk(directory) for name in found)
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w", format=tarfile.GNU_FORMAT) \
            as tar:
        for name in names:
            info = tar.gettarinfo(os.path.join(directory, name), name)
            info.mtime, info.uid, info.gid = 0, 0, 0
            info.uname = info.gname = ""
            with open(os.path.join(directory, name), "rb") as f:
                tar.addfile(info, f)
    out = io.BytesIO()
    with gzip.GzipFile(fileobj=out, mode="wb", mtime=0) as z:
        z.write(raw.getvalue())
    return out.getvalue()


def _sha256(path):
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()
