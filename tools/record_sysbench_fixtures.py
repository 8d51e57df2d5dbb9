#!/usr/bin/env python3
"""Record real sysbench outputs as golden fixtures for the parser tests.

    python tools/record_sysbench_fixtures.py SYSBENCH [SYSBENCH ...]

For every case below and every given executable (e.g. Debian's 1.0.20 and
0.4.12 built by tools/build-sysbench-0.4.sh) this runs the argv that
rally_container_bench.workloads.sysbench.command builds, in a scratch
directory, and writes tests/fixtures/sysbench/<version>/<case>.txt
(stdout) and .cmd (the exact command line). Re-run it only to refresh
the fixtures; then regenerate the expected parses with --expect and
review the diff.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

from rally_container_bench.workloads.sysbench import command  # noqa: E402
from rally_container_bench.workloads.sysbench import parse  # noqa: E402
from rally_container_bench.workloads.sysbench import spec  # noqa: E402

FIXTURES = os.path.join(os.path.dirname(HERE), "tests", "fixtures",
                        "sysbench")
_FILES = dict(file_num=4, file_total_size="32M", file_block_size="4K")

CASES = {
    "cpu-time": dict(test="cpu", cpu_max_prime=5000, time=1),
    "cpu-events": dict(test="cpu", cpu_max_prime=5000, events=2000),
    "cpu-threads2": dict(test="cpu", cpu_max_prime=5000, events=2000,
                         threads=2),
    "memory-read-seq": dict(test="memory", memory_oper="read",
                            memory_access_mode="seq",
                            memory_block_size="1K",
                            memory_total_size="512M"),
    "memory-write-seq": dict(test="memory", memory_oper="write",
                             memory_access_mode="seq",
                             memory_block_size="1K",
                             memory_total_size="512M"),
    "memory-read-rnd": dict(test="memory", memory_oper="read",
                            memory_access_mode="rnd",
                            memory_block_size="4K",
                            memory_total_size="256M"),
    "memory-write-rnd": dict(test="memory", memory_oper="write",
                             memory_access_mode="rnd",
                             memory_block_size="4K",
                             memory_total_size="256M", time=5),
    "fileio-seqwr": dict(test="fileio", file_test_mode="seqwr", **_FILES),
    "fileio-seqrewr": dict(test="fileio", file_test_mode="seqrewr",
                           **_FILES),
    "fileio-seqrd-direct": dict(test="fileio", file_test_mode="seqrd",
                                file_extra_flags="direct", **_FILES),
    "fileio-rndrd-direct": dict(test="fileio", file_test_mode="rndrd",
                                file_extra_flags="direct", time=1,
                                **_FILES),
    "fileio-rndwr": dict(test="fileio", file_test_mode="rndwr", time=1,
                         **_FILES),
    "fileio-rndrw-events": dict(test="fileio", file_test_mode="rndrw",
                                events=3000, **_FILES),
}


def version_of(executable):
    out = subprocess.run([executable, "--version"], capture_output=True,
                         text=True, check=True).stdout
    return command.parse_version(out)


def run(argv, cwd):
    proc = subprocess.run(argv, cwd=cwd, capture_output=True, text=True)
    if proc.returncode:
        sys.exit("%s failed (%d): %s" % (command.to_shell(argv),
                                         proc.returncode, proc.stderr))
    return proc.stdout


def write(directory, name, argv, output):
    # The recorded command names the binary "sysbench", wherever it was.
    shown = ["sysbench"] + argv[1:]
    with open(os.path.join(directory, name + ".cmd"), "w") as f:
        f.write(command.to_shell(shown) + "\n")
    with open(os.path.join(directory, name + ".txt"), "w") as f:
        f.write(output)


def record(executable):
    version = version_of(executable)
    directory = os.path.join(FIXTURES, version)
    os.makedirs(directory, exist_ok=True)
    for name, values in CASES.items():
        test_spec = spec.from_dict(values)
        with tempfile.TemporaryDirectory() as scratch:
            phases = (("prepare", "run", "cleanup")
                      if test_spec.test == "fileio" else ("run",))
            for phase in phases:
                argv = command.build_argv(test_spec, version, phase,
                                          executable=executable)
                output = run(argv, scratch)
                if phase == "run":
                    write(directory, name, argv, output)
                elif name == "fileio-seqwr":
                    write(directory, "fileio-%s" % phase, argv, output)
        print("recorded %s %s" % (version, name))


def write_expectations():
    """Write <case>.json with today's parse, to review in the diff."""
    for version in sorted(os.listdir(FIXTURES)):
        directory = os.path.join(FIXTURES, version)
        for filename in sorted(os.listdir(directory)):
            if not filename.endswith(".txt"):
                continue
            with open(os.path.join(directory, filename)) as f:
                text = f.read()
            try:
                expected = parse.parse(text).to_json_dict()
            except parse.ParseError as e:
                expected = {"error": str(e)}
            path = os.path.join(directory, filename[:-4] + ".json")
            with open(path, "w") as f:
                json.dump(expected, f, indent=2, sort_keys=True)
                f.write("\n")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[1])
    parser.add_argument("executables", nargs="*")
    parser.add_argument("--expect", action="store_true",
                        help="(re)write the expected parse of every fixture")
    args = parser.parse_args()
    for executable in args.executables:
        record(executable)
    if args.expect:
        write_expectations()


if __name__ == "__main__":
    main()
