"""A task's ``tests`` list: tests of the registered tools, in order.

An entry is a preset name of any tool ("quick-cpu", "fio-quick-randread",
"iperf3-quick", "http-quick-c16"); a sysbench test mapping (see
sysbench/presets.py); or another tool's mapping under its name:
{"fio": {"rw": "randread", "bs": "4k", "runtime": 10}},
{"iperf3": {"streams": 4, "reverse": true}},
{"http": {"connections": 64, "duration": 10}}, each optionally from a
preset with overrides: {"fio": {"preset": "fio-quick-randread",
"runtime": 30}}.
"""

from rally_container_bench.workloads import tools


class TestsError(ValueError):
    """The tests list is invalid; the text names the entry and why."""


def names():
    """Every preset name, tool by tool."""
    return tuple(name for tool in tools.all_tools() for name in tool.presets)


def resolve(entry):
    if isinstance(entry, str):
        owner = tools.preset_owner(entry)
        if owner is not None:
            return owner.preset(entry)
    keyed = [t for t in tools.all_tools()
             if t.keyed and isinstance(entry, dict) and t.name in entry]
    if not keyed:
        return tools.get("sysbench").from_dict(entry)
    tool = keyed[0]
    if len(entry) != 1:
        raise TestsError("a %s entry is {\"%s\": {...}} with nothing "
                         "beside it" % (tool.name, tool.name))
    fields = entry[tool.name]
    if isinstance(fields, dict) and "preset" in fields:
        fields = dict(fields)
        fields = dict(tool.preset(fields.pop("preset")).to_dict(), **fields)
    return tool.from_dict(fields)


def resolve_all(entries):
    """The ``tests`` list -> specs (each with .tool and .label)."""
    if isinstance(entries, (str, dict)):
        entries = [entries]
    if not isinstance(entries, (list, tuple)) or not entries:
        raise TestsError("tests must be a non-empty list of preset names "
                         "(%s) or test mappings" % ", ".join(names()))
    specs = []
    for index, entry in enumerate(entries):
        try:
            specs.append(resolve(entry))
        except (TestsError,) + tools.spec_errors() as e:
            raise TestsError("tests[%d]: %s" % (index, e))
    labels = ["%s %s" % (s.tool, s.label) for s in specs
              if tools.of(s).keyed]
    repeated = sorted({label for label in labels if labels.count(label) > 1})
    if repeated:
        raise TestsError("tests of one tool must differ in their parameters "
                         "or name: %s twice" % ", ".join(repeated))
    return specs
