"""A server's console log, read when it cannot be reached.

A site's image that never answers, or refuses the key, says why on its
serial console: cloud-init's lines (or their absence) tell an image
without cloud-init from one that found no datasource or whose login user
is another. The network phase's error carries that diagnosis.
"""

import contextlib

from rally_container_bench.core import base
from rally_container_bench.core import cloud_init

LINES = 300


def tail(nova, instance, lines=LINES):
    """The last lines of the server's console log; None if unreadable."""
    try:
        return nova.servers.get_console_output(instance.id, length=lines) \
            or ""
    except Exception:  # a diagnosis only: never the error itself
        return None


@contextlib.contextmanager
def explained(nova, instance, ssh_user=None):
    """Re-raise a base.DriverError with what the console says."""
    try:
        yield
    except base.DriverError as e:
        raise base.DriverError("%s. The console: %s" % (
            e, cloud_init.console_diagnosis(tail(nova, instance),
                                            ssh_user))) from e
