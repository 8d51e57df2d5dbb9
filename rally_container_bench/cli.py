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
import json
import os
import sys

from rally_container_bench import cli_decide
from rally_container_bench import cli_periodic
from rally_container_bench.core import base
from rally_container_bench.core import ports
from rally_container_bench.core import provenance
from rally_container_bench.engines import catalog
from rally_container_bench.engines import daemons
from rally_container_bench.engines import registry
from rally_container_bench.images import busybox
from rally_container_bench.images import guest
from rally_container_bench import opts
from rally_container_bench import rally_tasks
from rally_container_bench.report import summary
from rally_container_bench.sysbench import command
from rally_container_bench.sysbench import parse
from rally_container_bench.sysbench import presets
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


def _doctor(args):
    conf = opts.register()
    image = guest.GuestImage.in_cache(conf.image_cache_dir)
    state = (image.dir if image.is_built()
             else "not built (rcbench images build)")
    print("guest image   %s" % state)
    usable_any = False
    for name in registry.INSTANCE_NAMES:
        try:
            usable, why = registry.instance_class(name).check(conf)
        except Exception as e:  # a broken client library, say
            usable, why = False, "cannot load the driver: %s" % e
        usable_any = usable_any or usable
        print("%-13s %-8s %s" % (name, "usable" if usable else "NO", why))
    tiny = busybox.BusyboxImage.in_cache(conf.image_cache_dir)
    print("lifecycle runtimes (busybox image: %s)" % (
        tiny.dir if tiny.is_built() else "not built (rcbench images build)"))
    for name in registry.LIFECYCLE_NAMES:
        try:
            usable, why = registry.lifecycle_class(name).check(conf)
        except Exception as e:
            usable, why = False, "cannot load the driver: %s" % e
        print("  %-14s %-8s %s" % (name, "usable" if usable else "NO", why))
    for name, why in sorted(registry.UNAVAILABLE.items()):
        print("  %-14s %-8s %s" % (name, "NO", why))
    return 0 if usable_any else 1


def _images_build(args):
    conf = opts.register()
    image = guest.build(conf.image_cache_dir, force=args.force)
    print(image.dir)
    tiny = busybox.build(conf.image_cache_dir, force=args.force,
                         log=guest.log)
    print(tiny.dir)
    return 0


STARTED_HERE = "engines started by this call:"


def _engines(args):
    conf = opts.register()
    known = daemons.daemons(conf)
    drivers = set(registry.INSTANCE_NAMES + registry.LIFECYCLE_NAMES)
    resolved = daemons.resolve(args.engines or sorted(known), known,
                               drivers)
    failed = False
    started_here = []
    done = set()
    for name, engine in resolved:
        if engine is None:
            print("%s: needs no daemon" % name)
            continue
        if engine in done:
            continue
        done.add(engine)
        # Start in order, stop in reverse (libvirtd needs virtlogd).
        if args.action == "dump":
            for daemon in known[engine]:
                text = daemon.dump_stacks()
                written = [line for line in (text or "").splitlines()
                           if "written to" in line]
                said = ("no stack dump (not started here, or no such "
                        "signal)" if text is None else
                        "\n  ".join(["stacks asked for"] + written))
                print("%s: %s" % (daemon.name, said))
        elif args.action == "start":
            for daemon in known[engine]:
                started = daemon.start()
                print("%s: %s" % (daemon.name, "started" if started
                                  else "already running"))
                if started and engine not in started_here:
                    started_here.append(engine)
                if started and daemon.after_start:
                    daemon.after_start(print)
        else:
            for daemon in reversed(known[engine]):
                if daemon.before_stop and daemon.started_pid():
                    try:
                        daemon.before_stop(print)
                    except Exception as e:
                        # The daemon stops anyway: what it held is named.
                        failed = True
                        print("rcbench engines: %s: housekeeping before "
                              "stop failed: %s" % (daemon.name, e),
                              file=sys.stderr)
                stopped = daemon.stop()
                print("%s: %s" % (daemon.name, "stopped" if stopped
                                  else "not started by rcbench"))
    if args.action == "start":
        # What a script stops at its end: not the daemons others started.
        print("%s %s" % (STARTED_HERE, " ".join(started_here)))
    elif args.action == "stop":
        ports.prune(conf)
    return 1 if failed else 0


