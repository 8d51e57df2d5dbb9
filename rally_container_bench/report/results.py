"""Rally's exported task results as uniform samples.

Pure: reads the JSON that ``rally task report --json`` and
``rally task export --type json`` write (tasks[].subtasks[].workloads[]),
knows no engine. Every iteration gives samples ``(metric, unit, value)``
under its platform and concurrency: the duration of each phase (top-level
atomic action; a child is "<parent>/<child>"), "build+network",
"boot-and-delete" (build + network + delete), and every
record of its "metric records" table (metrics.Record: workloads and the
footprint, each with its unit and direction as the parser gave them).
Results written before the records are read from the "name (unit)" rows
of the workload tables ("sysbench <label>", "fio <label>", ...) and the
"footprint" table instead.
"""

import collections

from rally_container_bench.report import overlap
from rally_container_bench.task import output_tables as tables
from rally_container_bench.validity import cpu_pairs
from rally_container_bench.workloads import metrics
from rally_container_bench.workloads import tools

BUILD_NETWORK = "build+network"
# KEK's boot-and-delete: an instance's whole own cost, build + network +
# delete (the tests an iteration runs between them not counted)
BOOT_AND_DELETE = "boot-and-delete"
# Workload metrics are named <tool>.<test>.<metric>.
WORKLOAD_METRIC_PREFIXES = tools.metric_prefixes()
VM_ACCELERATIONS = ("kvm", "tcg", "hvf", "whpx")

# host: the compute host the iteration's instance (and its twin) ran on,
# where the results say (a cloud's); None on the Rally host. moment: the
# values measured at once (a synchronised wave's, at one repeat, paired
# or not); a pair on its own where the results name no wave; None for an
# unpaired value of no recorded wave.
Sample = collections.namedtuple(
    "Sample", "metric unit higher_is_better value platform concurrency "
              "round pair twin_of host moment",
    defaults=(None, None, None, None, None))
NATIVE = "native"
# How a record names its pair's mode; in sequence where it names none
# (results before pairs at once)
IN_SEQUENCE = cpu_pairs.SAID[cpu_pairs.SEQUENTIAL]
AT_ONCE = cpu_pairs.SAID[cpu_pairs.AT_ONCE]
ROUND_CONTEXT = "rcbench_round"


class ResultsError(ValueError):
    """The document is not Rally task results."""


class Platform(collections.namedtuple(
        "Platform", "driver runtime acceleration tuning",
        defaults=(None,))):
    """Where an iteration ran, as the report groups it.

    tuning: the knobs set ("hostnet+cpuset1+volume"), appended to the
    label so tuned and untuned runs of one engine stay apart.
    """

    @property
    def label(self):
        if self.tuning:
            return "%s+%s" % (self._base_label(), self.tuning)
        return self._base_label()

    def _base_label(self):
        if self.driver == "native":
            return "native"
        if self.acceleration in VM_ACCELERATIONS:
            # The engine's real acceleration names a VM, never the driver:
            # the "kvm" driver under TCG is "qemu-tcg"; a QEMU server
            # through Nova under TCG is "nova-qemu-tcg".
            vm = "%s-%s" % (self.runtime or "vm", self.acceleration)
            if self.driver in ("kvm", self.runtime):
                return vm
            return "%s-%s" % (self.driver, vm)
        if (self.acceleration or "").startswith("gvisor-"):
            # gVisor's platform (ptrace, kvm) changes its cost as much as
            # TCG vs KVM does a VM's: docker-runsc-ptrace.
            return "%s-%s" % (self.driver, self.acceleration[7:])
        if not self.runtime or self.runtime in self.driver:
            return self.driver
        return "%s-%s" % (self.driver, self.runtime)


