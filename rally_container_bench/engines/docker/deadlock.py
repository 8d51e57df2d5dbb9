"""dockerd's libnetwork deadlock, told apart and remembered.

Debian bookworm's docker.io 20.10.24 lacks moby/libnetwork#2679 (in
Docker 20.10.27): a container's exit (its endpoint leaving: network,
then controller locked) and another's removal (the watch loop:
controller, then network) can lock each other for good. Seen in CI on
2026-12-04 beside 100 containers at once, all on the "none" network:
every call that touches the network hung, /_ping still answered, no
shim was left (goroutine dump: sbLeave -> getSvcRecords waits for the
controller, watchLoop -> processEndpointDelete for the network).

Once a call waited out engine_call_timeout and the probe found the
deadlock, this process sends no more calls to that dockerd: each fails
at once with the hint (re-probed every RECHECK_S), so a task at
concurrency N and its cleanup end in one timeout, not one per call.
"""

import threading
import time

from rally_container_bench.core import base

HINT = (
    "dockerd answers /_ping but not /networks: its network controller is "
    "deadlocked (libnetwork, moby/moby#46661; fixed in Docker 20.10.27 by "
    "moby/libnetwork#2679, which Debian bookworm's docker.io 20.10.24 "
    "lacks). Nothing will end until it restarts: rcbench engines stop "
    "docker; rcbench engines start docker")

#: seconds a found deadlock is taken as still there without asking
RECHECK_S = 10.0

_found = {}  # docker URL -> monotonic time the probe last found it
_lock = threading.Lock()


def probe(url, timeout=3.0, client=None):
    """HINT when dockerd shows the libnetwork deadlock, else None.

    Asked after a call timed out: /_ping (no lock) answers, /networks
    (the controller's lock) does not within timeout.
    """
    import docker
    import requests
    api = client or docker.APIClient(base_url=url, timeout=timeout)
    try:
        api.ping()
    except Exception:
        return None  # not answering at all: not this
    try:
        api.networks()
    except requests.exceptions.Timeout:
        return HINT
    except Exception:
        return None
    return None


def after_timeout(url, client=None):
    """probe()'s answer after a call to url timed out, remembered."""
    hint = probe(url, client=client)
    with _lock:
        if hint:
            _found[url] = time.monotonic()
        else:
            _found.pop(url, None)
    return hint


def refuse_if_known(url, what):
    """Raise CommandTimeout, not sending what, where known() says so."""
    hint = known(url)
    if hint:
        raise base.CommandTimeout("docker %s not sent: %s" % (what, hint))


def known(url, client=None):
    """HINT when this process found url deadlocked and it still is.

    Asked before each call; None (send it) when it was never found or a
    new probe finds dockerd answering again (restarted).
    """
    with _lock:
        found = _found.get(url)
    if found is None:
        return None
    if time.monotonic() - found < RECHECK_S:
        return HINT
    return after_timeout(url, client=client)
