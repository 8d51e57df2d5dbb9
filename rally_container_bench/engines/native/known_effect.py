"""A known effect: a busy neighbour of lower weight on the test's CPU.

The instrument check's known-effect cell (report/instrument.py) runs
native tests with a busy loop beside them on their CPU, at a nice level
of its own. The kernel's fair scheduler (CFS) shares a CPU between
runnable tasks of one group by their weights (kernel/sched/core.c,
sched_prio_to_weight: 1024 at nice 0, 110 at nice 10), so a CPU-bound
test keeps 1024 / (1024 + w) of its CPU and loses the rest: 9.70 % at
nice 10, known before it is measured (benchmarks/known_effect.py:
-9.5 to -9.8 % on both CPUs of the CI host, for cpu and memory read).
A CPU quota (cgroup cpu.max) was tried first: at a 10 ms period its
throttling cost 1.2-2 % beyond its share, at 100 ms a half-second run
lost 1.3-2.8 % less (a fresh period's full quota).

The loop runs in the test's session and CPU (the wrapper execs the
test; the loop is its sibling) and ends as soon as the test's process
is gone, also when the test is killed.
"""

# kernel/sched/core.c sched_prio_to_weight, nice 0 to 19
_WEIGHTS = (1024, 820, 655, 526, 423, 335, 272, 215, 172, 137,
            110, 87, 70, 56, 45, 36, 29, 23, 18, 15)
DEFAULT_NICE = 10
# How well the effect is known: measured within +-0.3 % of its share
# (memory read loses 0.2 % less than cpu); a CI narrower than this is
# said to hold the effect when it comes within this much of it.
KNOWN_WITHIN = 0.005
# the loop: busy while the test (the wrapper's pid, exec'd) lives
_WRAPPER = ('nice -n "$0" sh -c \'while kill -0 "$0" 2>/dev/null; do :; '
            'done\' "$$" </dev/null >/dev/null 2>&1 & exec "$@"')


def share(nice):
    """The share of one CPU a busy neighbour at nice takes from nice 0."""
    if not isinstance(nice, int) or isinstance(nice, bool) \
            or not 1 <= nice < len(_WEIGHTS):
        raise ValueError("the neighbour's nice is 1 to 19, not %r"
                         % (nice,))
    return _WEIGHTS[nice] / (_WEIGHTS[0] + _WEIGHTS[nice])


class Neighbour:
    """A busy loop at ``nice`` beside each command (wrap) on its CPU."""

    def __init__(self, nice=DEFAULT_NICE):
        self.withheld = share(nice)
        self.nice = nice

    def wrap(self, argv):
        """argv with the neighbour started first, in its session and CPU.

        No value is interpreted by the shell: nice and argv are its
        arguments.
        """
        return ["sh", "-c", _WRAPPER, str(self.nice)] + list(argv)

    def describe(self):
        return ("a busy loop at nice %d on the test's CPU: the kernel's "
                "CFS weights give it %d / (%d + %d) = %.2f %% of that CPU"
                % (self.nice, _WEIGHTS[self.nice], _WEIGHTS[0],
                   _WEIGHTS[self.nice], 100 * self.withheld))