class Collected:
    """Samples, iteration counts and environment facts of some tasks.

    Keys (label, concurrency) also index how the step ran: its test runs'
    overlap (overlap.TestRun), its waves (overlap.Wave), the validity
    checks of its tests ({column: value}), the start barrier's timeouts,
    and the rounds it was split into ({round: seed}).
    """

    def __init__(self):
        self.samples = []
        self.iterations = collections.Counter()  # (label, concurrency)
        self.failed = collections.Counter()
        self.platforms = {}  # label -> Platform, in order of appearance
        self.environments = {}  # label -> {key: value}
        self.tasks = []  # [{uuid, title, env_name, created_at, workloads}]
        self.test_runs = collections.defaultdict(list)
        self.waves = collections.defaultdict(list)
        self.checks = collections.defaultdict(list)
        self.barrier_timeouts = collections.Counter()
        self.synchronised = set()
        self.rounds = collections.defaultdict(dict)
        # (metric, label, concurrency) -> runs left out of verdicts, by why
        self.left_out = collections.defaultdict(collections.Counter)
        # (metric, label, concurrency) -> pairs kept beside foreign load
        # alike for both of them (foreign_load.alike_in_pair)
        self.alike = collections.Counter()
        # (label, concurrency) -> Counter of compute hosts of iterations
        self.placement = collections.defaultdict(collections.Counter)
        # (label, concurrency) -> Counter of how tests were paired
        self.pairing = collections.defaultdict(collections.Counter)
        # (metric, label, concurrency) -> Counter of its kept pairs' modes
        # (validity.cpu_pairs.SAID: "at once", "in sequence")
        self.modes = collections.defaultdict(collections.Counter)
        # label -> the task's name of the cell (rcbench_round's "cell")
        self.cells = {}
        self.looks = None  # a sequential run's planned looks per cell
        self.started = None  # epoch s of the first iteration's start
        self.ended = {}  # (metric, label, concurrency) -> its last end
        self._iteration_number = 0  # pairs are keyed by it
        self._workload_number = 0  # and their waves by it


def tasks_of(document):
    if not isinstance(document, dict) or not isinstance(
            document.get("tasks"), list):
        raise ResultsError(
            "not Rally task results: expected a JSON object with a 'tasks'"
            " list (write it with `rally task report UUID --json --out F`"
            " or `rally task export --uuid UUID --type json --to F`)")
    return document["tasks"]


def collect(documents):
    """Collected from exported documents (each {"tasks": [...]})."""
    collected = Collected()
    for document in documents:
        for task in tasks_of(document):
            _collect_task(collected, task)
    return collected


def _collect_task(collected, task):
    summary = {"uuid": task.get("uuid"), "title": task.get("title"),
               "env_name": task.get("env_name"),
               "created_at": task.get("created_at"), "workloads": []}
    collected.tasks.append(summary)
    for subtask in task.get("subtasks", []):
        for workload in subtask.get("workloads", []):
            scenario, args = next(iter(workload["scenario"].items()))
            runner_type, runner = next(iter(workload["runner"].items()))
            concurrency = runner.get("concurrency", 1)
            round_of = round_config(workload)
            if round_of and round_of.get("looks"):
                collected.looks = max(collected.looks or 0,
                                      round_of["looks"])
            summary["workloads"].append({
                "subtask": subtask.get("title"), "scenario": scenario,
                "args": args or {}, "runner": {runner_type: runner},
                "round": round_of})
            fallback = _workload_platform(workload, scenario, args or {})
            collected._workload_number += 1
            labels = [_collect_iteration(collected, iteration, scenario,
                                         args or {}, concurrency, round_of,
                                         fallback)
                      for iteration in workload.get("data", [])]
            if labels:
                _collect_step(collected, (labels[0], concurrency),
                              workload["data"], round_of)
                if round_of and round_of.get("cell"):
                    collected.cells.setdefault(labels[0], round_of["cell"])


def round_config(workload):
    """{round, rounds, seed} of a workload of an interleaved run, or None."""
    for name, config in (workload.get("contexts") or {}).items():
        if name.split("@")[0] == ROUND_CONTEXT and isinstance(config, dict):
            return config
    return None


