"""cloud-init inside a guest: is it there, and wait until it is done.

A site's image takes its key and network through cloud-init, which goes
on after sshd answers (packages, users, its final modules): a test that
starts then shares the guest's CPU with it. So the first timed test waits
for ``cloud-init status --wait``, and that wait is timed apart from the
network phase.
"""

from rally_container_bench.core import base

# 100: no cloud-init there. Else cloud-init's own status, after the wait.
STATUS_SCRIPT = (
    "command -v cloud-init >/dev/null 2>&1 || exit 100; "
    "cloud-init status --wait >/dev/null 2>&1; code=$?; "
    "cloud-init status --long 2>&1; exit $code")
ABSENT = 100


class CloudInitError(base.DriverError):
    """cloud-init ended in an error inside the guest."""


def present(executor, timeout):
    """Whether the guest has cloud-init."""
    result = executor.run(["sh", "-c", "command -v cloud-init"], timeout)
    return result.exit_code == 0


def wait(executor, timeout):
    """Block until cloud-init is done; its status (--long) text.

    None where the guest has no cloud-init. Raises CloudInitError when
    cloud-init reports an error (its status in the message), and
    base.CommandTimeout when it is not done within timeout.
    """
    result = executor.run(["sh", "-c", STATUS_SCRIPT], timeout)
    if result.exit_code == ABSENT:
        return None
    text = (result.stdout or "").strip()
    if result.exit_code != 0:
        raise CloudInitError("cloud-init ended with an error (exit %d): %s"
                             % (result.exit_code, text[-800:]))
    return text
