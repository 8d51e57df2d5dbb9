"""Ctrl-C stops a task the way ``rally task abort`` does: nothing is lost.

Rally 5.1 lets the first SIGINT raise KeyboardInterrupt in every process:
the iterations that had finished are never written to its DB, and the
task stays "running" for ever. This context, a default of every scenario
of this package, turns the first Ctrl-C during a workload into an abort
of the task instead: no new iteration starts, running ones end (their
instances deleted; a native sysbench gets the signal and that iteration
fails), finished ones are stored, the task ends "aborted". A second
Ctrl-C interrupts at once, as Rally does.

SIGTERM (``kill``, ``timeout``, a CI job's time limit) is handled the same
way: by default it would end Rally at once, instances and all.

Either way, and on ``rally task abort`` from another shell, the waits of
the running iterations (build, network, the start barrier) end within a
fraction of a second (rally_container_bench.core.abort): an iteration does not
wait for a guest until ssh_timeout first.
"""

import gc
import os
import signal
import sys
import threading
import time

from rally.common import logging
from rally.common import objects
from rally import consts
from rally.task import context
from rally.task import runner

from rally_container_bench.core import abort
from rally_container_bench import opts
from rally_container_bench.validity import foreign_load
from rally_container_bench.validity import harness_cpu

LOG = logging.getLogger(__name__)

SIGNALS = {signal.SIGINT: "Ctrl-C", signal.SIGTERM: "SIGTERM"}
# What the second signal does: Python's own default for each.
_SECOND = {signal.SIGINT: signal.default_int_handler,
           signal.SIGTERM: signal.SIG_DFL}
_ABORT_ATTEMPTS = 20
_RETRY_DELAY = 0.5
# How often the task's status is read for an abort from elsewhere.
_STATUS_POLL = 1.0
_NOTHING_TO_ABORT = (consts.TaskStatus.ABORTING,
                     consts.TaskStatus.SOFT_ABORTING,
                     consts.TaskStatus.ABORTED,
                     consts.TaskStatus.FINISHED,
                     consts.TaskStatus.CRASHED)


def abort_task(task_id, attempts=_ABORT_ATTEMPTS, delay=_RETRY_DELAY):
    """Mark the task aborting in Rally's DB; True once it is (or ended).

    Retried: the DB may be busy with the runner's own writes, and a
    missed abort means the whole task runs on.
    """
    for attempt in range(attempts):
        try:
            if objects.Task.get_status(task_id) in _NOTHING_TO_ABORT:
                return True
            objects.Task.get(task_id).abort(soft=False)
            return True
        except Exception as e:
            LOG.warning("abort of task %s on Ctrl-C failed (attempt %d of "
                        "%d): %s" % (task_id, attempt + 1, attempts, e))
            time.sleep(delay)
    return False


class _Watcher(object):
    """Does the abort in a thread of its own, never in the signal handler.

    The handler only sets an Event: it interrupts the main thread at an
    arbitrary point (e.g. inside a write to stderr, where a second write
    raises "reentrant call"), so it must not log, write or start threads.
    """

    def __init__(self, task_id):
        self.task_id = task_id
        self.main_pid = os.getpid()
        self.interrupted = threading.Event()
        self.signal_name = None
        self.closed = False
        self.thread = threading.Thread(target=self._run, daemon=True,
                                       name="rcbench-interrupt")
        self.thread.start()

    def on_signal(self, signum, frame):
        # Every process of the group gets Ctrl-C; the runner's workers
        # (forked from here) leave the abort to this process.
        signal.signal(signum, _SECOND[signum])
        if os.getpid() == self.main_pid:
            self.signal_name = self.signal_name or SIGNALS[signum]
            self.interrupted.set()

    def close(self):
        self.closed = True
        self.interrupted.set()

    def _aborted_elsewhere(self):
        try:
            return (objects.Task.get_status(self.task_id)
                    == consts.TaskStatus.ABORTING)
        except Exception:
            return False  # the DB is busy: the next poll reads it

    def _run(self):
        while not self.interrupted.wait(_STATUS_POLL):
            if self._aborted_elsewhere():  # rally task abort UUID
                _stop_runners()
                abort.request()
                self.interrupted.wait()
                return
        if self.closed:
            return
        name = self.signal_name
        sys.stderr.write(
            "\n%s: aborting task %s: running iterations stop waiting and "
            "delete their instances; finished results are kept. %s again "
            "to stop at once.\n" % (name, self.task_id, name))
        # The task is marked aborting first: an iteration that gives up
        # its wait must not end the task as "finished" before that.
        aborted = abort_task(self.task_id)
        _stop_runners()
        abort.request()
        if not aborted:
            sys.stderr.write("%s: could not abort task %s (see the log); %s "
                             "again to stop at once.\n"
                             % (name, self.task_id, name))


@context.configure(name="rcbench_interrupt", platform="default", order=100,
                   hidden=True)
class GracefulInterrupt(context.Context):
    """Ctrl-C or SIGTERM aborts the task as ``rally task abort`` does.

    Running iterations end and delete their instances, finished ones are
    kept in Rally's DB, the task ends "aborted"; a second Ctrl-C
    interrupts at once. A default of every scenario of this package.
    """

    CONFIG_SCHEMA = {"type": "object", "additionalProperties": False}

    def setup(self):
        self._previous = {}
        self._watcher = None
        # The harness whose processes count as the measurement's own CPU
        # (foreign_load): this process, before Rally forks its runners.
        foreign_load.set_harness(os.getpid())
        try:
            foreign_load.prune(opts.register())
            harness_cpu.prune()
        except OSError as e:
            LOG.warning("stale instance registries not pruned: %s" % e)
        if threading.current_thread() is not threading.main_thread():
            return  # only the main thread may set signal handlers
        abort.arm()  # before Rally forks the runner's processes
        self._watcher = _Watcher(self.context["task"]["uuid"])
        for signum in SIGNALS:
            self._previous[signum] = signal.signal(signum,
                                                   self._watcher.on_signal)

    def cleanup(self):
        # out of the cgroup its runners put it in (a test cloud's hosts)
        harness_cpu.leave(os.getpid())
        for signum, previous in self._previous.items():
            signal.signal(signum, previous)
        if self._watcher is not None:
            self._watcher.close()
            if abort.requested():
                _mark_aborted(self.context["task"]["uuid"])
            abort.disarm()


def _stop_runners():
    """No new iteration starts from now on.

    Rally's own abort reaches the runner within 2 s (it polls its DB);
    iterations that give up their waits at once would let it start the
    rest of the workload meanwhile, each failing at once. The runner of
    the running workload lives in this process: it is told now, as Rally
    tells it (ScenarioRunner.abort).
    """
    for candidate in gc.get_objects():
        if isinstance(candidate, runner.ScenarioRunner):
            candidate.abort()


def _mark_aborted(task_id):
    """The task ends "aborted", not "finished".

    Rally reads an abort from its DB every 2 s; iterations that gave up
    their waits can end the workload before that, and a task whose last
    workload ends while "aborting" would be marked finished.
    """
    try:
        if objects.Task.get_status(task_id) == consts.TaskStatus.ABORTING:
            objects.Task.get(task_id).update_status(
                consts.TaskStatus.ABORTED)
    except Exception as e:
        LOG.warning("task %s: not marked aborted: %s" % (task_id, e))
