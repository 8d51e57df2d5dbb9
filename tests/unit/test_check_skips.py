"""tools/check_skips.py reads skips from a real stestr subunit stream."""

import io
import os
import subprocess
import sys
import tempfile
import unittest

TOP = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(TOP, "tools"))
import check_skips  # noqa: E402

SUITE = '''
import unittest

class T(unittest.TestCase):
    def test_runs(self):
        pass

    def test_engine(self):
        self.skipTest("dockerd does not answer at unix:///x")

    def test_expected(self):
        self.skipTest("no private mount namespace on this host")
'''


class CheckSkipsTestCase(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        # A real run of stestr (subunit v2), as tox makes them.
        cls.dir = tempfile.TemporaryDirectory()
        with open(os.path.join(cls.dir.name, "test_sample.py"), "w") as f:
            f.write(SUITE)
        with open(os.path.join(cls.dir.name, ".stestr.conf"), "w") as f:
            f.write("[DEFAULT]\ntest_path=.\ntop_dir=.\n")
        stestr = os.path.join(os.path.dirname(sys.executable), "stestr")
        subprocess.run([stestr, "run"], cwd=cls.dir.name, check=True,
                       capture_output=True)
        cls.stream = subprocess.run([stestr, "last", "--subunit"],
                                    cwd=cls.dir.name, check=True,
                                    capture_output=True).stdout

    @classmethod
    def tearDownClass(cls):
        cls.dir.cleanup()

    def test_skips_and_their_reasons_are_read(self):
        found = check_skips.skipped_tests(io.BytesIO(self.stream))
        self.assertEqual({"test_sample.T.test_engine":
                          "dockerd does not answer at unix:///x",
                          "test_sample.T.test_expected":
                          "no private mount namespace on this host"}, found)

    def test_only_unlisted_skips_are_unexpected(self):
        with tempfile.NamedTemporaryFile("w", suffix=".yaml") as f:
            f.write("- test: 'test_expected$'\n"
                    "  reason: 'no private mount namespace'\n"
                    "  why: hosts without hybrid cgroups\n")
            f.flush()
            expected = check_skips.expected_skips(f.name)
        found = check_skips.skipped_tests(io.BytesIO(self.stream))
        self.assertEqual([("test_sample.T.test_engine",
                           "dockerd does not answer at unix:///x")],
                         check_skips.unexpected(found, expected))

    def test_the_shipped_list_loads(self):
        check_skips.expected_skips(os.path.join(
            TOP, "tools", "ci-expected-skips.yaml"))
