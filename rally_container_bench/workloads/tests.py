"""A task's ``tests`` list: sysbench tests and fio jobs, in the given order.

An entry is a sysbench preset or mapping (see sysbench/presets.py), a fio
preset ("fio-quick-randread"), or a fio job mapping under the key "fio":
{"fio": {"rw": "randread", "bs": "4k", "runtime": 10}}, optionally from a
preset with overrides: {"fio": {"preset": "fio-quick-randread",
"runtime": 30}}.
Network tests between the Rally host and the instance the same way:
"iperf3-quick" or {"iperf3": {"streams": 4, "reverse": true}}, and
"http-quick-c16" or {"http": {"connections": 64, "duration": 10}}.
"""

from rally_container_bench.fio import presets as fio_presets
from rally_container_bench.fio import spec as fio_spec
from rally_container_bench.netload import http
from rally_container_bench.netload import iperf3
from rally_container_bench.netload import presets as net_presets
from rally_container_bench.sysbench import presets
from rally_container_bench.sysbench import spec as spec_lib

FIO_PREFIX = "fio-"
# Mapping key -> (the tool's spec module, its presets' get).
_KEYED = {"fio": (fio_spec, fio_presets.get),
          "iperf3": (iperf3, net_presets.get),
          "http": (http, net_presets.get)}
NETWORK_TOOLS = ("iperf3", "http")
_SPEC_ERRORS = (spec_lib.SpecError, fio_spec.FioSpecError,
                iperf3.Iperf3SpecError, http.HttpSpecError,
                net_presets.PresetError)


class TestsError(ValueError):
    """The tests list is invalid; the text names the entry and why."""


def is_fio(spec):
    return spec.tool == "fio"


def is_network(spec):
    """iperf3 and http: the Rally host must reach into the instance."""
    return spec.tool in NETWORK_TOOLS


def names():
    """Every preset name: sysbench's, fio's, iperf3's and http's."""
    return presets.NAMES + fio_presets.NAMES + net_presets.NAMES


def resolve(entry):
    if isinstance(entry, str) and entry.startswith(FIO_PREFIX):
        return fio_presets.get(entry)
    if isinstance(entry, str) and entry.startswith(net_presets.PREFIXES):
        return net_presets.get(entry)
    keyed = [key for key in _KEYED
             if isinstance(entry, dict) and key in entry]
    if keyed:
        key = keyed[0]
        module, preset = _KEYED[key]
        if len(entry) != 1:
            raise TestsError("a %s entry is {\"%s\": {...}} with nothing "
                             "beside it" % (key, key))
        fields = entry[key]
        if isinstance(fields, dict) and "preset" in fields:
            fields = dict(fields)
            fields = dict(preset(fields.pop("preset")).to_dict(), **fields)
        return module.from_dict(fields)
    return presets.resolve(entry)


def resolve_all(entries):
    """The ``tests`` list -> specs (sysbench TestSpec or FioSpec)."""
    if isinstance(entries, (str, dict)):
        entries = [entries]
    if not isinstance(entries, (list, tuple)) or not entries:
        raise TestsError("tests must be a non-empty list of preset names "
                         "(%s) or test mappings" % ", ".join(names()))
    specs = []
    for index, entry in enumerate(entries):
        try:
            specs.append(resolve(entry))
        except (TestsError,) + _SPEC_ERRORS as e:
            raise TestsError("tests[%d]: %s" % (index, e))
    labels = ["%s %s" % (s.tool, s.label) for s in specs
              if s.tool != "sysbench"]
    repeated = sorted({label for label in labels if labels.count(label) > 1})
    if repeated:
        raise TestsError("tests of one tool must differ in their parameters "
                         "or name: %s twice" % ", ".join(repeated))
    return specs
