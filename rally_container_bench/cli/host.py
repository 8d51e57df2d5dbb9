"""rcbench doctor, images and engines: what this host runs, and its daemons."""

import sys

from rally_container_bench.core import ports
from rally_container_bench.engines import daemons
from rally_container_bench.engines import registry
from rally_container_bench.images import busybox
from rally_container_bench.images import cloud_image
from rally_container_bench.images import guest
from rally_container_bench import opts


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
    if args.cloud_standin:
        standin = cloud_image.build(conf.image_cache_dir, force=args.force)
        print(standin.dir)
        return 0
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


def add_parsers(sub):
    p = sub.add_parser("doctor", help="what this host can run, and why not")
    p.set_defaults(func=_doctor)

    p = sub.add_parser("images", help="offline guest images")
    p.add_argument("action", choices=["build"])
    p.add_argument("--force", action="store_true",
                   help="rebuild even if a cached image matches")
    p.add_argument("--cloud-standin", action="store_true",
                   help="build only the stand-in for a site's cloud image "
                        "(a whole disk with extlinux and cloud-init, no "
                        "sysbench, no key)")
    p.set_defaults(func=_images_build)

    p = sub.add_parser("engines", help="start or stop engine daemons; dump: "
                       "ask those started here for their threads' stacks "
                       "(a daemon that stops answering)")
    p.add_argument("action", choices=["start", "stop", "dump"])
    p.add_argument("engines", nargs="*", metavar="ENGINE")
    p.set_defaults(func=_engines)
