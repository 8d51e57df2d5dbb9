"""What calls to Nova and to Zun share: a busy API told from an answer,
a create sent again only where it never reached the API, and the
instance-action events each service writes.
"""

import logging
import time

from rally_container_bench.core import timestamps

LOG = logging.getLogger(__name__)

# How long to wait for the compute service to finish its action events.
EVENTS_GRACE_S = 30


def transient_api_error(error):
    """A poll's failure that says nothing of the instance: a busy API.

    keystoneauth's connection errors (7 of 32 servers at once on the
    2-core test cloud lost a poll to a connect timeout: nova-api's workers
    were all busy) and HTTP 5xx answers (Zun's 500 when zun-compute did
    not answer its RPC within 60 s).
    """
    from keystoneauth1 import exceptions as ks_exceptions
    if isinstance(error, ks_exceptions.ConnectionError):
        return True
    code = getattr(error, "code", None) or getattr(error, "http_status", None)
    try:
        return 500 <= int(code) < 600
    except (TypeError, ValueError):
        return False


# A create whose connection was never made is sent again, this often at
# most, this many seconds apart.
CREATE_ATTEMPTS = 3
CREATE_RETRY_S = 2.0


def never_sent(error):
    """A request that did not reach the API: safe to send again.

    keystoneauth's ConnectTimeout and ConnectFailure: no connection, so
    no request (a read timeout may have created the instance).
    """
    from keystoneauth1 import exceptions as ks_exceptions
    return isinstance(error, (ks_exceptions.ConnectTimeout,
                              ks_exceptions.ConnectFailure))


def sent(request, what):
    """request()'s answer, sent again where it never reached the API.

    8 of 32 libvirt-LXC servers at once on the 2-core test cloud failed
    on their create's connect timeout (nova-api's workers all busy).
    """
    for attempt in range(1, CREATE_ATTEMPTS + 1):
        try:
            return request()
        except Exception as e:
            if attempt == CREATE_ATTEMPTS or not never_sent(e):
                raise
            LOG.warning("%s: the API did not take the connection (%s), "
                        "sending it again (%d of %d)"
                        % (what, e, attempt + 1, CREATE_ATTEMPTS))
            time.sleep(CREATE_RETRY_S)


def unfinished_events(actions):
    """Events that started but have no finish time yet."""
    return [event for action in actions
            for event in action.get("events") or ()
            if event.get("start_time") and not event.get("finish_time")]


def settled_actions(read, interval, grace=EVENTS_GRACE_S):
    """read() until no event is unfinished, for at most grace seconds.

    The server (container) can be ACTIVE and answer SSH a moment before
    the compute service writes its last event's finish time; this runs
    untimed, after the phases.
    """
    deadline = time.monotonic() + grace
    while True:
        actions = read()
        if not unfinished_events(actions) or time.monotonic() > deadline:
            return actions
        time.sleep(interval)


def action_event_times(actions):
    """Instance-action events as {"<action>.<event>.start|finish": epoch}."""
    times = {}
    for action in actions:
        for event in action.get("events") or ():
            key = "%s.%s" % (action["action"], event["event"])
            times[key + ".start"] = timestamps.epoch(event.get("start_time"))
            times[key + ".finish"] = timestamps.epoch(event.get("finish_time"))
    return times
