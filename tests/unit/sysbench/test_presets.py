import unittest

from rally_container_bench.workloads.sysbench import command
from rally_container_bench.workloads.sysbench import presets
from rally_container_bench.workloads.sysbench import spec as spec_lib


class KekPresetsTestCase(unittest.TestCase):
    """The KEK HEPiX 2015 talk's parameters, exactly."""

    def test_cpu(self):
        cpu = presets.get("kek2015-cpu")
        self.assertEqual(("cpu", 20000, 1), (cpu.test, cpu.cpu_max_prime,
                                             cpu.threads))
        self.assertEqual(
            ["sysbench", "--test=cpu", "--num-threads=1", "--max-time=0",
             "--max-requests=10000", "--cpu-max-prime=20000", "run"],
            command.build_argv(cpu, "0.4.12"))

    def test_memory(self):
        for oper in ("read", "write"):
            memory = presets.get("kek2015-memory-" + oper)
            self.assertEqual(
                dict(test="memory", memory_oper=oper, memory_block_size="1K",
                     memory_total_size="100G", time=300),
                memory.to_dict())
            self.assertEqual(1, memory.threads)

    def test_fileio(self):
        for mode in ("seqrd", "rndrd", "seqwr", "rndwr"):
            fileio = presets.get("kek2015-fileio-" + mode)
            self.assertEqual(
                dict(test="fileio", file_test_mode=mode,
                     file_block_size="4K", file_total_size="8G",
                     file_num=128, file_extra_flags="direct", time=300),
                fileio.to_dict())

    def test_kek_set_is_the_seven_scenarios_of_the_study(self):
        self.assertEqual(7, len(presets.KEK2015))


class AllPresetsTestCase(unittest.TestCase):

    def test_every_preset_builds_for_both_versions(self):
        for name in presets.NAMES:
            for version in ("0.4.12", "1.0.20"):
                with self.subTest(preset=name, version=version):
                    argv = command.build_argv(presets.get(name), version)
                    self.assertEqual("run", argv[-1])

    def test_quick_presets_are_bounded_and_small(self):
        for name in presets.QUICK:
            quick = presets.get(name)
            self.assertLessEqual(quick.time or 0, 5, name)
            if quick.test == "fileio":
                self.assertLessEqual(
                    spec_lib.size_in_bytes(quick.file_total_size), 64 << 20)
            if quick.test == "memory":
                self.assertLessEqual(
                    spec_lib.size_in_bytes(quick.memory_total_size), 1 << 30)


class ResolveTestCase(unittest.TestCase):

    def test_name_mapping_and_override(self):
        self.assertEqual(presets.get("quick-cpu"),
                         presets.resolve("quick-cpu"))
        custom = presets.resolve({"test": "cpu", "time": 3})
        self.assertEqual(3, custom.time)
        tuned = presets.resolve({"preset": "kek2015-memory-read",
                                 "time": 30, "threads": 2})
        self.assertEqual((30, 2, "100G"), (tuned.time, tuned.threads,
                                           tuned.memory_total_size))

    def test_override_can_drop_a_field(self):
        buffered = presets.resolve({"preset": "quick-fileio-rndrd",
                                    "file_extra_flags": None})
        self.assertIsNone(buffered.file_extra_flags)

    def test_errors_name_the_entry(self):
        with self.assertRaisesRegex(spec_lib.SpecError,
                                    r"tests\[1\]: unknown sysbench preset "
                                    r"'kek-cpu'; known: kek2015-cpu"):
            presets.resolve_all(["quick-cpu", "kek-cpu"])
        with self.assertRaisesRegex(spec_lib.SpecError,
                                    r"tests\[0\]: threads must be >= 1"):
            presets.resolve_all([{"preset": "quick-cpu", "threads": 0}])
        with self.assertRaisesRegex(spec_lib.SpecError, "non-empty list"):
            presets.resolve_all([])
        with self.assertRaisesRegex(spec_lib.SpecError, "non-empty list"):
            presets.resolve_all(42)

    def test_single_entry_is_a_list_of_one(self):
        self.assertEqual([presets.get("quick-cpu")],
                         presets.resolve_all("quick-cpu"))
