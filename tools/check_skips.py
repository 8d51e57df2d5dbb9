#!/usr/bin/env python3
"""List the skipped tests of the last stestr run; in CI fail on surprises.

    python tools/check_skips.py tools/ci-expected-skips.yaml  # after a run

Functional tests skip when an engine is not usable here; in CI every
engine is installed on purpose, so a skip there means an engine broke
(a daemon that died mid-run turns the rest into green skips). The
expected skips are listed with the reason they must give; with CI set in
the environment (or --strict) any other skip fails (exit 1).
"""

import argparse
import io
import os
import re
import subprocess
import sys

import subunit
import testtools
import yaml


class _Skips(testtools.StreamResult):
    def __init__(self):
        super().__init__()
        self.skipped = {}
        self._reasons = {}

    def status(self, test_id=None, test_status=None, file_name=None,
               file_bytes=None, **kwargs):
        if test_id is None:
            return
        if file_name == "reason" and file_bytes:
            self._reasons[test_id] = (self._reasons.get(test_id, b"")
                                      + bytes(file_bytes))
        if test_status == "skip":
            self.skipped[test_id] = self._reasons.get(
                test_id, b"").decode("utf-8", "replace").strip()


def skipped_tests(stream):
    """{test id: reason} of the skips in a subunit v2 stream."""
    result = _Skips()
    subunit.ByteStreamToStreamResult(stream, non_subunit_name="stdout").run(
        result)
    return result.skipped


def expected_skips(path):
    """[(test id regex, reason regex, why)] from the YAML list."""
    with open(path) as f:
        entries = yaml.safe_load(f) or []
    return [(re.compile(e["test"]), re.compile(e["reason"]), e["why"])
            for e in entries]


def unexpected(skipped, expected):
    """[(test id, reason)] of the skips no expected entry covers."""
    return sorted((test, reason) for test, reason in skipped.items()
                  if not any(t.search(test) and r.search(reason)
                             for t, r, _ in expected))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("expected", help="YAML list of expected skips")
    parser.add_argument("--strict", action="store_true",
                        default=bool(os.environ.get("CI")),
                        help="fail on an unexpected skip (default: when "
                             "CI is set)")
    args = parser.parse_args(argv)
    last = subprocess.run(["stestr", "last", "--subunit"],
                          capture_output=True, check=True)
    skipped = skipped_tests(io.BytesIO(last.stdout))
    surprises = unexpected(skipped, expected_skips(args.expected))
    for test, reason in sorted(skipped.items()):
        mark = "UNEXPECTED " if (test, reason) in surprises else ""
        print("%sskip: %s: %s" % (mark, test, reason))
    print("skips: %d, unexpected: %d" % (len(skipped), len(surprises)))
    if surprises and args.strict:
        print("An engine this CI installs on purpose was not usable: fix "
              "it, or list the skip with its reason in %s" % args.expected,
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
