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

The cell pairs in sequence even where the others pair at once
(validity.cpu_pairs): at once its CPU holds two runnable tasks and the
twin's one, so the harness's own unpinned wakeups go to the twin's CPU,
and the effect read -5.7 % instead of -9.8 % in sequence (10 pairs each,
2026-12-04; the same commands without Rally, -8.7 to -9.3 %).

The loop runs in the test's session and CPU (the wrapper execs the
test; the loop is its child) and ends as soon as the test's process is
gone (reaped), also when the test is killed.
"""

# kernel/sched/core.c sched_prio_to_weight, nice 0 to 19
_WEIGHTS = (1024, 820, 655, 526, 423, 335, 272, 215, 172, 137,
            110, 87, 70, 56, 45, 36, 29, 23, 18, 15)
DEFAULT_NICE = 10
# How well the effect is known: measured within +-0.3 % of its share
# (memory read loses 0.2 % less than cpu); a CI narrower than this is
# said to hold the effect when it comes within this much of it.
KNOWN_WITHIN = 0.005
# The loop: busy while the test lives, i.e. while the wrapper's pid (the
# test, exec'd) is there, with the start time it had (read every 20000
# turns, not each: reading the test's /proc/PID/stat in a tight loop
# doubled the pairs' spread; a pid handed out again has another start,
# /proc/PID/stat's 22nd field, the 20th after the comm).
_LOOP = ('start=; n=0; while [ -e /proc/"$0" ]; do n=$((n + 1)); '
         '[ "$n" -lt 20000 ] && [ -n "$start" ] && continue; n=0; '
         'read -r s < /proc/"$0"/stat || exit 0; s=${s##*) }; set -- $s; '
         '[ -n "$start" ] || start=${20}; [ "${20}" = "$start" ] || exit 0; '
         'done')
_WRAPPER = ('nice -n "$0" sh -c \'%s\' "$$" </dev/null >/dev/null 2>&1 & '
            'exec "$@"' % _LOOP)


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
