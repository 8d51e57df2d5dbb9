"""How each step ran: N at once, the host's steal, the guest's clock,
disturbed runs and the start barrier. Pure: reads report.results'
Collected.
"""

import statistics

from rally_container_bench.report import disturbance
from rally_container_bench.report import overlap
from rally_container_bench.validity import clock
from rally_container_bench.validity import cpu


def of(collected):
    """Per platform x concurrency: did the step measure N working at once?"""
    found = []
    for key in sorted(collected.iterations, key=lambda k: (k[1], k[0])):
        label, concurrency = key
        tests = overlap.summary(collected.test_runs.get(key, []),
                                concurrency)
        waves = collected.waves.get(key, [])
        checks = collected.checks.get(key, [])
        flags = [("%s %s" % (test, flag)) for test, info in
                 sorted(tests.items()) for flag in info["flags"]]
        steal = [float(c["host_steal"]) for c in checks
                 if c.get("host_steal") not in (None, "")]
        if steal and statistics.median(steal) > cpu.STEAL_LIMIT:
            flags.append("disturbed host: CPU steal %.1f %% (median) during "
                         "the tests" % (100 * statistics.median(steal)))
        ratios = [float(c["clock_ratio"]) for c in checks
                  if c.get("clock_ratio") not in (None, "")]
        mismatches = sum(1 for c in checks if c.get("clock_mismatch") == "yes")
        if mismatches:
            flags.append("clock mismatch over %.0f %% in %d test run(s): the "
                         "guest's clock ran at %.3fx the host's (median)"
                         % (100 * clock.CLOCK_TOLERANCE, mismatches,
                            statistics.median(ratios) if ratios else 0))
        runs = disturbance.runs_of(checks)
        notes = []
        if runs["disturbed"]:
            # handled (measured again, none left out): a note; runs left
            # out of verdicts: a reader must know
            (flags if runs["left_out"] else notes).append(
                "%d of %d test runs disturbed (foreign load %.2f cores, "
                "median of those), re-measured %d time(s); %d left out of "
                "verdicts%s" % (runs["disturbed"], runs["runs"],
                                runs["foreign_cores"], runs["remeasured"],
                                runs["left_out"],
                                disturbance.more_said(runs)))
        if runs["below_level_runs"]:
            notes.append(disturbance.below_level_said(runs, short=True))
        if collected.barrier_timeouts[key]:
            flags.append("the start barrier timed out %d time(s): those "
                         "tests started without the rest of their wave"
                         % collected.barrier_timeouts[key])
        found.append({
            "platform": label, "concurrency": concurrency,
            "synchronised": key in collected.synchronised,
            "tests": {t: {k: v for k, v in i.items() if k != "flags"}
                      for t, i in tests.items()},
            "slowest_ready": _mean([w.slowest_ready for w in waves]),
            "create_skew": _mean([w.skew for w in waves]),
            "waves": len(waves),
            "clock_ratio": statistics.median(ratios) if ratios else None,
            "host_steal": statistics.median(steal) if steal else None,
            "runs": runs,
            "flags": flags, "notes": notes})
    return found


def _mean(values):
    return statistics.fmean(values) if values else None