def _summary(args):
    with open(args.file) as f:
        table = summary.rows(json.load(f))
    print(summary.format_table(table))
    problems = ["%s at concurrency %s: %d of %d iterations failed"
                % (r["platform"], r["concurrency"], r["failed"],
                   r["iterations"]) for r in table if r["failed"]]
    seen = {(name, r["concurrency"]) for r in table
            for name in [r["platform"]] + r["labels"]}
    for platform in args.expect_platforms or ():
        for step in args.expect_concurrency or sorted(
                {r["concurrency"] for r in table}):
            if (platform, step) not in seen:
                problems.append("no results for %s at concurrency %s"
                                % (platform, step))
    for problem in problems:
        print("rcbench summary: " + problem, file=sys.stderr)
    return 1 if problems else 0


def _cleanup(args):
    owners = None
    if args.task:
        try:
            owners = rally_tasks.owner_ids(args.task, args.rally_config)
        except ValueError as e:
            if not args.env:
                raise
            # A task of a Rally DB that is gone (another machine's, a
            # test's): its shared images and flavors carry its uuid; its
            # containers' names only its workloads', which nothing here
            # knows.
            print("rcbench cleanup: %s: only its shared guest images and "
                  "flavors are looked for" % e, file=sys.stderr)
            owners = []
    matches = rally_tasks.name_matcher(owners)
    if args.env:
        return _cleanup_cloud(args, matches, owners)

    def unreachable(driver_name, error):
        print("rcbench cleanup: %s not asked: %s" % (driver_name, error),
              file=sys.stderr)

    conf = opts.register()
    found = catalog.leftovers(conf, matches, unreachable)
    if args.dry_run:
        for cleaner, name in found:
            print("would delete %s %s" % (cleaner.name, name))
        return 0

    def done(cleaner, name, error):
        if error is None:
            print("deleted %s %s" % (cleaner.name, name), flush=True)

    left = catalog.discard_all(found, conf.cleanup_timeout, done)
    for cleaner, name, why in left:
        print("rcbench cleanup: " + catalog.left_line(cleaner, name, why,
                                                      args.task),
              file=sys.stderr)
    return 1 if left else 0


def _cleanup_cloud(args, matches, owners):
    from rally_container_bench import cloud_leftovers

    cloud = cloud_leftovers.Cloud.of_env(args.env, args.rally_config)
    if not cloud.as_admin:
        print("rcbench cleanup: environment %s has no admin: only its "
              "first user's containers are looked at" % args.env,
              file=sys.stderr)
    timeout = opts.register().delete_timeout
    found = [("Zun container %s (%s, %s)" % (c.name, c.uuid, c.status),
              lambda c=c: cloud.delete(c, timeout))
             for c in cloud.leftovers(matches)]
    tasks = [args.task] if args.task else None
    found += [("shared guest image %s (%s, %s)" % (image["name"],
                                                   image["id"], why),
               lambda image=image: cloud.delete_image(image))
              for image, why in cloud.shared_images(tasks)]
    found += [("flavor %s (%s, %s)" % (flavor.name, flavor.id, why),
               flavor.delete) for flavor, why in cloud.flavors(tasks)]
    # the users context's last: the containers above may be in them
    found += [("%s %s (%s, of task %s)" % (kind, thing.name, thing.id,
                                           args.task),
               lambda delete=delete, thing=thing: delete(thing))
              for kind, thing, delete in cloud.rally_users(owners)]
    failed = 0
    for what, delete in found:
        if args.dry_run:
            print("would delete " + what)
            continue
        try:
            delete()
            print("deleted " + what)
        except Exception as e:
            failed += 1
            print("rcbench cleanup: could not delete %s: %s" % (what, e),
                  file=sys.stderr)
    return 1 if failed else 0


