import json
import os
import shlex
import unittest

from rally_container_bench.workloads.fio import command
from rally_container_bench.workloads.fio import parse
from rally_container_bench.workloads.fio import presets
from rally_container_bench.workloads.fio import spec as spec_lib

FIXTURES = os.path.join(os.path.dirname(__file__), "..", "..", "fixtures",
                        "fio", "3.33")
MIB = 1 << 20


def fixture(case):
    with open(os.path.join(FIXTURES, case + ".json")) as f:
        return f.read()


class ParseRecordedOutputTestCase(unittest.TestCase):
    """Real fio 3.33 JSON: the metrics agree with the bytes and times."""

    def check_direction(self, metrics, stats, direction):
        seconds = stats["runtime"] / 1000.0
        self.assertAlmostEqual(stats["io_bytes"] / seconds / MIB,
                               metrics[direction + "_mib_per_s"].value,
                               delta=0.01 * metrics[direction
                                                    + "_mib_per_s"].value)
        self.assertAlmostEqual(stats["total_ios"] / seconds,
                               metrics[direction + "_iops"].value,
                               delta=0.01 * metrics[direction
                                                    + "_iops"].value)
        p50 = metrics[direction + "_clat_p50_ms"].value
        p99 = metrics[direction + "_clat_p99_ms"].value
        self.assertLessEqual(p50, p99)
        self.assertEqual("ms", metrics[direction + "_clat_p99_ms"].unit)

    def test_each_direction_that_moved_data(self):
        for case, directions in (("randread", ["read"]),
                                 ("seqwrite", ["write"]),
                                 ("randrw", ["read", "write"])):
            with self.subTest(case=case):
                text = fixture(case)
                job = json.loads(text)["jobs"][0]
                result = parse.parse(text)
                self.assertEqual("3.33", result.version)
                seen = sorted({name.split("_")[0]
                               for name in result.metrics})
                self.assertEqual(directions, seen)
                for direction in directions:
                    self.check_direction(result.metrics, job[direction],
                                         direction)

    def test_rwmixread_shows_in_the_split(self):
        metrics = parse.parse(fixture("randrw")).metrics
        share = metrics["read_iops"].value / (metrics["read_iops"].value
                                              + metrics["write_iops"].value)
        self.assertAlmostEqual(0.7, share, delta=0.1)

    def test_notes_before_the_document_are_skipped(self):
        text = "fio: note: something\n" + fixture("randread")
        self.assertIn("read_iops", parse.parse(text).metrics)

    def test_failed_job_is_an_error_with_the_output(self):
        text = fixture("error-cannot-create")
        with self.assertRaisesRegex(parse.ParseError,
                                    "fio job failed with error 2") as ctx:
            parse.parse(text)
        self.assertEqual(text, ctx.exception.raw)

    def test_not_json(self):
        for text in ("", "fio: unrecognized option\n", "{ broken"):
            with self.subTest(text=text):
                self.assertRaises(parse.ParseError, parse.parse, text)

    def test_direction_of_metrics(self):
        self.assertTrue(parse.higher_is_better("read_iops"))
        self.assertTrue(parse.higher_is_better("write_mib_per_s"))
        self.assertFalse(parse.higher_is_better("read_clat_p99_ms"))


class SpecAndCommandTestCase(unittest.TestCase):

    def test_recorded_commands_are_what_build_argv_writes(self):
        # The fixtures were recorded with build_argv's options.
        for case, fields in (
                ("randread", dict(rw="randread", bs="4k", size="16M",
                                  runtime=1)),
                ("seqwrite", dict(rw="write", bs="1M", size="32M")),
                ("randrw", dict(rw="randrw", bs="4k", size="16M",
                                runtime=1, rwmixread=70))):
            with self.subTest(case=case):
                with open(os.path.join(FIXTURES, case + ".cmd")) as f:
                    recorded = sorted(shlex.split(f.read()))
                built = command.build_argv(spec_lib.from_dict(fields),
                                           "/tmp")
                self.assertEqual(recorded, sorted(built))

    def test_invalid_jobs_say_why(self):
        cases = (({"rw": "sideways"}, "rw must be one of"),
                 ({}, "needs rw"),
                 ({"rw": "read", "bs": "4x"}, "bs must be a size"),
                 ({"rw": "read", "bs": "1M", "size": "4k"}, "larger than"),
                 ({"rw": "read", "rwmixread": 50}, "rwmixread applies"),
                 ({"rw": "randrw", "rwmixread": 101}, "0..100"),
                 ({"rw": "read", "iodepth": 0}, "iodepth"),
                 ({"rw": "read", "direct": "yes"}, "direct must be"),
                 ({"rw": "read", "threads": 2},
                  "unknown parameter.s. of a fio job"),
                 ({"rw": "read", "name": "Big Name"}, "name must be"))
        for fields, message in cases:
            with self.subTest(fields=fields):
                with self.assertRaisesRegex(spec_lib.FioSpecError, message):
                    spec_lib.from_dict(fields)

    def test_time_based_only_with_runtime(self):
        argv = command.build_argv(presets.get("fio-quick-seqread"), "/w")
        self.assertNotIn("--time_based", argv)
        argv = command.build_argv(presets.get("fio-quick-randread"), "/w/")
        self.assertIn("--time_based", argv)
        self.assertIn("--filename=/w/rcbench-fio.dat", argv)
        self.assertEqual(["rm", "-f", "/w/rcbench-fio.dat"],
                         command.cleanup_argv("/w/"))

    def test_every_preset_is_valid_and_labelled_by_rw(self):
        for name in presets.NAMES:
            spec = presets.get(name)
            self.assertEqual(spec.rw, spec.label)
        self.assertEqual("mine", spec_lib.from_dict(
            {"rw": "read", "name": "mine"}).label)

    def test_version(self):
        self.assertEqual("3.33", command.parse_version("fio-3.33\n"))
        self.assertRaises(command.VersionError, command.parse_version,
                          "sysbench 1.0.20")
