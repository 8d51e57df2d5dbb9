"""What every workload parser returns, and how it travels to the report.

A parser (sysbench, fio, iperf3, http) gives each metric its value, unit
and direction (Metric). A scenario turns a test's metrics into Records
(metric name, value, unit, direction, metadata) and writes them twice
into Rally's results: as the "<tool> <test>" StatsTable Rally's own report
charts ("name (unit)" rows), and as one "metric records" Table per
iteration, which the comparison report reads back as they were written.
Pure: no I/O.
"""

import dataclasses
import json
import re


class ParseError(ValueError):
    """The text is no result the parser understands; ``raw`` holds it."""

    def __init__(self, message, raw):
        super().__init__(message)
        self.raw = raw


@dataclasses.dataclass(frozen=True)
class Metric:
    value: float
    unit: str
    higher_is_better: bool = True


def measured(table, name, value):
    """Metric of ``name`` from a parser's {name: (unit, higher_is_better)}."""
    unit, higher = table[name]
    return Metric(value, unit, higher)


@dataclasses.dataclass(frozen=True)
class Record:
    """One measurement of an iteration, as the report reads it.

    metric: "<tool>.<test>.<name>" (sysbench.cpu.events_per_s) or
    "footprint.<name>"; metadata: what else is known of it (tool, test).
    """

    metric: str
    value: float
    unit: str
    higher_is_better: bool
    metadata: dict = dataclasses.field(default_factory=dict, compare=False)

    @property
    def short_name(self):
        """The name under its table's title: events_per_s, instance@10."""
        return self.metric.rsplit(".", 1)[-1]


RECORDS_TITLE = "metric records"
_COLUMNS = ["metric", "value", "unit", "direction", "metadata"]
_DIRECTIONS = {True: "higher is better", False: "lower is better"}


def records_of(tool, test, found, **metadata):
    """[Record] of one test's {name: Metric}, sorted by name."""
    return [Record("%s.%s.%s" % (tool, test, name), m.value, m.unit,
                   m.higher_is_better, dict(metadata, tool=tool, test=test))
            for name, m in sorted(found.items())]


def stats_rows(records):
    """The rows of a StatsTable: ["name (unit)", value]."""
    return [["%s (%s)" % (r.short_name, r.unit), r.value] for r in records]


def records_table(records):
    """Rally's complete Table output of an iteration's records."""
    return {"title": RECORDS_TITLE, "chart_plugin": "Table",
            "description": "Every measurement of this iteration, as the "
                           "comparison report reads it",
            "data": {"cols": list(_COLUMNS), "rows": [
                [r.metric, r.value, r.unit, _DIRECTIONS[r.higher_is_better],
                 json.dumps(r.metadata, sort_keys=True)] for r in records]}}


def records_from(table):
    """[Record] of a records_table read back from Rally's results."""
    columns = table["data"]["cols"]
    directions = {text: higher for higher, text in _DIRECTIONS.items()}
    found = []
    for values in table["data"]["rows"]:
        row = dict(zip(columns, values))
        if row["value"] is None:
            continue
        found.append(Record(row["metric"], float(row["value"]), row["unit"],
                            directions[row["direction"]],
                            json.loads(row.get("metadata") or "{}")))
    return found


NAME_PATTERN = re.compile(r"^[a-z0-9][a-z0-9_-]*$")


def check_name(name, error):
    """A test's optional name: lowercase letters, digits, - and _."""
    if name is not None and not NAME_PATTERN.match(str(name)):
        raise error("name must be lowercase letters, digits, - and _, "
                    "not %r" % (name,))


def spec_from_dict(spec_class, fields, error, what, required=()):
    """spec_class(**fields), naming unknown and missing fields."""
    if not isinstance(fields, dict):
        raise error("%s is a mapping, not %r" % (what, fields))
    known = {f.name for f in dataclasses.fields(spec_class)}
    unknown = sorted(set(fields) - known)
    if unknown:
        raise error("unknown parameter(s) of %s: %s; known: %s"
                    % (what, ", ".join(unknown), ", ".join(sorted(known))))
    missing = [name for name in required if name not in fields]
    if missing:
        raise error("%s needs %s" % (what, ", ".join(missing)))
    return spec_class(**fields)
