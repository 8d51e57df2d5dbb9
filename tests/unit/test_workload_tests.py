import unittest

from rally_container_bench.workloads import tests as tests_lib
from rally_container_bench.workloads import tools


class TestsListTestCase(unittest.TestCase):

    def test_sysbench_and_fio_in_the_given_order(self):
        specs = tests_lib.resolve_all([
            "quick-cpu", "fio-quick-randread",
            {"fio": {"rw": "write", "bs": "1M", "size": "8M"}},
            {"fio": {"preset": "fio-quick-randread", "runtime": 5,
                     "name": "randread-5s"}},
            {"preset": "quick-memory-read", "threads": 2}])
        self.assertEqual(["sysbench", "fio", "fio", "fio", "sysbench"],
                         [tools.of(s).name for s in specs])
        self.assertEqual(["cpu", "randread", "write", "randread-5s",
                          "memory.read"], [s.label for s in specs])
        self.assertEqual(5, specs[3].runtime)
        self.assertEqual("4k", specs[3].bs)

    def test_errors_name_the_entry(self):
        cases = ((["quick-cpu", "fio-fast"], r"tests\[1\]: unknown fio "
                  "preset 'fio-fast'"),
                 ([{"fio": {"rw": "read"}, "time": 3}], "nothing beside"),
                 (["fio-quick-randread", "fio-quick-randread"],
                  "randread twice"),
                 ([], "non-empty list"),
                 (["no-such"], r"tests\[0\]: unknown sysbench preset"))
        for entries, message in cases:
            with self.subTest(entries=entries):
                with self.assertRaisesRegex(tests_lib.TestsError, message):
                    tests_lib.resolve_all(entries)
