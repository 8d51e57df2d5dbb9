"""Engine timestamps (RFC 3339 / ISO 8601) -> epoch seconds. PURE.

One parser for every engine: Docker (UTC, ``Z``, nanoseconds), Podman
(the host's local offset, e.g. ``+09:00`` in Japan, nanoseconds), Nova and
Zun (microseconds or none, with ``Z``, an offset, or no zone, which they
mean as UTC).
"""

import datetime
import re

_STAMP = re.compile(
    r"^(?P<moment>\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2})?)"
    r"(?:[.,](?P<fraction>\d+))?"
    r"\s*(?P<zone>Z|z|[+-]\d{2}(?::?\d{2})?)?$")


def epoch(text):
    """Seconds since the epoch (float), or None for no time at all.

    None for an empty value and for Go's zero time (``0001-01-01...``),
    which Docker and Podman report for a container never started. Digits
    of the fraction beyond microseconds are kept (float precision).
    ValueError for anything else that is not a timestamp.
    """
    if not text or text.startswith("0001-"):
        return None
    match = _STAMP.match(text.strip())
    if match is None:
        raise ValueError("not an RFC 3339 timestamp: %r" % (text,))
    moment = datetime.datetime.fromisoformat(
        match.group("moment").replace(" ", "T"))
    zone = match.group("zone")
    if zone in (None, "Z", "z"):
        tz = datetime.timezone.utc
    else:
        sign = -1 if zone[0] == "-" else 1
        digits = zone[1:].replace(":", "")
        minutes = int(digits[:2]) * 60 + int(digits[2:4] or 0)
        tz = datetime.timezone(sign * datetime.timedelta(minutes=minutes))
    fraction = match.group("fraction")
    seconds = moment.replace(tzinfo=tz).timestamp()
    return seconds + (float("0." + fraction) if fraction else 0.0)
