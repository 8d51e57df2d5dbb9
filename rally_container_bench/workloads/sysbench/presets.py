"""Named sysbench tests: KEK's 2015 parameters and quick ones.

``kek2015-*`` are the parameters of the KEK study (HEPiX Fall 2015,
sysbench 0.4.12, one thread). The slides give no request limit for cpu,
so kek2015-cpu uses 0.4.12's default (--max-requests=10000) written out:
fixed work, compared by total_time_s on either version. Memory and fileio
run for at most 300 s (``max-time=300``) as on the slides.

``quick-*`` keep the shape at a size that finishes in seconds on a
2-core machine (and in tens of seconds in a TCG-emulated guest).
"""

from rally_container_bench.workloads.sysbench import spec as spec_lib

_KEK_MEMORY = dict(test="memory", memory_block_size="1K",
                   memory_total_size="100G", time=300, threads=1)
_KEK_FILEIO = dict(test="fileio", file_block_size="4K", file_total_size="8G",
                   file_num=128, file_extra_flags="direct", time=300,
                   threads=1)
_QUICK_MEMORY = dict(test="memory", memory_block_size="1K",
                     memory_total_size="1G", threads=1)
_QUICK_FILEIO = dict(test="fileio", file_block_size="4K",
                     file_total_size="64M", file_num=8,
                     file_extra_flags="direct", threads=1)

_PRESETS = {
    "kek2015-cpu": dict(test="cpu", cpu_max_prime=20000, events=10000,
                        threads=1),
    "kek2015-memory-read": dict(_KEK_MEMORY, memory_oper="read"),
    "kek2015-memory-write": dict(_KEK_MEMORY, memory_oper="write"),
    "kek2015-fileio-seqrd": dict(_KEK_FILEIO, file_test_mode="seqrd"),
    "kek2015-fileio-rndrd": dict(_KEK_FILEIO, file_test_mode="rndrd"),
    "kek2015-fileio-seqwr": dict(_KEK_FILEIO, file_test_mode="seqwr"),
    "kek2015-fileio-rndwr": dict(_KEK_FILEIO, file_test_mode="rndwr"),
    "quick-cpu": dict(test="cpu", cpu_max_prime=20000, events=1000,
                      threads=1),
    "quick-memory-read": dict(_QUICK_MEMORY, memory_oper="read"),
    "quick-memory-write": dict(_QUICK_MEMORY, memory_oper="write"),
    # Sequential modes: one pass over the files (no time, no events).
    "quick-fileio-seqrd": dict(_QUICK_FILEIO, file_test_mode="seqrd"),
    "quick-fileio-seqwr": dict(_QUICK_FILEIO, file_test_mode="seqwr"),
    "quick-fileio-rndrd": dict(_QUICK_FILEIO, file_test_mode="rndrd",
                               time=2),
    "quick-fileio-rndwr": dict(_QUICK_FILEIO, file_test_mode="rndwr",
                               time=2),
}

NAMES = tuple(sorted(_PRESETS))
KEK2015 = tuple(name for name in NAMES if name.startswith("kek2015-"))
QUICK = tuple(name for name in NAMES if name.startswith("quick-"))


def get(name):
    """The TestSpec of a preset name."""
    try:
        return spec_lib.from_dict(_PRESETS[name])
    except KeyError:
        raise spec_lib.SpecError("unknown sysbench preset %r; known: %s"
                                 % (name, ", ".join(NAMES)))


def resolve(entry):
    """A task-file entry -> TestSpec.

    An entry is a preset name ("kek2015-cpu"), a full test mapping
    ({"test": "cpu", "cpu_max_prime": 20000, "time": 10}), or a preset with
    overrides ({"preset": "kek2015-memory-read", "time": 30}).
    """
    if isinstance(entry, str):
        return get(entry)
    if isinstance(entry, dict) and "preset" in entry:
        overrides = dict(entry)
        name = overrides.pop("preset")
        if not isinstance(name, str):
            raise spec_lib.SpecError("preset must be a name, not %r"
                                     % (name,))
        base = get(name).to_dict()
        base.update(overrides)
        return spec_lib.from_dict(base)
    return spec_lib.from_dict(entry)


def resolve_all(entries):
    """A task file's ``tests`` list -> TestSpecs; errors name the entry."""
    if isinstance(entries, (str, dict)):
        entries = [entries]
    if not isinstance(entries, (list, tuple)) or not entries:
        raise spec_lib.SpecError("tests must be a non-empty list of preset "
                                 "names or test mappings")
    specs = []
    for index, entry in enumerate(entries):
        try:
            specs.append(resolve(entry))
        except spec_lib.SpecError as e:
            raise spec_lib.SpecError("tests[%d]: %s" % (index, e))
    return specs
