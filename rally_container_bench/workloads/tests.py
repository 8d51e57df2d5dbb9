"""A task's ``tests`` list: sysbench tests and fio jobs, in the given order.

An entry is a sysbench preset or mapping (see sysbench/presets.py), a fio
preset ("fio-quick-randread"), or a fio job mapping under the key "fio":
{"fio": {"rw": "randread", "bs": "4k", "runtime": 10}}, optionally from a
preset with overrides: {"fio": {"preset": "fio-quick-randread",
"runtime": 30}}.
"""

from rally_container_bench.fio import presets as fio_presets
from rally_container_bench.fio import spec as fio_spec
from rally_container_bench.sysbench import presets
from rally_container_bench.sysbench import spec as spec_lib

FIO_PREFIX = "fio-"


class TestsError(ValueError):
    """The tests list is invalid; the text names the entry and why."""


def is_fio(spec):
    return isinstance(spec, fio_spec.FioSpec)


def names():
    """Every preset name, sysbench's and fio's."""
    return presets.NAMES + fio_presets.NAMES


def resolve(entry):
    if isinstance(entry, str) and entry.startswith(FIO_PREFIX):
        return fio_presets.get(entry)
    if isinstance(entry, dict) and "fio" in entry:
        if len(entry) != 1:
            raise fio_spec.FioSpecError(
                "a fio entry is {\"fio\": {job}} with nothing beside it")
        job = entry["fio"]
        if isinstance(job, dict) and "preset" in job:
            job = dict(job)
            job = dict(fio_presets.get(job.pop("preset")).to_dict(), **job)
        return fio_spec.from_dict(job)
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
        except (spec_lib.SpecError, fio_spec.FioSpecError) as e:
            raise TestsError("tests[%d]: %s" % (index, e))
    labels = [s.label for s in specs if is_fio(s)]
    repeated = sorted({label for label in labels if labels.count(label) > 1})
    if repeated:
        raise TestsError("fio jobs must differ in rw or name: %s twice"
                         % ", ".join(repeated))
    return specs