def _collect_step(collected, key, iterations, round_of):
    """How one workload (a step of a platform) ran: overlap, checks."""
    collected.test_runs[key].extend(overlap.test_runs(iterations))
    collected.waves[key].extend(overlap.waves(iterations, key[1]))
    if round_of:
        collected.rounds[key][round_of.get("round")] = round_of.get("seed")
    for iteration in iterations:
        for row in table_rows(iteration, tables.VALIDITY):
            collected.checks[key].append(row)
        waits = table_rows(iteration, tables.START_BARRIER)
        if waits:
            collected.synchronised.add(key)
        collected.barrier_timeouts[key] += sum(
            1 for row in waits if row.get("timed_out") == "timed out")


def table_rows(iteration, title):
    """[{column: value}] of the iteration's complete table ``title``."""
    for table in iteration.get("output", {}).get("complete", []):
        if table.get("title") == title:
            columns = table["data"].get("cols", [])
            return [dict(zip(columns, row))
                    for row in table["data"].get("rows", [])]
    return []


def environment_of(iteration):
    """The iteration's "environment" table as a dict (may be empty)."""
    for table in iteration.get("output", {}).get("complete", []):
        if table.get("title") == tables.ENVIRONMENT:
            return {row[0]: row[1] for row in table["data"].get("rows", [])}
    return {}


# The driver of a scenario group's instances, where an iteration that
# failed before it said so has no environment table.
_SCENARIO_DRIVERS = {"NativeHost": "native", "NovaInstances": "nova",
                     "ZunContainers": "zun"}


def _workload_platform(workload, scenario, args):
    """The platform of a workload's iterations that say none (failed).

    The first iteration's that does; else what the arguments asked for.
    """
    for iteration in workload.get("data", []):
        environment = environment_of(iteration)
        if environment:
            return platform_of(environment, scenario, args)
    asked = {"runtime": args.get("hypervisor_type") or args.get("runtime")}
    return platform_of(asked, scenario, args)


def platform_of(environment, scenario, args):
    driver = environment.get("driver") or args.get("driver")
    if not driver:
        driver = _SCENARIO_DRIVERS.get(scenario.split(".")[0], scenario)
    tuning = environment.get("tuning")
    return Platform(driver, environment.get("runtime") or None,
                    environment.get("acceleration") or None,
                    tuning if tuning not in (None, "", "none") else None)


def _collect_iteration(collected, iteration, scenario, args, concurrency,
                       round_of=None, fallback=None):
    """Add one iteration's samples; return its platform's label."""
    environment = environment_of(iteration)
    platform = platform_of(environment, scenario, args) if environment \
        else fallback or platform_of(environment, scenario, args)
    label = platform.label
    collected.platforms.setdefault(label, platform)
    if environment:
        collected.environments.setdefault(label, environment)
    key = (label, concurrency)
    collected.iterations[key] += 1
    host = environment.get("compute_host") or None
    if host:
        collected.placement[key][host] += 1
    if environment.get("pairing"):
        collected.pairing[key][environment["pairing"]] += 1
    if iteration.get("error"):
        # Never averaged with the good ones: counted, and flagged.
        collected.failed[key] += 1
        return label
    round_number = round_of.get("round") if round_of else None
    collected._iteration_number += 1
    started = iteration.get("timestamp")
    ended = None
    if started is not None:
        collected.started = min(started, collected.started or started)
        ended = started + (iteration.get("duration") or 0)
    for metric, unit, higher, value, facts in _iteration_facts(iteration):
        kept = _kept(facts)
        if kept is not True:
            if not facts.get("twin"):
                collected.left_out[(metric,) + key][kept] += 1
            continue
        if facts.get("beside_load_alike") and not facts.get("twin"):
            collected.alike[(metric,) + key] += 1
        if facts.get("paired") and not facts.get("twin"):
            collected.modes[(metric,) + key][
                facts.get("pairing") or IN_SEQUENCE] += 1
        pair = moment = None
        if facts.get("twin") or facts.get("paired"):
            pair = moment = (collected._iteration_number, metric,
                             facts.get("repeat"), facts.get("attempt"))
        if facts.get("wave") is not None:
            # paired or not, the values of one wave share its moment
            moment = (collected._workload_number, facts["wave"], metric,
                      facts.get("repeat"))
        twin = facts.get("twin") == "native"
        if twin and NATIVE not in collected.platforms:
            # native measured only as twins: still the baseline's row
            collected.platforms[NATIVE] = Platform(NATIVE, None, None)
            collected.iterations[(NATIVE, concurrency)] += 0
        if ended is not None:
            cell = (metric, label, concurrency)
            collected.ended[cell] = max(ended, collected.ended.get(cell, 0))
        collected.samples.append(
            Sample(metric, unit, higher, value, NATIVE if twin else label,
                   concurrency, round_number, pair,
                   label if twin else None, host, moment))
    return label


