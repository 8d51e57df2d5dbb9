"""Named fio jobs: quick ones matching the quick sysbench fileio presets.

64 MiB file, O_DIRECT, one job, queue depth 1 (psync): the same shape as
quick-fileio-*, so fio and sysbench fileio can be put side by side.
Sequential jobs move the file once in 1 MiB blocks; random ones run 2 s
in 4 KiB blocks.
"""

from rally_container_bench.workloads.fio import spec as spec_lib

_QUICK = dict(size="64M", direct=True, ioengine="psync", iodepth=1)
_PRESETS = {
    "fio-quick-seqread": dict(_QUICK, rw="read", bs="1M"),
    "fio-quick-seqwrite": dict(_QUICK, rw="write", bs="1M"),
    "fio-quick-randread": dict(_QUICK, rw="randread", bs="4k", runtime=2),
    "fio-quick-randwrite": dict(_QUICK, rw="randwrite", bs="4k", runtime=2),
    "fio-quick-randrw": dict(_QUICK, rw="randrw", bs="4k", runtime=2,
                             rwmixread=70),
}
NAMES = tuple(sorted(_PRESETS))


def get(name):
    try:
        return spec_lib.from_dict(_PRESETS[name])
    except KeyError:
        raise spec_lib.FioSpecError("unknown fio preset %r; known: %s"
                                    % (name, ", ".join(NAMES)))
