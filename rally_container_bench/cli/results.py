"""rcbench summary, compare and cleanup: results, and what runs left."""

import json
import os
import shutil
import sys
import tempfile

from rally_container_bench.cli import periodic as cli_periodic
from rally_container_bench.decide import rally_tasks
from rally_container_bench.decide import settings as decide_settings
from rally_container_bench.engines import catalog
from rally_container_bench import opts
from rally_container_bench.report import summary


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


def _kek(args):
    from rally_container_bench.report import kek

    try:
        with open(args.file) as f:
            report = json.load(f)
        found = kek.check(report)
    except (OSError, ValueError, KeyError, TypeError) as e:
        print("rcbench kek: %s: not a comparison.json (rcbench compare or "
              "decide writes it): %s" % (args.file, e), file=sys.stderr)
        return 2
    text = kek.markdown(found, "`%s` (%s)" % (
        os.path.basename(os.path.dirname(os.path.abspath(args.file))),
        report.get("title") or "its comparison"))
    if args.out:
        with open(args.out, "w") as f:
            f.write(text)
        print("written: %s" % args.out)
    else:
        print(text, end="")
    answers = [item["answer"] for item in found]
    print("; ".join("%d %s" % (answers.count(a), a) for a in (
        kek.AGREES, kek.DISAGREES, kek.UNSETTLED, kek.UNCHECKED)),
        file=sys.stderr)
    return 0


def native_scratch(conf, matches):
    """This host's directories of native runs a task left (a killed one).

    The scenarios name them as Rally names the task's resources
    (SysbenchScenarioMixin._scratch_here), under native_workdir.
    """
    parent = conf.native_workdir or tempfile.gettempdir()
    try:
        names = sorted(os.listdir(parent))
    except OSError:
        return []
    return [os.path.join(parent, name) for name in names
            if matches(name) and os.path.isdir(os.path.join(parent, name))]


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
    scratch = native_scratch(conf, matches)
    if args.dry_run:
        for cleaner, name in found:
            print("would delete %s %s" % (cleaner.name, name))
        for path in scratch:
            print("would delete native scratch directory %s" % path)
        return 0
    for path in scratch:
        shutil.rmtree(path, ignore_errors=True)
        print("deleted native scratch directory %s" % path, flush=True)

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
    from rally_container_bench.task import cloud_leftovers

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

    margins = decide_settings.margins_of(args.margin, args.margin_for,
                                         auto=False)
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


def add_parsers(sub):
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

    p = sub.add_parser("kek", help="KEK's HEPiX 2015 conclusions checked "
                       "against a run's comparison.json: agrees, disagrees, "
                       "not settled, or cannot be checked here and why")
    p.add_argument("file", metavar="COMPARISON_JSON",
                   help="comparison.json of rcbench decide or compare")
    p.add_argument("--out", metavar="FILE.md",
                   help="write the table there (default: print it)")
    p.set_defaults(func=_kek)

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
