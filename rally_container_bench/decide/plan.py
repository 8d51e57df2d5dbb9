"""What rcbench decide plans and reads: the cells of the task args, each
round's order, which cells are undecided, the margins' spread, and the
refusal of a cloud run that would pair nothing.

Pure but for the report it reads (report.comparison).
"""

import collections
import random
import statistics

from rally_container_bench.engines import catalog
from rally_container_bench.engines.native import instance as native
from rally_container_bench.engines import registry
from rally_container_bench.report import comparison
from rally_container_bench.report import margins as margins_lib
from rally_container_bench.validity import compute_hosts as host_access
from rally_container_bench.workloads import tests as tests_lib

NATIVE = comparison.NATIVE
DECIDED = ("equivalent", "worse", "better")
# An auto margin wider than this would make "equivalent" say nothing:
# cells that cannot be settled within it stay inconclusive, and say why.
MAX_AUTO_MARGIN = 0.25


class DecideError(Exception):
    pass


# A cloud task's cells that boot a VM (a local task's ask the catalog).
CLOUD_VMS = ("kvm", "kvm-tuned", "kvm-volume")


def units_of(args):
    """The run's cells by name, natives left out.

    A local task's platforms are engine names; a cloud task's platform
    "container" stands for its container targets (container: nova-lxc,
    nova-docker, zun), and Zun with several runtimes for one cell each
    (zun:runc, zun:runsc), as tasks/kvm_vs_docker.yaml names them.
    """
    found = []
    for platform in args.get("platforms", []):
        if platform == NATIVE:
            continue
        if platform != "container":
            found.append(platform)
            continue
        targets = args.get("container", "nova-lxc")
        for target in [targets] if isinstance(targets, str) else targets:
            runtimes = args.get("zun_runtime")
            if target == "zun" and isinstance(runtimes, list) \
                    and len(runtimes) > 1:
                found += ["zun:%s" % runtime for runtime in runtimes]
            else:
                found.append(target)
    return found


def cells_of(args):
    """{(cell, step): [test presets]} of the run, natives left out."""
    steps = args.get("concurrency", [1, 2])
    limits = args.get("max_concurrency", {})
    floors = args.get("min_concurrency", {})
    return {(cell, step): list(args.get("tests", []))
            for cell in units_of(args)
            for step in steps
            if floors.get(cell.split(":")[0], step) <= step
            <= limits.get(cell.split(":")[0], step)}


def cloud_task(args):
    """Whether the task args are a cloud's (not this host's engines)."""
    return args.get("compute_hosts") is not None or not set(
        units_of(args)) <= set(registry.INSTANCE_NAMES)


def check_engines(args, conf=None):
    """DecideError where a local platform's engine cannot boot now.

    Rally's rcbench_engine_ready says the same, but only at the first
    round's start, after the A/A calibration has run; a campaign would
    fail a minute or more after its start (an engine's daemon not
    started, the guest image not built).
    """
    if cloud_task(args):
        return
    from rally_container_bench import opts
    conf = conf or opts.register()
    drivers = collections.defaultdict(list)  # {reason: [driver]}
    for name in sorted(set(units_of(args))):
        why = registry.not_ready(name, conf)
        if why:
            drivers[why].append(repr(name))
    if drivers:
        raise DecideError("%s: nothing ran ('rcbench engines start' starts "
                          "the engines' daemons, 'rcbench doctor' says what "
                          "each needs)" % "; ".join(
                              "driver %s %s" % (", ".join(names), why)
                              for why, names in drivers.items()))


def instrument_cells(args, cells):
    """({(cell, step): tests} of the instrument check, what it leaves out).

    A local task's: the A/A cell (native against its own twin) at every
    step of the run, the known effect (native beside a busy neighbour of
    known weight, against its twin) at its lowest, of its CPU-bound
    tests. A cloud's, where compute_hosts pairs its tests: the A/A on
    each kind of compute host its cells land on, at the steps where
    cells of that kind run (a VM capped at 1 gets its A/A at 1 alone);
    no known effect (a busy neighbour on a compute host is not this
    run's to start). report/instrument.py reads them.
    """
    units = {platform for platform, _ in cells}
    steps = sorted({step for _, step in cells})
    tests = list(args.get("tests", []))
    if not cells:
        return {}, []
    if args.get("compute_hosts") is not None:
        found = {(native.aa_on(kind), step): tests for step in steps
                 for kind in cloud_host_kinds(
                     args, {unit for unit, at in cells if at == step})}
        return found, ["instrument check: the A/A on each kind of compute "
                       "host (%s), no known-effect cell (a busy neighbour "
                       "on a compute host is not started by this run)"
                       % ", ".join(sorted({c for c, _ in found}))]
    if not units <= set(registry.INSTANCE_NAMES):
        return {}, ["instrument check: not run (a cloud task without "
                    "compute_hosts: no twin runs on its compute hosts, so "
                    "there is no A/A to run there)"]
    found = {(native.AA, step): tests for step in steps}
    bound = [t for t in tests if cpu_bound(t)]
    if not bound:
        return found, ["instrument check: no known-effect cell (no cpu or "
                       "memory test: a busy neighbour's effect on I/O is "
                       "not known)"]
    found[(native.SLOWED, steps[0])] = bound
    return found, []


