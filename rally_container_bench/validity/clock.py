"""An instance's clock against the host's.

Per test run inside an instance: ``date`` is read inside before and
after the test, each read bracketed by host times. A guest whose clock
runs slow or fast (a sandbox runtime's, TCG's) makes every rate it
reports wrong; the brackets make the check immune to SSH latency: a
mismatch is reported only when the guest's elapsed time lies outside
every host interval the two reads allow, by more than CLOCK_TOLERANCE.

Running ``date`` is the only I/O.
"""

import collections
import time

CLOCK_TOLERANCE = 0.02

ClockRead = collections.namedtuple("ClockRead", "sent guest received")


def read_guest_clock(executor, timeout=60):
    """A ClockRead of the clock inside, or None where it cannot be read."""
    sent = time.time()
    result = executor.run(["date", "+%s.%N"], timeout)
    received = time.time()
    try:
        return ClockRead(sent, float(result.stdout.strip()), received)
    except ValueError:
        return None


def clock_offset(read):
    """Seconds the instance's clock is ahead of this host's, or None.

    0 when the instance's reading falls between the request and its answer
    (a shared clock, or one in step: a round trip is all the reading can
    tell); otherwise from the midpoint of the round trip.
    """
    if read is None:
        return None
    if read.sent <= read.guest <= read.received:
        return 0.0
    return read.guest - (read.sent + read.received) / 2


def clock_check(first, second, tolerance=CLOCK_TOLERANCE):
    """{ratio, mismatch} of the guest's clock between two ClockReads.

    ratio: guest elapsed / host elapsed (midpoints); mismatch: True only
    when the guest's elapsed time is outside [shortest, longest] host
    interval the reads allow by more than tolerance.
    """
    guest = second.guest - first.guest
    shortest = second.sent - first.received
    longest = second.received - first.sent
    middle = ((second.sent + second.received)
              - (first.sent + first.received)) / 2
    ratio = guest / middle if middle > 0 else None
    mismatch = (guest < shortest * (1 - tolerance)
                or guest > longest * (1 + tolerance))
    return {"ratio": ratio, "mismatch": bool(mismatch)}
