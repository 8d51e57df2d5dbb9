"""Which sysbench build each side of a pair runs, read and recorded.

Each side's own build is read first (images/sysbench_build.py: the
executable and every library it loads). [container_bench] sysbench_build
then says what runs:

  auto    both sides' own where they are one build (or the instance has
          no twin); else one bundle (images/sysbench_bundle.py) on every
          side whose own differs from it
  pushed  the bundle on every side (a side that is already it keeps its
          own path)
  image   each side's own, recorded even where they differ

The bundle is made of the twin's executable where the twin runs here,
else of this host's sysbench_path.
"""

import dataclasses

from rally_container_bench.core import base
from rally_container_bench.images import sysbench_build as build_lib
from rally_container_bench.images import sysbench_bundle as bundle_lib
from rally_container_bench.task.scenarios import measured_runs

AUTO, PUSHED, IMAGE = "auto", "pushed", "image"
MODES = (AUTO, PUSHED, IMAGE)


@dataclasses.dataclass(frozen=True)
class Placed:
    """What one side runs: the executable, its build (None: not read)."""

    executable: str
    build: object
    how: str

    def describe(self):
        if self.build is None:
            return self.how
        return "%s, build %s (sysbench sha256 %s)" % (
            self.how, self.build.short(), self.build.binary_sha256[:12])


def for_tests(executor, specs, executable, twin, mode, timeout,
              image=None):
    """(instance's sysbench, twin, environment) once both are placed.

    twin: a measured_runs.Twin or None; the twin is placed only where it
    is paired with a sysbench test. image: what the instance was made
    of (its environment's "image"), where one is known: what the image
    holds is read once per process.
    """
    if not any(s.tool == "sysbench" for s in specs):
        return executable, twin, {}
    paired = twin is not None and any(
        s.tool == "sysbench" and measured_runs.pairs(s) for s in specs)
    placed, twin_placed = place(
        (executor, executable),
        (twin.executor, twin.executable) if paired else None, mode, timeout,
        image)
    if twin_placed is not None:
        twin = twin._replace(executable=twin_placed.executable)
    return placed.executable, twin, environment(placed, twin_placed)


def own(executor, executable, timeout, image=None):
    """Placed of the side's own sysbench, as it is.

    A replayed instance (workloads/sysbench/script.py) answers from its
    log, where its script printed its build too.
    """
    if executor.on_host:
        return Placed(executable, bundle_lib.build_here(executable),
                      "its own")
    try:
        build = _read(executor, build_lib.own_argv(executable), timeout,
                      image)
    except base.DriverError:
        if not getattr(executor, "replays", False):
            raise
        build = None
    if build is None and getattr(executor, "replays", False):
        return Placed(executable, None, "its own (not read: its log holds "
                                        "no build)")
    return Placed(executable, build, "its own")


def place(instance, twin, mode, timeout, image=None):
    """(Placed of the instance, Placed of the twin or None).

    instance, twin: (executor, executable); twin may be None. image: the
    instance's image, where known (for_tests).
    """
    sides = [own(*instance, timeout=timeout, image=image)]
    if twin is not None:
        sides.append(own(*twin, timeout=timeout))
    if mode == IMAGE or (mode == AUTO and (
            len(sides) == 1 or _one_build(*sides))):
        return _with_twin(sides)
    here = twin if twin is not None and twin[0].on_host else None
    try:
        bundle = bundle_lib.of_executable(here and here[1])
    except bundle_lib.BundleError as e:
        if mode == PUSHED:
            raise base.DriverError("sysbench_build = pushed: %s" % e)
        return _with_twin([dataclasses.replace(
            side, how="%s (%s)" % (side.how, e)) for side in sides])
    pairs = [instance] + ([twin] if twin is not None else [])
    return _with_twin([
        _bundled(executor, side, bundle, timeout, image if i == 0 else None)
        for i, ((executor, _), side) in enumerate(zip(pairs, sides))])


def _with_twin(sides):
    return sides[0], (sides[1] if len(sides) > 1 else None)


def _one_build(first, second):
    return first.build is not None and second.build is not None \
        and first.build.id == second.build.id


def _bundled(executor, side, bundle, timeout, image=None):
    if side.build is not None and side.build.id == bundle.build.id:
        return dataclasses.replace(side, how="its own, the bundle's build")
    if getattr(executor, "replays", False):
        return dataclasses.replace(side, how=side.how + "; nothing can be "
                                   "pushed to it")
    if executor.on_host:
        return Placed(bundle.wrapper, bundle.build,
                      "the bundle of %s in %s" % (bundle.source, bundle.dir))
    baked = build_lib.baked_dir(bundle.build.id)
    there = _read(executor, build_lib.bundle_argv(baked), timeout, image)
    if there is not None and there.id == bundle.build.id:
        return Placed("%s/%s" % (baked, build_lib.WRAPPER), there,
                      "the bundle of %s baked into its image" % bundle.source)
    directory = build_lib.remote_dir(bundle.build.id)
    there = _read(executor, build_lib.bundle_argv(directory), timeout)
    if there is None or there.id != bundle.build.id:
        if not base.put_archive(executor, bundle.read_archive(), directory,
                                timeout):
            return dataclasses.replace(side, how=side.how + "; nothing can "
                                       "be pushed to it")
        there = _read(executor, build_lib.bundle_argv(directory), timeout)
    if there is None or there.id != bundle.build.id:
        raise base.DriverError(
            "the sysbench pushed to %s reads build %s, not the bundle's %s"
            % (directory, there and there.short(), bundle.build.short()))
    return Placed("%s/%s" % (directory, build_lib.WRAPPER), there,
                  "pushed: the bundle of %s" % bundle.source)


# (image, argv) -> Build read in an instance of that image: each of a
# run's instances holds the same files (~0.1 s of CPU per read: every
# iteration read them twice, CI's functional tests took ~2 min longer).
_READ_IN_IMAGE = {}


def _read(executor, argv, timeout, image=None):
    """The Build argv prints there, None where it prints none.

    image: what the files read come from (the instance's image), where
    they are the image's own: a build found is then not read again.
    """
    key = (image, tuple(argv))
    if image is not None and key in _READ_IN_IMAGE:
        return _READ_IN_IMAGE[key]
    result = executor.run(argv, timeout)
    if result.exit_code != 0:
        return None
    try:
        build = build_lib.read(result.stdout)
    except build_lib.BuildError:
        return None
    if image is not None:
        _READ_IN_IMAGE[key] = build
    return build


def environment(instance, twin):
    """The results' environment entries of both sides' builds."""
    facts = {"sysbench_build": instance.describe()}
    if twin is not None:
        facts["twin_sysbench_build"] = twin.describe()
        if not _one_build(instance, twin):
            facts["sysbench_builds"] = (
                "two builds: the instance runs %s, its twin %s" % (
                    instance.build.short() if instance.build else "one not "
                    "read", twin.build.short() if twin.build else "one not "
                    "read"))
    return facts