def cloud_host_kinds(args, units):
    """The kinds of compute host a cloud task's cells land on, sorted."""
    vm_type = args.get("kvm_hypervisor_type", "kvm")
    found = set()
    for unit in units:
        name = unit.split(":")[0]
        if name == "zun":
            found.add(host_access.host_kind("zun"))
        elif name in CLOUD_VMS:
            found.add(host_access.host_kind("nova", vm_type))
        elif name.startswith("nova-"):
            found.add(host_access.host_kind("nova", name[len("nova-"):]))
    return sorted(found)


def cpu_bound(test):
    """Whether a CPU neighbour slows test by its share (cpu, memory)."""
    spec = tests_lib.resolve(test)
    return spec.tool == "sysbench" and spec.label.split(".")[0] in (
        "cpu", "memory")


def natives_alone(args):
    """Whether native runs as cells of its own in round 1 (its level).

    Not on a cloud whose compute_hosts gives every instance its native
    twin on its own host, unless native_host names a host for it: the
    Rally host is never a stand-in for a compute host.
    """
    return NATIVE in args.get("platforms", []) and (
        args.get("compute_hosts") is None or bool(args.get("native_host")))


def times_for(step, pairs):
    """Iterations of a cell per round: ``pairs`` waves of step.

    A wave's pairs, measured at once, count as one observation
    (report/equivalence.py), so every step gets ``pairs`` a round.
    """
    return step * max(1, pairs)


# A VM's repeats in round 1: the fewest with an interval. A VM under TCG
# is decided on them (-73 % cpu, -85 % memory: 78 s of README command
# 1's first round at 6, 2026-12-05); one that is not gets the round's
# pairs from round 2 on.
FIRST_LOOK_REPEATS = 3


def cell_runs(platform, step, pairs, booting_costs, first=False):
    """(times, repeat) of a cell's round.

    Waves where booting is cheap (containers): pairs of one instance
    share its placement (a container whose memory reads sit in the
    host's slower mode stays there), so separate instances keep the
    observations independent. Where booting costs a minute (a VM under
    TCG, booting_costs(platform) true): one wave, its tests repeated,
    each repeat a moment of its own; FIRST_LOOK_REPEATS of them in round
    1 (first).
    """
    if booting_costs(platform):
        return step, max(1, min(pairs, FIRST_LOOK_REPEATS) if first
                         else pairs)
    return times_for(step, pairs), 1


def _own_kernel(platform):
    try:
        return registry.instance_class(platform).own_kernel
    except catalog.UnknownEngine:  # a cloud's cell, or a typo validation
        return platform in CLOUD_VMS  # says so, before any boot


def plan_round(cells, number, seed, pairs, natives=(),
               booting_costs=_own_kernel):
    """[[platform, step, tests, times, repeat]] of a round, shuffled."""
    plan = [[NATIVE, step, tests, times_for(step, pairs), 1]
            for step, tests in natives]
    plan += [[platform, step, tests]
             + list(cell_runs(platform, step, pairs, booting_costs,
                              first=number == 1))
             for (platform, step), tests in sorted(cells.items()) if tests]
    random.Random(seed * 1000 + number).shuffle(plan)
    return plan


def undecided(report, cells):
    """The cells' tests whose headline metric has no verdict yet."""
    left = {}
    for (platform, step), presets in cells.items():
        label = label_of(report, platform)
        still = []
        for preset in presets:
            rows = headline_rows(report, label, step, preset)
            if not rows or any(r["verdict"] not in DECIDED for r in rows):
                still.append(preset)
        left[(platform, step)] = still
    return left


def unanswered(report, left):
    """The undecided cells none of whose tests has an interval yet.

    Every run of theirs left out (a neighbour's load over all of them)
    or failed, or fewer waves than a verdict takes: they have no answer
    at all, where the others have one that is not sharp enough yet.
    """
    found = set()
    for (platform, step), presets in left.items():
        label = label_of(report, platform)
        rows = [row for preset in presets
                for row in headline_rows(report, label, step, preset)]
        if presets and all(row["verdict"] is None for row in rows):
            found.add((platform, step))
    return found


def upper_quartile(values):
    """The SD an auto margin is chosen for: three cells in four hold it.

    Not the median, by which half the cells of a kind are noisier than
    their margin allows for (memory at +-2 % from a median 1.25 % left 3
    of 9 cells undecided after 18 pairs, 2026-11-29). None for no values.
    """
    if len(values) < 2:
        return values[0] if values else None
    return statistics.quantiles(values, n=4, method="inclusive")[2]


