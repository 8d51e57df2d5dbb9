"""rcbench: the verbs Rally has no place for.

    rcbench presets                          list the sysbench presets
    rcbench sysbench-command PRESET --version 0.4.12 [--phase run]
                                             print the command a preset runs
    rcbench sysbench-parse FILE|-            parse a sysbench output to JSON
"""

import argparse
import json
import sys

from rally_container_bench.sysbench import command
from rally_container_bench.sysbench import parse
from rally_container_bench.sysbench import presets


def _presets(args):
    for name in presets.NAMES:
        fields = presets.get(name).to_dict()
        print("%-22s %s" % (name, ", ".join(
            "%s=%s" % item for item in sorted(fields.items()))))
    return 0


def _sysbench_command(args):
    test_spec = presets.get(args.preset)
    if args.threads:
        test_spec = test_spec.with_threads(args.threads)
    print(command.to_shell(command.build_argv(
        test_spec, args.version, args.phase, args.executable)))
    return 0


def _sysbench_parse(args):
    if args.file == "-":
        text = sys.stdin.read()
    else:
        with open(args.file, errors="replace") as f:
            text = f.read()
    result = parse.parse(text)
    json.dump(result.to_json_dict(), sys.stdout, indent=2, sort_keys=True)
    sys.stdout.write("\n")
    return 0


def build_parser():
    parser = argparse.ArgumentParser(
        prog="rcbench",
        description="rally-container-bench helpers (Rally runs the "
                    "benchmarks: rally task start ...)")
    sub = parser.add_subparsers(dest="verb", required=True)

    p = sub.add_parser("presets", help="list the sysbench presets")
    p.set_defaults(func=_presets)

    p = sub.add_parser("sysbench-command",
                       help="print the sysbench command of a preset")
    p.add_argument("preset", choices=presets.NAMES, metavar="PRESET")
    p.add_argument("--version", required=True,
                   help="sysbench version, e.g. 0.4.12 or 1.0.20")
    p.add_argument("--phase", default="run", choices=command.PHASES)
    p.add_argument("--threads", type=int)
    p.add_argument("--executable", default="sysbench")
    p.set_defaults(func=_sysbench_command)

    p = sub.add_parser("sysbench-parse",
                       help="parse the output of a sysbench run to JSON")
    p.add_argument("file", help="file with the output, or - for stdin")
    p.set_defaults(func=_sysbench_parse)
    return parser


def main(argv=None):
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except BrokenPipeError:
        # e.g. "rcbench presets | head": the reader has all it wanted.
        sys.stderr.close()
        return 0
    except (ValueError, OSError) as e:
        # ParseError, SpecError and VersionError are ValueErrors.
        print("rcbench %s: error: %s" % (args.verb, e), file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
