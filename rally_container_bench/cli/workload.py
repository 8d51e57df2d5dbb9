"""rcbench presets, sysbench-command and sysbench-parse: the workload tools."""

import json
import sys

from rally_container_bench.workloads.sysbench import command
from rally_container_bench.workloads.sysbench import parse
from rally_container_bench.workloads.sysbench import presets
from rally_container_bench.workloads import tests as tests_lib


def _presets(args):
    """Every preset a tests list takes: sysbench, fio, iperf3, http."""
    for name in tests_lib.names():
        spec = tests_lib.resolve(name)
        print("%-24s %-8s %s" % (name, spec.tool, ", ".join(
            "%s=%s" % item for item in sorted(spec.to_dict().items()))))
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


def add_parsers(sub):
    p = sub.add_parser("presets", help="list the presets of every tool "
                       "(sysbench, fio, iperf3, http)")
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