def pair_spreads(report, cells, field="pair_sd"):
    """{margin key: [pair SD of each cell's headline metric]}.

    field: the rows' pair SD to read ("pair_sd_robust": without a pair
    that dipped, what the platforms' margins are chosen from).

    Decided cells or not: each kind's cells in sequence ("cpu"), again
    by step ("cpu at 1", "cpu at 2": one instance beside its twin pairs
    steadier than two sharing the CPUs), and those paired at once apart
    ("cpu at once": their floor is another).

    All of a kind's cells, not only those round 1 left undecided: those
    are by selection the noisiest, and two or three of them set a margin
    for the whole kind from their own spread (cpu +-3 % from 2 cells at
    2.2 % while the kind's 9 cells paired at a median 0.5 %, 2026-11-29).
    """
    spreads = collections.defaultdict(list)
    for (platform, step), presets in cells.items():
        label = label_of(report, platform)
        for preset in presets:
            for row in headline_rows(report, label, step, preset):
                if row.get(field) is None:
                    continue
                kind = comparison.kind_of(row["metric"])
                mode = row.get("pairing")
                # the kind's (every step in sequence) and its step's
                keys = {margins_lib.margin_key(kind, mode),
                        margins_lib.margin_key(kind, mode, step)}
                for key in keys:
                    spreads[key].append(row[field])
    return spreads


def headline_rows(report, label, step, preset):
    spec = tests_lib.resolve(preset)
    prefix = "%s.%s." % (spec.tool, spec.label)
    headline = {m["name"] for m in report["metrics"] if m["headline"]}
    rows = comparison.rows_for(report, platform=label, concurrency=step)
    return [row for row in rows
            if row["metric"].startswith(prefix) and row["metric"] in headline]


def refuse_unpaired(env_data, task_args, list_hosts):
    """DecideError when a cloud run would pair no test on its own host.

    rcbench decide settles each cell from its pairs; on a cloud a pair is
    the instance's test and its twin on the instance's compute host, so
    without compute_hosts every verdict would set the compute hosts
    against the Rally host (two instances on a one-CPU host read "-49 %
    worse" against native on two CPUs, 2026-12-02). list_hosts() ->
    {service: [hosts] or why not}: what the env's credentials see.
    """
    platforms = (env_data or {}).get("platforms") or {}
    if "openstack" not in platforms \
            or task_args.get("compute_hosts") is not None:
        return
    seen = list_hosts()
    lines = ["%s: %s" % (service, ", ".join(hosts) if isinstance(
        hosts, list) else hosts) for service, hosts in sorted(seen.items())]
    raise DecideError(
        "a cloud run needs compute_hosts: rcbench decide pairs every test "
        "with a native twin on the instance's own compute host (a verdict "
        "against native on the Rally host would compare two machines), "
        "and nothing says how to log in to them. The compute hosts this "
        "env sees: %s. Give them as --compute-hosts FILE (YAML or JSON: "
        "address, port, user, key_file, sysbench, workdir and per host "
        "overrides under hosts; %s), in the task args (compute_hosts), or "
        "in the Rally env's extras (compute_hosts: FILE); see %s."
        % ("; ".join(lines) or "none", host_access.EXAMPLE,
           host_access.GUIDE))


def auto_margin(chosen, held):
    """An auto margin: chosen, at most MAX_AUTO_MARGIN; never below held.

    chosen: from the cells' noise; held: the A/A's floor, which wins even
    beyond the cap (no margin is narrower than the A/A can hold).
    """
    return max(min(MAX_AUTO_MARGIN, chosen), held)


def margin_message(kind, margin, sd, cells, waves, aa_sd=None,
                   aa_margin=None):
    """What rcbench decide says of an auto margin after round 1."""
    floor = "" if aa_sd is None else (
        "; the A/A's pairs at %.2f %%: %s floor +-%g %%, measured" % (
            100 * aa_sd, "the disk's" if kind == "disk" else "this host's",
            100 * aa_margin))
    if sd is None:
        return ("margin of %s: +-%g %% kept, not chosen: round 1 paired no "
                "%s test with a native twin (a margin follows the pairs' "
                "spread), so the default stays" % (kind, 100 * margin, kind))
    if margin > MAX_AUTO_MARGIN:
        floor += ("; above +-%g %% only because the A/A needs it: "
                  "\"equivalent\" says little here" % (100 * MAX_AUTO_MARGIN))
    return ("margin of %s: +-%g %% (from round 1: pair SD %.2f %%, the upper "
            "quartile of %d cells, a pair that dipped beyond the cell's "
            "noise left out, for the %d waves a cell may get%s)"
            % (kind, 100 * margin, 100 * sd, cells, waves, floor))


def label_of(report, cell):
    """The report's platform label of a cell of the task."""
    for label, named in (report.get("cells") or {}).items():
        if named == cell:
            return label
    for found in report["platforms"]:
        if found["driver"] == cell:
            return found["label"]
    return None