def _compare(args):
    # Imported here: numpy, scipy and matplotlib take seconds to import.
    from rally_container_bench.report import comparison
    from rally_container_bench.report import render

    margins = cli_decide.margins_of(args.margin, args.margin_for, auto=False)
    report = comparison.build(cli_periodic.documents(*args.files),
                              title=args.title, margins=margins)
    os.makedirs(args.out, exist_ok=True)
    for path, text in render.files(report, args.out).items():
        with open(path, "w") as f:
            f.write(text)
        print(path)
    for warning in report["warnings"]:
        print("rcbench compare: warning: " + warning, file=sys.stderr)
    return 0


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

    p = sub.add_parser("doctor", help="what this host can run, and why not")
    p.set_defaults(func=_doctor)

    p = sub.add_parser("images", help="offline guest images")
    p.add_argument("action", choices=["build"])
    p.add_argument("--force", action="store_true",
                   help="rebuild even if a cached image matches")
    p.set_defaults(func=_images_build)

    p = sub.add_parser("engines", help="start or stop engine daemons; dump: "
                       "ask those started here for their threads' stacks "
                       "(a daemon that stops answering)")
    p.add_argument("action", choices=["start", "stop", "dump"])
    p.add_argument("engines", nargs="*", metavar="ENGINE")
    p.set_defaults(func=_engines)

    p = sub.add_parser("summary", help="summarize Rally JSON results; "
                       "exit 1 on failed iterations or missing platforms")
    p.add_argument("file", help="rally task report --json output")
    p.add_argument("--expect-platforms", nargs="*", metavar="PLATFORM")
    p.add_argument("--expect-concurrency", nargs="*", type=int,
                   metavar="N")
    p.set_defaults(func=_summary)

    p = sub.add_parser("cleanup", help="delete the instances Rally named "
                       "on every local engine (e.g. after Rally was "
                       "killed), or with --env a cloud's Zun containers, "
                       "and the shared guest images and flavors of tasks "
                       "that ended (with --task also its Rally users and "
                       "projects)")
    p.add_argument("--task", metavar="UUID",
                   help="only this task's instances (default: any task's); "
                        "its workloads are read from Rally's DB")
    p.add_argument("--rally-config", metavar="FILE",
                   help="Rally's config file, as rally --config-file "
                        "(default: where Rally looks)")
    p.add_argument("--dry-run", action="store_true",
                   help="list what would be deleted")
    p.add_argument("--env", metavar="NAME",
                   help="a Rally environment of an OpenStack cloud: its "
                        "Zun containers Rally named instead (with its "
                        "admin: every project's, force-deleted), each "
                        "printed with its id")
    p.set_defaults(func=_cleanup)

    p = sub.add_parser("compare", help="compare every platform with "
                       "native: comparison.html/.csv/.json/.md")
    p.add_argument("files", nargs="+", metavar="RALLY_JSON",
                   help="rally task report --json (or rally task export "
                        "--type json) output; several tasks are pooled")
    p.add_argument("--out", required=True, metavar="DIR",
                   help="directory for the four files (created)")
    p.add_argument("--title", help="the report's title")
    p.add_argument("--margin", type=float, default=0.02,
                   help="equivalence margin of the verdicts (default 0.02: "
                        "within +-2 %% of native is equivalent)")
    p.add_argument("--margin-for", action="append", metavar="KIND=FRACTION",
                   help="the margin of one kind of metric: cpu, memory, "
                        "disk, network, footprint, phase (repeatable)")
    p.set_defaults(func=_compare)

    cli_periodic.add_parsers(sub)
    cli_decide.add_parser(sub)

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
