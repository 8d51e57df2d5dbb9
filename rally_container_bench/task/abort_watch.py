"""Rally's abort watch of a workload ends with the workload.

Rally (5.x) watches each running workload for a task abort in a thread
that reads the task's status, then sleeps 2 s; the workload's end waits
for that thread, so every workload ends 0-2 s after its last iteration.
rcbench decide runs many short workloads: in README command 1 of
2026-12-05 that was 28 s of its 484 (26 workloads, 1.1 s each on
average), time its budget gives to pairs. Loaded with this package's
plugins (Rally imports every module here), the watch below reads the
status as often but waits on the workload's own "done" event, so it
returns as soon as the workload is done. A Rally without the hooks it
uses keeps its own watch.
"""

from rally import consts
from rally.task import engine

POLL_S = 2.0


def watch_for_abort(consumer):
    """Abort consumer's runner once its task is aborting; end with it.

    consumer: a ResultConsumer (its is_done event, runner, task).
    """
    while not consumer.is_done.is_set():
        if consumer.is_task_in_aborting_status(consumer.task["uuid"],
                                               check_soft=False):
            consumer.runner.abort()
            consumer.task.update_status(consts.TaskStatus.ABORTED)
            return
        consumer.is_done.wait(POLL_S)


def install(consumer_class=getattr(engine, "ResultConsumer", None)):
    """Put watch_for_abort in place of Rally's; False where it cannot."""
    needed = ("wait_and_abort", "is_task_in_aborting_status")
    if consumer_class is None or not all(hasattr(consumer_class, name)
                                         for name in needed):
        return False
    consumer_class.wait_and_abort = watch_for_abort
    return True


install()
