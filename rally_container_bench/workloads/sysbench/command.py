"""TestSpec -> sysbench argv, for the 0.4.x and the 1.0.x command lines.

Pure: no I/O. The argv is a list: local runs pass it to exec without a
shell; remote runs join it with shlex (see to_shell).

The two generations differ:

=====================  ==========================  =======================
                       0.4.x ("legacy")            1.0.x ("modern")
=====================  ==========================  =======================
test                   --test=cpu                  cpu (positional)
threads                --num-threads=N             --threads=N
time bound             --max-time=S                --time=S (default 10)
work bound             --max-requests=N            --events=N
                       (default 10000)             (default 0: none)
sequential fileio      one pass over the files,    loops until a bound
                       --max-requests ignored
=====================  ==========================  =======================

Both bounds are always written out (0 = none), so neither version's
default decides how long a run is.
"""

import re
import shlex


LEGACY = "legacy"
MODERN = "modern"
PHASES = ("prepare", "run", "cleanup")

_VERSION_RE = re.compile(r"^sysbench (\d+)\.(\d+)(?:\.(\d+))?", re.M)
_TEST_OPTIONS = (
    "cpu_max_prime", "memory_oper", "memory_access_mode", "memory_block_size",
    "memory_total_size", "file_test_mode", "file_num", "file_block_size",
    "file_total_size", "file_extra_flags")
# prepare and cleanup need only the file layout.
_FILE_LAYOUT_OPTIONS = ("file_num", "file_total_size")


class VersionError(ValueError):
    """The text does not say which sysbench this is."""


def parse_version(text):
    """'sysbench 1.0.20 (using ...)' -> '1.0.20'; first match in the text."""
    match = _VERSION_RE.search(text or "")
    if not match:
        raise VersionError("no 'sysbench X.Y' version in %r"
                           % (text or "")[:200])
    return ".".join(part for part in match.groups() if part is not None)


def generation(version):
    """'0.4.12' -> 'legacy'; '1.0.20' -> 'modern'."""
    try:
        major = int(str(version).split(".")[0])
    except ValueError:
        raise VersionError("not a sysbench version: %r" % (version,))
    return LEGACY if major == 0 else MODERN


def build_argv(spec, version, phase="run", executable="sysbench"):
    """The argv that runs ``phase`` of ``spec`` on sysbench ``version``."""
    if phase not in PHASES:
        raise ValueError("phase is %r; allowed: %s"
                         % (phase, ", ".join(PHASES)))
    if phase != "run" and spec.test != "fileio":
        raise ValueError("only fileio has a %s phase" % phase)
    legacy = generation(version) == LEGACY
    argv = [executable]
    argv.append("--test=%s" % spec.test if legacy else spec.test)
    if phase == "run":
        argv.append(("--num-threads=%d" if legacy else "--threads=%d")
                    % spec.threads)
        time_limit, events = _bounds(spec, legacy)
        argv.append(("--max-time=%d" if legacy else "--time=%d")
                    % time_limit)
        argv.append(("--max-requests=%d" if legacy else "--events=%d")
                    % events)
        options = _TEST_OPTIONS
    else:
        options = _FILE_LAYOUT_OPTIONS
    for name in options:
        value = getattr(spec, name)
        if value is not None:
            argv.append("--%s=%s" % (name.replace("_", "-"), value))
    argv.append(phase)
    return argv


def _bounds(spec, legacy):
    """(time, events) to write out; 0 means no bound."""
    time_limit = spec.time or 0
    events = spec.events or 0
    if (not legacy and spec.test == "fileio" and spec.is_sequential_fileio()
            and not time_limit):
        # 0.4 stops after one pass by itself; 1.0 must be told the count.
        events = spec.one_pass_events()
    return time_limit, events


def to_shell(argv):
    """One shell-safe command line (for SSH): every word quoted."""
    return shlex.join(str(word) for word in argv)
