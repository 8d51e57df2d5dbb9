"""The titles of the tables an iteration adds to Rally's results.

Defined once: the scenarios write them (task/scenarios/), the report reads
them (report/results.py), and results written by older versions carry the
same titles; and the validity table's row of an attempt. No Rally import.
"""

from rally_container_bench.validity import foreign_load

ENVIRONMENT = "environment"
START_BARRIER = "start barrier"
VALIDITY = "validity"
# The waits for a quiet host before a disturbed test is measured again.
QUIET_WAIT = "quiet wait"
# A validity row's "disturbed" where the run read far below its side's
# level (validity.run_level) with no foreign load over the limit.
BELOW_LEVEL = "below its level"
# A validity row's verdicts where each run of a pair was beside more
# foreign load than the limit, alike for both: the pair was used.
USED_ALIKE = "used: foreign load alike in the pair"
# The guest's boot time read inside at its first login.
GUEST = "guest"
# The lifecycle scenarios' memory chart; before metric records
# (metrics.RECORDS_TITLE) also its rows were read from it, and still are.
FOOTPRINT = "footprint"
# A native twin's workload table: this prefix, then the workload's title.
NATIVE_TWIN_PREFIX = "native twin: "


def workload(tool, label):
    """A test's table: "sysbench cpu", "fio randread"."""
    return "%s %s" % (tool, label)


def split_workload(title):
    """(tool, label) of a workload table's title; label "" if none."""
    tool, _, label = title.partition(" ")
    return tool, label


def validity_row(spec, attempt, outcome, verdicts):
    """An attempt's row of the validity table (VALIDITY_COLUMNS)."""
    host, load, clock = outcome.host or {}, outcome.load or {}, \
        outcome.clock or {}
    return [
        "%s.%s" % (spec.tool, spec.label), outcome.role, attempt + 1,
        _rounded(host.get("busy")), _rounded(host.get("steal")),
        host.get("running_max"), _rounded(load.get("foreign"), 3),
        _rounded(load.get("own"), 3), _rounded(load.get("unplaced"), 3),
        "" if not load or outcome.limit is None else _rounded(
            foreign_load.limit_for(load, outcome.limit,
                                   outcome.saturated_share), 3),
        "yes" if outcome.disturbed else
        BELOW_LEVEL if outcome.below_level is not None else
        ("no" if load else ""),
        "" if clock.get("ratio") is None else round(clock["ratio"], 5),
        "yes" if clock.get("mismatch") else ("no" if clock else ""),
        verdicts, outcome.read_on or ""]


# host: the host whose load the run's columns were read on (the Rally
# host, or the instance's compute host); unplaced_cores: the part of
# own_cores that is Rally's CPU on a host with some of its machine's CPUs
# (foreign_load.disturbed); limit_cores: the foreign cores that disturb
# the run (a third of foreign_load_limit where the host had no idle CPU).
VALIDITY_COLUMNS = ("test", "run", "attempt", "host_busy", "host_steal",
                    "host_running_max", "foreign_cores", "own_cores",
                    "unplaced_cores", "limit_cores", "disturbed",
                    "clock_ratio", "clock_mismatch", "verdicts", "host")


def _rounded(value, digits=4):
    return "" if value is None else round(value, digits)
