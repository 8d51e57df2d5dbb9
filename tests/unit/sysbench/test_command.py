import shlex
import unittest

from rally_container_bench.workloads.sysbench import command
from rally_container_bench.workloads.sysbench import spec as spec_lib


def spec(**values):
    return spec_lib.from_dict(values)


class VersionTestCase(unittest.TestCase):

    def test_parse_version_from_both_headers(self):
        self.assertEqual("1.0.20", command.parse_version(
            "sysbench 1.0.20 (using system LuaJIT 2.1.0-beta3)\n"))
        self.assertEqual("0.4.12", command.parse_version(
            "sysbench 0.4.12:  multi-threaded system evaluation benchmark"))
        self.assertEqual("1.0", command.parse_version("sysbench 1.0\n"))

    def test_parse_version_rejects_other_text(self):
        for text in ("", None, "sysbench: not found", "mysysbench 1.0.20"):
            with self.subTest(text=text):
                self.assertRaises(command.VersionError,
                                  command.parse_version, text)

    def test_generation(self):
        self.assertEqual(command.LEGACY, command.generation("0.4.12"))
        self.assertEqual(command.LEGACY, command.generation("0.5"))
        self.assertEqual(command.MODERN, command.generation("1.0.20"))
        self.assertEqual(command.MODERN, command.generation("1.1.0"))
        self.assertRaises(command.VersionError, command.generation, "x.y")


class BuildArgvTestCase(unittest.TestCase):

    def test_cpu_fixed_work(self):
        cpu = spec(test="cpu", cpu_max_prime=20000, events=10000)
        self.assertEqual(
            ["sysbench", "--test=cpu", "--num-threads=1", "--max-time=0",
             "--max-requests=10000", "--cpu-max-prime=20000", "run"],
            command.build_argv(cpu, "0.4.12"))
        self.assertEqual(
            ["sysbench", "cpu", "--threads=1", "--time=0", "--events=10000",
             "--cpu-max-prime=20000", "run"],
            command.build_argv(cpu, "1.0.20"))

    def test_cpu_fixed_time_disables_the_legacy_request_default(self):
        cpu = spec(test="cpu", time=10, threads=4)
        self.assertEqual(
            ["/opt/sb", "--test=cpu", "--num-threads=4", "--max-time=10",
             "--max-requests=0", "run"],
            command.build_argv(cpu, "0.4.12", executable="/opt/sb"))
        self.assertEqual(
            ["sysbench", "cpu", "--threads=4", "--time=10", "--events=0",
             "run"], command.build_argv(cpu, "1.0.20"))

    def test_memory_options(self):
        memory = spec(test="memory", memory_oper="read",
                      memory_access_mode="rnd", memory_block_size="1k",
                      memory_total_size="100G", time=300)
        self.assertEqual(
            ["sysbench", "memory", "--threads=1", "--time=300",
             "--events=0", "--memory-oper=read", "--memory-access-mode=rnd",
             "--memory-block-size=1K", "--memory-total-size=100G", "run"],
            command.build_argv(memory, "1.0.20"))
        legacy = command.build_argv(memory, "0.4.12")
        self.assertEqual(["--test=memory", "--num-threads=1",
                          "--max-time=300", "--max-requests=0"], legacy[1:5])
        self.assertEqual(legacy[5:], command.build_argv(memory,
                                                        "1.0.20")[5:])

    def test_fileio_phases(self):
        fileio = spec(test="fileio", file_test_mode="rndwr", file_num=128,
                      file_block_size="4K", file_total_size="8G",
                      file_extra_flags="direct", time=300)
        self.assertEqual(
            ["sysbench", "--test=fileio", "--file-num=128",
             "--file-total-size=8G", "prepare"],
            command.build_argv(fileio, "0.4.12", "prepare"))
        self.assertEqual(
            ["sysbench", "fileio", "--file-num=128", "--file-total-size=8G",
             "cleanup"], command.build_argv(fileio, "1.0.20", "cleanup"))
        self.assertEqual(
            ["sysbench", "fileio", "--threads=1", "--time=300", "--events=0",
             "--file-test-mode=rndwr", "--file-num=128",
             "--file-block-size=4K", "--file-total-size=8G",
             "--file-extra-flags=direct", "run"],
            command.build_argv(fileio, "1.0.20"))

    def test_sequential_fileio_one_pass_on_both_versions(self):
        seq = spec(test="fileio", file_test_mode="seqrd",
                   file_block_size="4K", file_total_size="64M", file_num=8)
        legacy = command.build_argv(seq, "0.4.12")
        modern = command.build_argv(seq, "1.0.20")
        # 0.4 stops after one pass by itself; 1.0 gets the pass's events.
        self.assertIn("--max-requests=0", legacy)
        self.assertIn("--events=%d" % (64 * 1024 // 4), modern)
        self.assertIn("--time=0", modern)

    def test_sequential_fileio_defaults_for_one_pass(self):
        seq = spec(test="fileio", file_test_mode="seqwr")
        # sysbench's defaults: 2G of files in 16K blocks.
        self.assertIn("--events=131072", command.build_argv(seq, "1.0.20"))

    def test_sequential_fileio_with_time_loops_on_modern(self):
        seq = spec(test="fileio", file_test_mode="seqrd", time=300)
        self.assertIn("--events=0", command.build_argv(seq, "1.0.20"))

    def test_bad_phase(self):
        cpu = spec(test="cpu", time=1)
        self.assertRaisesRegex(ValueError, "only fileio",
                               command.build_argv, cpu, "1.0.20", "prepare")
        self.assertRaisesRegex(ValueError, "allowed: prepare, run, cleanup",
                               command.build_argv, cpu, "1.0.20", "rm -rf")


class ToShellTestCase(unittest.TestCase):

    def test_every_word_survives_a_shell(self):
        argv = ["/opt/my sysbench", "cpu", "--x=; touch /tmp/pwned", "run"]
        line = command.to_shell(argv)
        self.assertEqual(argv, shlex.split(line))
        self.assertNotIn(" ; ", line)
