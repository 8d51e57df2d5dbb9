import json
import os
import re
import shlex
import unittest

from rally_container_bench.workloads.sysbench import parse
from rally_container_bench.workloads.sysbench import spec as spec_lib

FIXTURES = os.path.join(os.path.dirname(__file__), "..", "..", "fixtures",
                        "sysbench")
VERSIONS = ("0.4.12", "1.0.20")
MIB = 1 << 20


def fixture(version, case):
    base = os.path.join(FIXTURES, version, case)
    with open(base + ".txt") as f:
        text = f.read()
    with open(base + ".cmd") as f:
        options = dict(re.findall(r"--([a-z-]+)=(\S+)", f.read()))
    return text, options


def cases(version, prefix=""):
    names = sorted(name[:-4] for name in os.listdir(
        os.path.join(FIXTURES, version)) if name.endswith(".txt"))
    return [name for name in names
            if name.startswith(prefix) and name not in
            ("fileio-prepare", "fileio-cleanup")]


class GoldenTestCase(unittest.TestCase):
    """Every recorded real output parses to its reviewed expectation."""

    def test_every_fixture_matches_expected_parse(self):
        checked = 0
        for version in VERSIONS:
            directory = os.path.join(FIXTURES, version)
            for name in sorted(os.listdir(directory)):
                if not name.endswith(".txt"):
                    continue
                with self.subTest(version=version, case=name):
                    with open(os.path.join(directory, name)) as f:
                        text = f.read()
                    with open(os.path.join(directory,
                                           name[:-4] + ".json")) as f:
                        expected = json.load(f)
                    if "error" in expected:
                        with self.assertRaises(parse.ParseError) as ctx:
                            parse.parse(text)
                        self.assertEqual(expected["error"],
                                         str(ctx.exception))
                        self.assertEqual(text, ctx.exception.raw)
                    else:
                        self.assertEqual(expected,
                                         parse.parse(text).to_json_dict())
                    checked += 1
        self.assertGreaterEqual(checked, 30)

    def test_every_test_and_mode_is_covered_on_both_versions(self):
        wanted = {("cpu", None), ("memory", "read"), ("memory", "write")}
        wanted |= {("fileio", mode) for mode in spec_lib.FILE_TEST_MODES}
        for version in VERSIONS:
            seen = set()
            for case in cases(version):
                result = parse.parse(fixture(version, case)[0])
                self.assertEqual(version, result.version)
                seen.add((result.test, result.mode))
            self.assertEqual(wanted, seen, version)

    def test_mode_and_threads_are_what_the_command_asked(self):
        for version in VERSIONS:
            for case in cases(version):
                text, options = fixture(version, case)
                result = parse.parse(text)
                threads = options.get("threads") or options["num-threads"]
                self.assertEqual(int(threads), result.threads, case)
                if result.test == "fileio":
                    self.assertEqual(options["file-test-mode"], result.mode)
                if result.test == "memory":
                    self.assertEqual(options["memory-oper"], result.mode)

    def test_units_follow_the_metric_table(self):
        for version in VERSIONS:
            for case in cases(version):
                result = parse.parse(fixture(version, case)[0])
                for name, metric in result.metrics.items():
                    self.assertEqual(parse.unit(name), metric.unit)
                    self.assertGreaterEqual(metric.value, 0)


class UnitsAgainstBytesMovedTestCase(unittest.TestCase):
    """0.4 says MB and Mb: the bytes it moved show they are MiB."""

    def test_memory_rate_is_mib_on_both_versions(self):
        for version in VERSIONS:
            for case in cases(version, "memory-"):
                text, options = fixture(version, case)
                metrics = parse.parse(text).metrics
                block = spec_lib.size_in_bytes(options["memory-block-size"])
                from_ops = metrics["ops_per_s"].value * block / MIB
                self.assertAlmostEqual(
                    1.0, metrics["mib_per_s"].value / from_ops, delta=0.01,
                    msg="%s %s" % (version, case))

    def test_legacy_fileio_rate_is_mib(self):
        for case in cases("0.4.12", "fileio-"):
            text, options = fixture("0.4.12", case)
            metrics = parse.parse(text).metrics
            reads, writes = map(int, re.search(
                r"(\d+) reads, (\d+) writes", text).groups())
            block = spec_lib.size_in_bytes(options["file-block-size"])
            moved_mib = (reads + writes) * block / MIB
            expected = moved_mib / metrics["total_time_s"].value
            self.assertAlmostEqual(1.0, metrics["mib_per_s"].value / expected,
                                   delta=0.02, msg=case)

    def test_modern_fileio_rates_are_mib(self):
        for case in cases("1.0.20", "fileio-"):
            text, options = fixture("1.0.20", case)
            metrics = parse.parse(text).metrics
            block = spec_lib.size_in_bytes(options["file-block-size"])
            for per_s, mib in (("reads_per_s", "read_mib_per_s"),
                               ("writes_per_s", "written_mib_per_s")):
                if metrics[per_s].value < 100:
                    continue
                self.assertAlmostEqual(
                    1.0, metrics[mib].value
                    / (metrics[per_s].value * block / MIB),
                    delta=0.01, msg="%s %s" % (case, mib))


class ParseErrorTestCase(unittest.TestCase):

    def test_text_without_version_header(self):
        with self.assertRaises(parse.ParseError) as ctx:
            parse.parse("bash: sysbench: command not found\n")
        self.assertIn("command not found", ctx.exception.raw)

    def test_unknown_test(self):
        text = "sysbench 1.0.20 (using bundled LuaJIT)\n\nHello\n"
        with self.assertRaisesRegex(parse.ParseError, "which sysbench test"):
            parse.parse(text)

    def test_output_cut_before_the_statistics(self):
        text, _ = fixture("1.0.20", "cpu-time")
        cut = text[:text.index("General statistics")]
        with self.assertRaisesRegex(parse.ParseError, "total time") as ctx:
            parse.parse(cut)
        self.assertEqual(cut, ctx.exception.raw)

    def test_fatal_error_output(self):
        text = ("sysbench 1.0.20 (using system LuaJIT 2.1.0-beta3)\n\n"
                "Extra file open flags: directio\n"
                "FATAL: Cannot open file 'test_file.0' errno = 2 "
                "(No such file or directory)\n")
        with self.assertRaises(parse.ParseError):
            parse.parse(text)


class MetricTableTestCase(unittest.TestCase):

    def test_direction(self):
        self.assertTrue(parse.higher_is_better("events_per_s"))
        self.assertFalse(parse.higher_is_better("total_time_s"))
        self.assertFalse(parse.higher_is_better("latency_p99_ms"))
        self.assertEqual("ms", parse.unit("latency_p99_ms"))
        self.assertRaises(KeyError, parse.unit, "bogus")

    def test_cli_names_are_the_documented_ones(self):
        documented = set(shlex.split(
            "events_per_s total_time_s latency_min_ms latency_avg_ms "
            "latency_max_ms latency_p95_ms ops_per_s mib_per_s "
            "requests_per_s reads_per_s writes_per_s fsyncs_per_s "
            "read_mib_per_s written_mib_per_s"))
        self.assertEqual(documented, set(parse.METRICS))
