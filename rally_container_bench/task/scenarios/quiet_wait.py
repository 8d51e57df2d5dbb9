"""Before a disturbed test is measured again: wait, bounded, for quiet."""

import time

from rally.common import logging

from rally_container_bench.validity import foreign_load

LOG = logging.getLogger(__name__)
# The window in which a busy host's load is read while waiting for quiet.
QUIET_WINDOW_S = 1.0
# A host that stayed busy through a whole wait is waited on for one
# window only for this long (this process's iterations): its load is no
# passing neighbour.
BUSY_MEMORY_S = 300.0
_stayed_busy = {}  # host name -> time.monotonic() of its last full wait
QUIET = "yes"  # a quiet wait's row: the host went quiet
# or its load left a CPU free (foreign_load.leaves_room): a pair beside
# it, alike for both, keeps its answer
ROOM = "room beside it"


class QuietWaitMixin:

    def _wait_for_quiet(self, plan, spec):
        """Before a re-measure: wait, bounded, while the host stays busy.

        Read in one-second windows on the host the tests run on (the
        task's own instances and harness are not foreign). Returns the
        wait's row of the iteration's quiet-wait table (its last field
        QUIET when the host went quiet), or None when it did not wait; a
        host that stayed busy through a whole wait is read for one window
        only for BUSY_MEMORY_S.
        """
        if plan.host is None or plan.quiet_wait <= 0:
            return
        started = time.monotonic()
        bound = plan.quiet_wait
        if started - _stayed_busy.get(plan.host.name, -BUSY_MEMORY_S) \
                < BUSY_MEMORY_S:
            bound = 0.0
        foreign, quiet, said = None, False, False
        while True:
            with plan.host.window(owned=False) as window:
                time.sleep(QUIET_WINDOW_S)
            if window.readings is None:
                return  # not read: nothing to wait for
            load = foreign_load.load(*window.readings)
            foreign = load.get("foreign")
            quiet = not foreign_load.disturbed(load, plan.limit,
                                               plan.saturated_share)
            room = len(plan.roles(spec, 0)) > 1 and \
                foreign_load.leaves_room(load, plan.limit)
            waited = time.monotonic() - started
            if quiet or room or waited >= bound:
                break
            if not said:
                said = True
                LOG.info("host busy: waiting for quiet on %s before "
                         "measuring %s again (%.2f cores of foreign load%s, "
                         "limit %g; at most %g s)"
                         % (plan.host.name, spec.label, foreign,
                            _unplaced_said(load), plan.limit,
                            plan.quiet_wait))
        if not (quiet or room) and bound:
            _stayed_busy[plan.host.name] = time.monotonic()
        if said:
            LOG.info("host busy: waited %.0f s on %s, %s" % (
                waited, plan.host.name,
                "quiet now: measuring %s again" % spec.label if quiet else
                "a CPU free beside the load: measuring %s again, the pair "
                "kept if the load is alike for both" % spec.label if room
                else "still busy: %s stays flagged, not measured again "
                "beside the load" % spec.label))
        return [spec.label, plan.host.name, round(waited, 1),
                None if foreign is None else round(foreign, 3),
                QUIET if quiet else ROOM if room else "no (gave up)"
                if bound else "no (still busy)"]


def _unplaced_said(load):
    unplaced = load.get("unplaced") or 0.0
    return ", %.2f of Rally's that may hide some" % unplaced \
        if unplaced > load["foreign"] else ""