def _kept(facts):
    """True, or why a record is left out of verdicts."""
    if facts.get("final") is False:
        return "re-measured"
    if facts.get("skewed"):
        return "skewed start"
    if facts.get("disturbed"):
        return "disturbed"
    return True


def _iteration_values(iteration):
    """(metric, unit, higher_is_better, value) of every measurement."""
    for found in _iteration_facts(iteration):
        yield found[:4]


def _iteration_facts(iteration):
    """The same, each with its record's metadata ({} for the rest)."""
    durations = {}
    for action in iteration.get("atomic_actions", []):
        _phase_durations(action, "", durations)
    for name, seconds in durations.items():
        yield name, "s", False, seconds, {}
    if "build" in durations and "network" in durations:
        yield (BUILD_NETWORK, "s", False,
               durations["build"] + durations["network"], {})
        if "delete" in durations:
            yield (BOOT_AND_DELETE, "s", False, durations["build"]
                   + durations["network"] + durations["delete"], {})
    for row in table_rows(iteration, tables.GUEST):
        # The guest's own boot time, read inside at its first login.
        if row.get("boot_s") not in (None, ""):
            yield "guest_boot", "s", False, float(row["boot_s"]), {}
    for table in iteration.get("output", {}).get("complete", []):
        if table.get("title") == metrics.RECORDS_TITLE:
            for record in metrics.records_from(table):
                yield (record.metric, record.unit, record.higher_is_better,
                       record.value, record.metadata)
            return
    for found in _values_of_stats_tables(iteration):
        yield found + ({},)


def _values_of_stats_tables(iteration):
    """Results written before the records: "name (unit)" rows.

    The direction comes from the tool's parser.
    """
    for table in iteration.get("output", {}).get("additive", []):
        title = table.get("title", "")
        if title == tables.FOOTPRINT:
            for row_name, value in table.get("data", []):
                name, unit = _split_row(row_name)
                if value is not None:
                    yield "footprint." + name, unit, False, float(value)
            continue
        tool, test = tables.split_workload(title)
        if tool not in tools.TOOLS or not test:
            continue
        for row_name, value in table.get("data", []):
            name, unit = _split_row(row_name)
            if value is None:
                continue
            yield ("%s.%s.%s" % (tool, test, name), unit,
                   tools.higher_is_better(tool, name), float(value))


def _phase_durations(action, parent, durations):
    name = parent + action["name"]
    if name.startswith(WORKLOAD_METRIC_PREFIXES):
        return  # its metrics are the result, not its wall time
    if action.get("finished_at") is not None:
        durations[name] = action["finished_at"] - action["started_at"]
    for child in action.get("children", []):
        _phase_durations(child, name + "/", durations)


def _split_row(row_name):
    """"events_per_s (events/s)" -> ("events_per_s", "events/s")."""
    name, _, unit = row_name.partition(" (")
    return name, unit[:-1] if unit.endswith(")") else unit
