"""Which sysbench build runs where: a build's identity, read on any side.

A build is the sysbench executable and every shared library it loads
(ldd's list, the loader included): "sysbench 1.0.20" from two
distributions' builds (compiler, LuaJIT, flags, libc) can differ by a
few %, the size of the effects this tool decides. A build's id is a
digest of each file's name (without its directory) and sha256, so the
Rally host's build, a guest's own and the bundle pushed to either compare
by content wherever they were installed. Pure: the scripts run through
any executor, their output is parsed here.
"""

import dataclasses
import hashlib
import os
import re

# The file names a bundle holds (images/sysbench_bundle.py makes it).
BINARY = "bin/sysbench"
LIB_DIR = "lib"
WRAPPER = "sysbench"
# Where a bundle is unpacked on a guest or a compute host, by its id (a
# second instance of the same build on that host finds it there); where
# the guest image built here holds the bundle of the host that built it.
REMOTE_PARENT = "/tmp"
REMOTE_PREFIX = "rcbench-sysbench-"
BAKED_PARENT = "/opt/rcbench"
BAKED_PREFIX = "sysbench-"

# $1: the sysbench the side would run (a name on PATH or a path). Prints
# sha256sum's lines: the executable first, then each library ldd finds
# (none for a static build, or where the side has no ldd).
OWN_SCRIPT = (
    'b=$(command -v "$1") || { echo "no $1 on PATH" >&2; exit 3; }; '
    'case $b in /*) ;; *) echo "$1 is no file here" >&2; exit 3 ;; esac; '
    'libs=$(ldd "$b" 2>/dev/null | awk \'$2 == "=>" && $3 ~ /^\\// '
    '{print $3} $1 ~ /^\\// {print $1}\'); '
    'sha256sum "$b" $libs')
# $1: a bundle's directory: its executable first, then its libraries.
BUNDLE_SCRIPT = ('cd "$1" && sha256sum ' + BINARY + ' $(ls -d ' + LIB_DIR
                 + '/* 2>/dev/null)')

# The wrapper of a bundle: sysbench run by the loader it was linked
# with, on the libraries beside it (not the side's own).
WRAPPER_TEXT = """#!/bin/sh
# rally-container-bench: one sysbench build with its own libraries
here=$(cd "${0%%/*}" && pwd) || exit 127
exec "$here/%(lib)s/%(loader)s" --library-path "$here/%(lib)s" \\
    "$here/%(binary)s" "$@"
"""
STATIC_WRAPPER_TEXT = """#!/bin/sh
# rally-container-bench: one sysbench build (static)
here=$(cd "${0%%/*}" && pwd) || exit 127
exec "$here/%(binary)s" "$@"
"""

_SHA_LINE = re.compile(r"^([0-9a-f]{64})\s+\*?(\S.*)$")
_LDD_LIB = re.compile(r"^\s*(\S+)\s+=>\s+(/\S+)\s+\(0x[0-9a-f]+\)\s*$")
_LDD_LOADER = re.compile(r"^\s*(/\S+)\s+\(0x[0-9a-f]+\)\s*$")
_LDD_MISSING = re.compile(r"^\s*(\S+)\s+=>\s+not found")


class BuildError(ValueError):
    """A build could not be read; the message says what was seen."""


@dataclasses.dataclass(frozen=True)
class Build:
    """A build as read on one side: id, the executable's sha256, files."""

    id: str
    binary_sha256: str
    files: tuple  # ((name, sha256), ...), the executable first

    def short(self):
        return self.id[:12]


def read(sha256sum_output):
    """The Build of OWN_SCRIPT's or BUNDLE_SCRIPT's output."""
    files = []
    for line in sha256sum_output.splitlines():
        if not line.strip():
            continue
        match = _SHA_LINE.match(line.strip())
        if not match:
            raise BuildError("not a sha256sum line: %r" % line[:200])
        files.append((os.path.basename(match.group(2)), match.group(1)))
    if not files:
        raise BuildError("sha256sum printed nothing")
    binary = ("sysbench", files[0][1])
    return of_files([binary] + files[1:])


def of_files(files):
    """The Build of (name, sha256) pairs, the executable's first."""
    binary, libraries = files[0], sorted(set(files[1:]))
    digest = hashlib.sha256()
    for name, sha in [binary] + libraries:
        digest.update(("%s  %s\n" % (sha, name)).encode())
    return Build(id=digest.hexdigest(), binary_sha256=binary[1],
                 files=tuple([binary] + libraries))


def parse_ldd(text):
    """([(name, path)] of the libraries, loader path or None) of ldd.

    A static executable has neither ("not a dynamic executable"); a
    library ldd cannot find is an error: that build cannot run here.
    """
    libraries, loader = [], None
    for line in text.splitlines():
        missing = _LDD_MISSING.match(line)
        if missing:
            raise BuildError("ldd finds no %s" % missing.group(1))
        match = _LDD_LIB.match(line)
        if match:
            libraries.append((match.group(1), match.group(2)))
            continue
        match = _LDD_LOADER.match(line)
        if match:
            loader = match.group(1)
    return libraries, loader


def own_argv(executable):
    """The argv that prints a side's own build (OWN_SCRIPT)."""
    return ["sh", "-c", OWN_SCRIPT, "sh", executable]


def bundle_argv(directory):
    """The argv that prints the build of a bundle in directory."""
    return ["sh", "-c", BUNDLE_SCRIPT, "sh", directory]


def remote_dir(build_id):
    return "%s/%s%s" % (REMOTE_PARENT, REMOTE_PREFIX, build_id[:16])


def baked_dir(build_id):
    return "%s/%s%s" % (BAKED_PARENT, BAKED_PREFIX, build_id[:16])


def wrapper_text(loader_name):
    fields = {"lib": LIB_DIR, "loader": loader_name, "binary": BINARY}
    if loader_name is None:
        return STATIC_WRAPPER_TEXT % fields
    return WRAPPER_TEXT % fields
