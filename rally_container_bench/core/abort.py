"""An aborted task ends every wait of this package at once.

Rally's abort (Ctrl-C through the rcbench_interrupt context, or ``rally
task abort``) only stops new iterations from starting; an iteration
waiting for a guest's SSH would wait on until its timeout. The context
arms one flag in Rally's main process before the runner forks its worker
processes (so they share it) and raises it when the task is aborted; the
waits (engine polls, SSH logins, the start barrier) check it and raise
Aborted. Deleting an instance is shielded: it runs to its end, so an
abort leaves nothing behind.

No Rally import: drivers use it.
"""

import contextlib
import multiprocessing
import threading

_flag = None
_local = threading.local()


class Aborted(Exception):
    """The task is being aborted: the wait in progress was given up."""


def arm():
    """Make the shared flag (before Rally forks its runner processes)."""
    global _flag
    _flag = multiprocessing.get_context("fork").Event()


def disarm():
    global _flag
    _flag = None


def request():
    """Abort: every unshielded wait of every process ends within ~0.1 s."""
    if _flag is not None:
        _flag.set()


def requested():
    """True once the task is being aborted (never in a shielded block)."""
    return (_flag is not None and _flag.is_set()
            and not getattr(_local, "shielded", False))


def check(what):
    """Raise Aborted (naming what was given up) if the task is aborted."""
    if requested():
        raise Aborted("%s: given up, the task is being aborted" % what)


def sleep(seconds):
    """Sleep, but return as soon as the task is aborted."""
    if _flag is None or getattr(_local, "shielded", False):
        threading.Event().wait(seconds)
    else:
        _flag.wait(seconds)


@contextlib.contextmanager
def shielded():
    """Waits in this block ignore an abort (deleting what was created)."""
    previous = getattr(_local, "shielded", False)
    _local.shielded = True
    try:
        yield
    finally:
        _local.shielded = previous


def call(function, what, poll=0.1):
    """function() in a helper thread; Aborted if the task is aborted first.

    For a blocking call that cannot be interrupted otherwise (an SSH
    connect to a guest that does not answer waits for its own timeout):
    the helper thread is left to finish on its own.
    """
    if _flag is None or getattr(_local, "shielded", False):
        return function()
    outcome = {}

    def target():
        try:
            outcome["value"] = function()
        except BaseException as e:  # handed to the caller's thread
            outcome["error"] = e

    helper = threading.Thread(target=target, daemon=True,
                              name="rcbench-abortable")
    helper.start()
    while helper.is_alive():
        helper.join(poll)
        if helper.is_alive():
            check(what)
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]
