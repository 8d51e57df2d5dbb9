"""cloud-init inside a guest: is it there, and wait until it is done.

A site's image takes its key and network through cloud-init, which goes
on after sshd answers (packages, users, its final modules): a test that
starts then shares the guest's CPU with it. So the first timed test waits
for ``cloud-init status --wait``, and that wait is timed apart from the
network phase.
"""

import re

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


# cloud-init's own lines on the console (every version since 0.7):
#   Cloud-init v. 22.4.2 running 'init' at ...
#   Cloud-init v. 22.4.2 finished at ... Datasource DataSourceNoCloud
#   [seed=/dev/sr0][dsmode=net].  Up 21.50 seconds
_STARTED = re.compile(r"Cloud-init v\. (\S+) running")
_FINISHED = re.compile(r"Cloud-init v\. (\S+) finished at .*?"
                       r"Datasource (DataSource\w+)")
NO_DATASOURCE = "DataSourceNone"


def still_running(console):
    """Whether the console shows cloud-init started and not yet done."""
    return bool(console and _STARTED.search(console)
                and not _FINISHED.search(console))


def console_diagnosis(console, ssh_user=None):
    """What a server's console log says of cloud-init, as one sentence.

    For a site's image that never answered or refused the key: whether
    cloud-init ran at all, and whether it found where the key pair is
    (a datasource: the metadata service or a config drive). console:
    the log's text, or None where it could not be read.
    """
    if console is None:
        return "the server's console log could not be read"
    if not console.strip():
        return ("the server's console log is empty: the image writes "
                "nothing to the serial console, so whether cloud-init ran "
                "cannot be read there")
    finished = _FINISHED.findall(console)
    if finished:
        version, datasource = finished[-1]
        if datasource == NO_DATASOURCE:
            return ("cloud-init %s ran and found no datasource (neither a "
                    "config drive nor the metadata service): the key pair "
                    "never reached the server. Give rcbench_guest "
                    "config_drive: true, or let the servers reach the "
                    "metadata service" % version)
        return ("cloud-init %s ran (%s), so the key pair reached the "
                "image; a refused key then means the login user is not "
                "the one cloud-init gave the key to (ssh_user is %s: the "
                "image's default user, e.g. debian, ubuntu, centos, "
                "cloud-user)" % (version, datasource, ssh_user or "root"))
    started = _STARTED.findall(console)
    if started:
        return ("cloud-init %s started but its console log shows it did "
                "not finish" % started[-1])
    return ("the server's console log shows no cloud-init: an image "
            "without it (or an agent like it) cannot take the key pair, "
            "and often not its network either")
