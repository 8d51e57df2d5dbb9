import unittest

from rally_container_bench.workloads.sysbench import presets
from rally_container_bench.workloads.sysbench import spec as spec_lib


class SpecValidationTestCase(unittest.TestCase):

    def assertRejected(self, pattern, **values):
        with self.assertRaisesRegex(spec_lib.SpecError, pattern):
            spec_lib.from_dict(values)

    def test_unknown_test(self):
        self.assertRejected("test is 'oltp'; allowed: cpu, memory, fileio",
                            test="oltp")

    def test_missing_test(self):
        with self.assertRaisesRegex(spec_lib.SpecError, "needs 'test'"):
            spec_lib.from_dict({"time": 1})

    def test_unknown_parameter_names_the_known_ones(self):
        self.assertRejected("unknown sysbench parameter.*max_time.*known: "
                            "test, threads", test="cpu", max_time=1)

    def test_parameter_of_another_test(self):
        self.assertRejected("memory_oper applies to the memory test, not to "
                            "cpu", test="cpu", time=1, memory_oper="read")

    def test_numbers(self):
        self.assertRejected("threads must be >= 1", test="cpu", time=1,
                            threads=0)
        self.assertRejected("threads must be a whole number", test="cpu",
                            time=1, threads="2")
        self.assertRejected("threads must be a whole number", test="cpu",
                            time=1, threads=True)
        self.assertRejected("time must be >= 1", test="cpu", time=-5)
        self.assertRejected("events must be a whole number", test="cpu",
                            events=1.5)

    def test_sizes(self):
        for bad in ("8GB", "0K", "1.5G", "-1", "4K; touch /tmp/x", 4096):
            with self.subTest(size=bad):
                self.assertRejected("memory_total_size must be a size",
                                    test="memory", memory_total_size=bad)
        self.assertEqual("4K", spec_lib.from_dict(
            {"test": "memory", "memory_block_size": "4k"}).memory_block_size)

    def test_choices_reject_shell_words(self):
        self.assertRejected("file_extra_flags is 'direct; reboot'",
                            test="fileio", file_test_mode="rndrd", time=1,
                            file_extra_flags="direct; reboot")
        self.assertRejected("allowed: seqwr, seqrewr, seqrd, rndrd, rndwr, "
                            "rndrw", test="fileio", file_test_mode="$(id)",
                            time=1)

    def test_bounds(self):
        self.assertRejected("cpu needs time", test="cpu")
        self.assertRejected("random fileio modes need time", test="fileio",
                            file_test_mode="rndrw")
        self.assertRejected("events does not apply to memory",
                            test="memory", events=10)
        self.assertRejected("events does not apply to sequential",
                            test="fileio", file_test_mode="seqrd", events=10)
        self.assertRejected("fileio needs file_test_mode", test="fileio",
                            time=1)

    def test_not_a_mapping(self):
        self.assertRaisesRegex(spec_lib.SpecError, "is a mapping",
                               spec_lib.from_dict, ["cpu"])

    def test_sizes_in_bytes(self):
        self.assertEqual(4096, spec_lib.size_in_bytes("4K"))
        self.assertEqual(8 << 30, spec_lib.size_in_bytes("8G"))
        self.assertEqual(512, spec_lib.size_in_bytes("512"))

    def test_labels(self):
        self.assertEqual("cpu", presets.get("quick-cpu").label)
        self.assertEqual("memory.read",
                         presets.get("quick-memory-read").label)
        self.assertEqual("fileio.rndwr",
                         presets.get("kek2015-fileio-rndwr").label)
