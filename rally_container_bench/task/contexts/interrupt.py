"""Ctrl-C stops a task the way ``rally task abort`` does: nothing is lost.

Rally 5.1 lets the first SIGINT raise KeyboardInterrupt in every process:
the iterations that had finished are never written to its DB, and the
task stays "running" for ever. This context, a default of every scenario
of this package, turns the first Ctrl-C during a workload into an abort
of the task instead: no new iteration starts, running ones end (their
instances deleted; a native sysbench gets the signal and that iteration
fails), finished ones are stored, the task ends "aborted". A second
Ctrl-C interrupts at once, as Rally does.
"""

import os
import signal
import sys
import threading

from rally.common import logging
from rally.common import objects
from rally.task import context

LOG = logging.getLogger(__name__)


def _abort(task_id):
    try:
        objects.Task.get(task_id).abort(soft=False)
    except Exception as e:  # already aborting or finished: nothing to do
        LOG.debug("abort of task %s on Ctrl-C: %s" % (task_id, e))


@context.configure(name="rcbench_interrupt", platform="default", order=100,
                   hidden=True)
class GracefulInterrupt(context.Context):
    CONFIG_SCHEMA = {"type": "object", "additionalProperties": False}

    def setup(self):
        self._previous = None
        if threading.current_thread() is not threading.main_thread():
            return  # only the main thread may set signal handlers
        main_pid = os.getpid()
        task_id = self.context["task"]["uuid"]

        def on_interrupt(signum, frame):
            # Every process of the group gets the signal; the runner's
            # workers (forked from here) leave the abort to this process.
            signal.signal(signal.SIGINT, signal.default_int_handler)
            if os.getpid() != main_pid:
                return
            sys.stderr.write(
                "\nCtrl-C: aborting task %s after the running iterations; "
                "their results are kept. Ctrl-C again to stop at once.\n"
                % task_id)
            threading.Thread(target=_abort, args=(task_id,),
                             daemon=True).start()

        self._previous = signal.signal(signal.SIGINT, on_interrupt)

    def cleanup(self):
        if self._previous is not None:
            signal.signal(signal.SIGINT, self._previous)
