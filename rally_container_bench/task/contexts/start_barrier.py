"""rcbench_start_barrier: the N instances of a step start each test together.

Add it to a workload (``contexts: {rcbench_start_barrier: {}}``) of a
constant runner: iterations run in waves of ``concurrency``, and every
test of a wave starts when all of its instances are ready for it (booted,
done with the previous test) or gone (failed). Without it, the first
instances of a step test while the last still boot, and the last test
alone: concurrency N then measures orchestration, not N instances working
at once. Each wait is bounded by ``timeout`` seconds (the test then starts
anyway, and the iteration's "start barrier" table says so) and ends at
once on Ctrl-C or ``rally task abort``.
"""

from rally.common import db
from rally.task import context

from rally_container_bench.validity import barrier

# Points per iteration a barrier has room for: 3 per attempt of a test
# (its run, its native twin's, the wave's re-measure decision), so e.g.
# KEK's 7 tests with 2 re-measures take 64.
MAX_POINTS = 1024


class StartBarrierError(Exception):
    pass


def runner_of(workload_uuid):
    """(type, config) of a workload's runner, from Rally's DB."""
    workload = db.workload_get(workload_uuid)
    if workload is None:
        raise StartBarrierError("Rally's DB has no workload %s"
                                % workload_uuid)
    return workload["runner_type"], workload["runner"]


@context.configure(name="rcbench_start_barrier", platform="default",
                   order=110)
class StartBarrier(context.Context):
    """Synchronised start: a wave's instances run each test together."""

    CONFIG_SCHEMA = {
        "type": "object", "additionalProperties": False,
        "properties": {"timeout": {"type": "number", "minimum": 1}}}
    DEFAULT_CONFIG = {"timeout": 600}

    def setup(self):
        kind, runner = runner_of(self.context["owner_id"])
        if kind != "constant":
            raise StartBarrierError(
                "rcbench_start_barrier needs the constant runner (a fixed "
                "times and concurrency), not %r" % kind)
        barrier.arm(barrier.StartBarrier(
            int(runner.get("times", 1)), int(runner.get("concurrency", 1)),
            MAX_POINTS, self.config["timeout"]))

    def cleanup(self):
        barrier.disarm()
