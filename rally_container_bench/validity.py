"""Was a measurement valid? The host's load and the guest's clock.

Per test run: the Rally host's CPU (busy and steal shares from /proc/stat,
runnable tasks) over the run, and, inside an instance, its clock against
the host's: ``date`` is read inside before and after the test, each read
bracketed by host times. A guest whose clock runs slow or fast (a
sandbox runtime's, TCG's) makes every rate it reports wrong; the
brackets make the check immune to SSH latency: a mismatch is reported
only when the guest's elapsed time lies outside every host interval the
two reads allow, by more than CLOCK_TOLERANCE.

The parsing is pure; reading /proc and running ``date`` are the only I/O.
"""

import collections
import time

CLOCK_TOLERANCE = 0.02
STEAL_LIMIT = 0.02

CpuTimes = collections.namedtuple("CpuTimes", "total idle steal")
HostSample = collections.namedtuple("HostSample", "cpu running")
ClockRead = collections.namedtuple("ClockRead", "sent guest received")


def parse_stat(text):
    """/proc/stat -> (CpuTimes of all CPUs, runnable tasks now)."""
    cpu, running = None, None
    for line in text.splitlines():
        words = line.split()
        if words and words[0] == "cpu":
            values = [int(v) for v in words[1:]]
            # user nice system idle iowait irq softirq steal guest guest_nice
            # (guest time is already in user: not added twice)
            total = sum(values[:8])
            steal = values[7] if len(values) > 7 else 0
            cpu = CpuTimes(total, values[3] + values[4], steal)
        elif words and words[0] == "procs_running":
            running = int(words[1])
    return cpu, running


def host_sample(path="/proc/stat"):
    with open(path) as f:
        return HostSample(*parse_stat(f.read()))


def host_load(before, after):
    """{busy, steal, running_max} between two samples (shares of 0..1)."""
    total = after.cpu.total - before.cpu.total
    if total <= 0:
        return {"busy": None, "steal": None,
                "running_max": max(before.running, after.running)}
    idle = after.cpu.idle - before.cpu.idle
    steal = after.cpu.steal - before.cpu.steal
    return {"busy": (total - idle) / total, "steal": steal / total,
            "running_max": max(before.running, after.running)}


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
