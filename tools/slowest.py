#!/usr/bin/env python3
"""The slowest tests and test classes of every run in this stestr repository.

    python tools/slowest.py [N]     (default 10)

stestr's own ``slowest`` shows the last run only; CI runs several (unit,
functional, the periodic job's test, engine faults, the cloud's). A test's
time leaves out its class's setUpClass (often a whole Rally task): the
classes are also listed by the time their worker spent on them, setup
included (from the end of the worker's previous test to the end of the
class's last).
"""

import io
import subprocess
import sys

import subunit
import testtools


class _Times(testtools.StreamResult):
    def __init__(self):
        super().__init__()
        self.started = {}
        self.took = {}
        self.ended = []  # (run, end, start, test, worker)
        self.run = None

    def status(self, test_id=None, test_status=None, timestamp=None,
               test_tags=None, **kwargs):
        if not test_id or timestamp is None:
            return
        if test_status == "inprogress":
            self.started[test_id] = timestamp
        elif test_status in ("success", "fail", "skip", "xfail") \
                and test_id in self.started:
            start = self.started[test_id]
            self.took[test_id] = (timestamp - start).total_seconds()
            worker = min((t for t in (test_tags or ())
                          if t.startswith("worker-")), default="worker-0")
            self.ended.append((self.run, timestamp, start, test_id, worker))

    def classes(self):
        """{class: seconds its worker spent on it, setUpClass included}.

        Per run: a worker's first class counts from the run's first test
        start, each later one from the end of that worker's previous test.
        Subunit has no record before the first test: the setUpClass of a
        run's very first class (e.g. the periodic job's, run alone) is not
        seen; tox prints each command's whole time.
        """
        spent, last, run_start = {}, {}, {}
        for run, _, start, _, _ in self.ended:
            run_start[run] = min(run_start.get(run, start), start)
        for run, end, start, test, worker in sorted(self.ended):
            begin = last.get((run, worker), run_start[run])
            name = test.rsplit(".", 1)[0]
            spent[name] = spent.get(name, 0) + (end - begin).total_seconds()
            last[(run, worker)] = end
        return spent


def run_ids():
    out = subprocess.run(["stestr", "history", "list"], capture_output=True,
                         text=True, check=True).stdout
    return [line.split("|")[1].strip() for line in out.splitlines()
            if line.startswith("|") and line.split("|")[1].strip().isdigit()]


def main(argv):
    count = int(argv[1]) if len(argv) > 1 else 10
    times = _Times()
    for run in run_ids():
        times.run = run
        stream = subprocess.run(["stestr", "history", "show", run,
                                 "--subunit"], capture_output=True,
                                check=True).stdout
        subunit.ByteStreamToStreamResult(
            io.BytesIO(stream), non_subunit_name="stdout").run(times)
    print("slowest %d tests of %d:" % (count, len(times.took)))
    for test, seconds in sorted(times.took.items(),
                                key=lambda item: -item[1])[:count]:
        print("%8.1f s  %s" % (seconds, test))
    classes = times.classes()
    print("slowest %d test classes of %d (setUpClass included):"
          % (count, len(classes)))
    for name, seconds in sorted(classes.items(),
                                key=lambda item: -item[1])[:count]:
        print("%8.1f s  %s" % (seconds, name))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
