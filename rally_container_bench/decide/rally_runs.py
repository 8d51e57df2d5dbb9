"""Rally tasks run from the outside: one round, its progress, its reports.

``rally task start`` runs as a child process (its output in the run's
log); the progress follows that log: one updating line on a terminal,
plain lines in a file. No Rally import: the Rally CLI is the interface.
"""

import json
import os
import re
import signal
import statistics
import subprocess
import sys
import time

from rally_container_bench.core import processes
from rally_container_bench.decide import plan as planner
from rally_container_bench.engines.native import instance as native

# harness_yields' two kinds: with LOCAL, the native executor starts each
# command in a session of its own (native.TWINS_APART)
LOCAL, CLOUD = "local", "cloud"
AUTOGROUP_ENABLED = "/proc/sys/kernel/sched_autogroup_enabled"

_STARTED = re.compile(r"([0-9a-f-]{36}): started")
_ITER_END = re.compile(r"\| ITER: \d+ END")
_WORKLOAD_DONE = re.compile(r"completed (\d+) of (\d+) in general")
_BUSY = re.compile(r"host busy: waiting for quiet on (\S+)")
_MEASURING = re.compile(r"\| ITER: \d+ (?:START|END)|host busy: waited ")


class Progress:
    """Where the run is: one updating line on a terminal, else lines."""

    def __init__(self, budget, stream=sys.stdout):
        self.budget = budget
        self.stream = stream
        self.tty = stream.isatty()
        self.started = time.monotonic()
        self.state = {}
        self._last = None

    def elapsed(self):
        return time.monotonic() - self.started

    def update(self, **state):
        self.state.update(state)
        s = self.state
        parts = ["%s | iterations %d of %d" % (
            s.get("where", "-"), s.get("done", 0), s.get("planned", 0))]
        # a benchmark's one task has no rounds and no cells to decide
        if s.get("round") is not None:
            parts.insert(0, "round %s of at most %s" % (s["round"],
                                                        s.get("looks")))
        if s.get("cells"):
            parts.append("cells decided %d of %d"
                         % (s.get("decided", 0), s["cells"]))
        where = " | ".join(parts)
        if s.get("busy"):
            where += " | host busy: waiting (%s)" % s["busy"]
        # a file gets a line when the run moves on, not every second
        key = where if not self.tty else where + minutes(self.left())
        if key == self._last:
            return
        self._last = key
        line = "%s | budget left %s" % (where, minutes(self.left()))
        if self.tty:
            self.stream.write("\r\033[K" + line)
        else:
            self.stream.write(line + "\n")
        self.stream.flush()

    def left(self):
        return self.budget - self.elapsed()

    def say(self, text):
        if self.tty and self._last:
            self.stream.write("\n")
        self._last = None
        self.stream.write(text + "\n")
        self.stream.flush()


