#!/usr/bin/env python3
"""Why the last stestr run's tests failed: the end of each distinct failure.

    stestr last --subunit | python tools/failures.py [LINES] [KINDS]

LINES (default 40) of the end of each failure's traceback, at most KINDS
(default 3) distinct ones, each with the tests that failed that way (a
setUpClass or setUp that fails fails every test of its class alike). CI
prints it last: a record that keeps only the end of the output shows why.
"""

import collections
import sys

import subunit
import testtools

WIDTH = 300


class _Failures(testtools.StreamResult):
    def __init__(self):
        super().__init__()
        self.tracebacks = collections.defaultdict(bytearray)
        self.failed = []

    def status(self, test_id=None, test_status=None, file_name=None,
               file_bytes=None, **kwargs):
        if test_id and file_name == "traceback" and file_bytes:
            self.tracebacks[test_id] += file_bytes
        if test_id and test_status == "fail":
            self.failed.append(test_id)


def tail(text, lines):
    kept = text.rstrip("\n").splitlines()[-lines:]
    return "\n".join(line[:WIDTH] for line in kept)


def main(argv):
    lines = int(argv[1]) if len(argv) > 1 else 40
    kinds = int(argv[2]) if len(argv) > 2 else 3
    found = _Failures()
    subunit.ByteStreamToStreamResult(
        sys.stdin.buffer, non_subunit_name="stdout").run(found)
    by_end = {}  # in the order the tests failed
    for test in found.failed:
        text = found.tracebacks.get(test, b"").decode("utf-8", "replace")
        by_end.setdefault(tail(text, lines) or "(no traceback)",
                          []).append(test)
    for number, (end, tests) in enumerate(by_end.items()):
        if number == kinds:
            print("=== and %d more distinct failures (stestr last)"
                  % (len(by_end) - kinds))
            break
        print("=== why %d test(s) failed: %s%s"
              % (len(tests), tests[0],
                 " and %d more alike" % (len(tests) - 1)
                 if len(tests) > 1 else ""))
        print(end)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
