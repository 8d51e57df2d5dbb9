"""rcbench: the verbs Rally has no place for.

    rcbench doctor                           what this host can run, why not
    rcbench images build [--force]           build the offline guest image,
                                             the busybox image, CRI stubs
    rcbench engines start|stop [ENGINE ...]  start/stop engine daemons
    rcbench cleanup [--task UUID] [--dry-run] delete instances Rally named on
                    [--rally-config FILE]    every local engine (after a
                    [--env NAME]             crash), or a cloud's Zun ones
                                             and tasks' shared images
    rcbench summary RALLY_JSON [--expect ...] one line per platform and step
    rcbench compare RALLY_JSON... --out DIR  the comparison report (HTML, CSV,
                                             JSON, Markdown) of exported tasks
    rcbench decide --task-args-file F --out DIR  rounds until every cell
                                             has a verdict, or the budget ends
    rcbench periodic|gate|diff|promote ...   the periodic job; run vs run
    rcbench presets                          list the presets of every tool
    rcbench sysbench-command PRESET --version 0.4.12 [--phase run]
                                             print the command a preset runs
    rcbench sysbench-parse FILE|-            parse a sysbench output to JSON
"""

import argparse
import sys

from rally_container_bench.cli import decide as cli_decide
from rally_container_bench.cli import host as cli_host
from rally_container_bench.cli import periodic as cli_periodic
from rally_container_bench.cli import results as cli_results
from rally_container_bench.cli import workload as cli_workload
from rally_container_bench.core import base
from rally_container_bench.core import provenance
from rally_container_bench.images import guest


class _Version(argparse.Action):
    """--version: one line, unwrapped (argparse's own wraps it)."""

    def __call__(self, parser, namespace, values, option_string=None):
        print(provenance.line())
        parser.exit()


def build_parser():
    parser = argparse.ArgumentParser(
        prog="rcbench",
        description="rally-container-bench helpers (Rally runs the "
                    "benchmarks: rally task start ...)")
    parser.add_argument("--version", action=_Version, nargs=0,
                        help="this harness's version and commit, and those "
                             "of Rally, Python, numpy and scipy")
    sub = parser.add_subparsers(dest="verb", required=True)

    cli_host.add_parsers(sub)
    cli_results.add_parsers(sub)
    cli_periodic.add_parsers(sub)
    cli_decide.add_parser(sub)

    cli_workload.add_parsers(sub)
    return parser


def main(argv=None):
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except BrokenPipeError:
        # e.g. "rcbench presets | head": the reader has all it wanted.
        sys.stderr.close()
        return 0
    except (ValueError, OSError, base.DriverError, guest.ImageError) as e:
        # ParseError, SpecError and VersionError are ValueErrors.
        print("rcbench %s: error: %s" % (args.verb, e), file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