def minutes(seconds):
    seconds = max(0, int(seconds))
    return "%d:%02d" % (seconds // 60, seconds % 60)


def run_round(rally, task, args, env, log_path, progress, plan, tags=None,
              interrupt=None, harness_yields=False, watch=None):
    """Run one round's task.

    Returns its uuid (None: it did not start), Rally's exit status, and
    whether the budget, spent during the round, ended it after a workload
    (BudgetStop). tags: the task's Rally tags (default rcbench-decide).
    harness_yields: Rally runs in a session of its own at the lowest
    priority (yield_cpu); interrupt (Interrupt) then passes Ctrl-C on.
    LOCAL (its twins are Rally's children, each then started in a session
    of its own: TWINS_APART) or CLOUD (they run on the compute hosts).
    watch(proc, uuid): called once Rally started (uuid None) and once its
    task's uuid is known (decide/campaign.py records both).
    """
    planned = sum(cell[3] for cell in plan)
    progress.update(done=0, planned=planned, where=_where(plan, 0))
    offset = os.path.getsize(log_path) if os.path.exists(log_path) else 0
    environ = dict(os.environ, COLUMNS="200")
    if harness_yields == LOCAL:
        environ[native.TWINS_APART] = "1"
    with open(log_path, "a") as log:
        proc = subprocess.Popen(
            rally + ["task", "start", task, "--task-args", json.dumps(args),
                     "--env", env] + [word for tag in (tags or [
                         "rcbench-decide"]) for word in ("--tag", tag)],
            stdout=log, stderr=subprocess.STDOUT, env=environ,
            start_new_session=bool(harness_yields))
    if watch is not None:
        watch(proc, None)
    if harness_yields:
        yield_cpu(proc.pid, log_path, process_too=harness_yields == CLOUD)
        if interrupt is not None:
            interrupt.forward_to = proc
    try:
        return _follow(proc, rally, log_path, offset, progress, plan, watch)
    finally:
        if interrupt is not None:
            interrupt.forward_to = None


def yield_cpu(pid, log_path, process_too=True):
    """The lowest CPU priority for process pid's session (and for pid).

    Where the kernel groups processes by session (autogroup, Debian's
    default) a process's nice only weighs within its session, so the
    session's autogroup gets nice 19. For a Rally host that is one of the
    compute hosts (an all-in-one or the test cloud), or for local
    engines: Rally's own CPU (its runner, the SSH or exec clients, the
    reports) then comes out of idle time rather than out of a test or its
    twin, which run in sessions (or containers' cgroups) of their own.
    process_too: pid itself at nice 19 as well, which its children
    inherit: not for local runs, whose twins are its children. Raising a
    nice needs no privilege.
    """
    done = []
    if process_too:
        try:
            os.setpriority(os.PRIO_PROCESS, pid, 19)
            done.append("nice 19")
        except OSError:
            pass
    try:
        with open("/proc/%d/autogroup" % pid, "w") as f:
            f.write("19")
        done.append("its session's autogroup nice 19")
    except OSError:
        pass
    with open(log_path, "a") as log:
        log.write("rcbench: harness_yields: Rally (pid %d) at %s\n"
                  % (pid, " and ".join(done) or "its priority (could "
                     "not lower it)"))


def autogroup_enabled():
    """Does the kernel group processes by session (autogroup)?"""
    try:
        with open(AUTOGROUP_ENABLED) as f:
            return f.read().strip() == "1"
    except OSError:
        return False


def yield_kind(args):
    """How Rally yields the CPU for these task args (harness_yields).

    A cloud task with compute_hosts runs every twin there, over SSH: Rally
    and its children may all yield. Else the twins are Rally's children:
    each goes into a session of its own, and only Rally's session yields,
    through the kernel's autogroup; without autogroup a nice would be
    inherited by the twins, so the setting is refused.
    """
    if args.get("compute_hosts") is not None:
        return CLOUD
    if not autogroup_enabled():
        raise planner.DecideError(
            "harness_yields without compute_hosts needs the kernel's "
            "autogroup (%s is not 1): the native twins are Rally's "
            "children, and a lower priority of Rally alone would be "
            "theirs too; set it to 1 (sysctl kernel.sched_autogroup_"
            "enabled=1) or leave harness_yields out" % AUTOGROUP_ENABLED)
    return LOCAL


def _follow(proc, rally, log_path, offset, progress, plan, watch=None):
    uuid, done = None, 0
    stop = BudgetStop(rally, progress, log_path)
    pace = Pace(plan)
    while True:
        try:
            finished = proc.wait(timeout=1) is not None
        except subprocess.TimeoutExpired:
            finished = False
        with open(log_path, errors="replace") as log:
            log.seek(offset)
            text = log.read()
            offset = log.tell()
        if uuid is None:
            uuid = next(iter(_STARTED.findall(text)), None)
            if uuid is not None and watch is not None:
                watch(proc, uuid)
        done += len(_ITER_END.findall(text))
        workloads = _WORKLOAD_DONE.findall(text)
        where = int(workloads[-1][0]) if workloads else None
        progress.update(done=done, busy=_busy(text, progress.state.get(
            "busy")), **({"where": _where(plan, where)}
                         if where is not None else {}))
        if finished:
            break
        pace.at(where)
        stop.check(uuid, pace)
    return uuid, proc.returncode, stop.sent


class Pace:
    """How long the round's workloads take, from those that ended.

    Seconds per wave (a workload's iterations over its concurrency), by
    platform; a platform not seen yet in the round takes the median of
    those seen. Nothing is expected before a workload ended.
    """

    def __init__(self, plan, clock=time.monotonic):
        self.plan, self.clock = plan, clock
        self.index, self.since = 0, clock()
        self.per_wave = {}

    def at(self, index):
        """The round runs workload index now: the ones before it ended."""
        if index is None or index <= self.index:
            return
        now = self.clock()
        # several ended within one poll: none of them is timed
        if index == self.index + 1 and self.index < len(self.plan):
            cell = self.plan[self.index]
            self.per_wave.setdefault(cell[0], []).append(
                (now - self.since) / waves(cell))
        self.index, self.since = index, now

    def expected_s(self, cell):
        seen = self.per_wave.get(cell[0])
        if seen:
            return waves(cell) * statistics.mean(seen)
        every = [rate for rates in self.per_wave.values() for rate in rates]
        return waves(cell) * statistics.median_high(every) if every else None

    def next_ends_in(self):
        """(the next workload, seconds until it would end) or None.

        None: no next workload, or nothing to expect it from yet.
        """
        if self.index + 1 >= len(self.plan):
            return None
        running, following = self.plan[self.index:self.index + 2]
        now_s, next_s = self.expected_s(running), self.expected_s(following)
        if now_s is None or next_s is None:
            return None
        return following, max(0.0, now_s - (self.clock() - self.since)) \
            + next_s


def waves(cell):
    """A plan entry's waves: its iterations over its concurrency."""
    return max(1, -(-cell[3] // max(1, cell[1])))


class BudgetStop:
    """A round still running when the budget is spent ends softly.

    ``rally task abort --soft``: the workload running goes on to its end
    (its iterations are not cut, so none fails for the budget's sake), no
    other starts, and the reports of what finished are written. Round 1
    has no estimate before it: beside other work its re-measures and
    waits for quiet took it far past a budget (the quickstart under two
    CPU hogs, 2026-11-28). So it also ends before a workload that would
    end past the budget at the round's own pace (Pace): on a fresh
    machine whose CPUs were 5-8 % stolen, round 1 went on to a workload
    that started with 32 s left and took 50 (2026-12-08: 528 s of a
    468 s budget, command 1 10:57 of its 10 minutes).
    """

    # Rally refuses an abort while it validates the task: tried again.
    RETRY_S = 5.0

    def __init__(self, rally, progress, log_path):
        self.rally, self.progress, self.log_path = rally, progress, log_path
        self.sent = False
        self.tried = None

    def check(self, uuid, pace=None):
        if self.sent or uuid is None:
            return
        left = self.progress.left()
        ahead = pace.next_ends_in() if pace is not None else None
        if left > 0 and (ahead is None or ahead[1] <= left):
            return
        now = time.monotonic()
        if self.tried is not None and now - self.tried < self.RETRY_S:
            return
        if self.tried is None and left <= 0:
            self.progress.say(
                "budget of %s spent: the round ends after the workload it "
                "runs (rally task abort --soft %s)"
                % (minutes(self.progress.budget), uuid))
        elif self.tried is None:
            self.progress.say(
                "budget: %s left, and %s at %d would end in %s at this "
                "round's pace: the round ends after the workload it runs "
                "(rally task abort --soft %s)"
                % (minutes(left), ahead[0][0], ahead[0][1],
                   minutes(ahead[1]), uuid))
        self.tried = now
        with open(self.log_path, "a") as log:
            self.sent = 0 == subprocess.call(
                self.rally + ["task", "abort", "--uuid", uuid, "--soft"],
                stdout=log, stderr=subprocess.STDOUT)


def _busy(text, before):
    """The host a run waits on for quiet, from the log's new text.

    Shown until the wait ends (or an iteration starts or ends).
    """
    busy = before
    for line in text.splitlines():
        found = _BUSY.search(line)
        if found:
            busy = found.group(1)
        elif _MEASURING.search(line):
            busy = None
    return busy


def _where(plan, index):
    if index >= len(plan):
        return "writing results"
    platform, step = plan[index][:2]
    return "%s at %d" % (platform, step)


def errors(log_path, offset):
    """The log's ERROR lines since offset: why a round did not run."""
    with open(log_path, errors="replace") as log:
        log.seek(offset)
        lines = [line.strip() for line in log if " ERROR " in line
                 or "doesn't pass" in line]
    return " | ".join(lines[-3:]) or "see %s" % log_path


class Interrupt:
    """Ctrl-C during a round: no further round starts.

    Rally (in the same process group, or sent it: forward_to) aborts its
    task; the reports of what finished are still written. A second Ctrl-C
    stops at once.
    """

    def __init__(self):
        self.seen = False
        # Rally in a session of its own (harness_yields): no terminal's
        # Ctrl-C reaches it but the one passed on
        self.forward_to = None

    def __enter__(self):
        self._previous = signal.signal(signal.SIGINT, self._on_signal)
        return self

    def _on_signal(self, signum, frame):
        if self.forward_to is not None:
            processes.signal_child(self.forward_to, signal.SIGINT,
                                   group=True)
        if self.seen:
            raise KeyboardInterrupt
        self.seen = True

    def __exit__(self, *exc):
        signal.signal(signal.SIGINT, self._previous)
