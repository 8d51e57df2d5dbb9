"""Failure paths of the sysbench workload runner and the scenario mixin.

STAND-IN: ScriptedExecutor replays recorded real sysbench outputs instead
of running processes, to reach failure orders that a real sysbench rarely
produces on demand. The real paths run in tests/functional.
"""

import os
import subprocess
import tempfile
import time
import unittest

from rally import plugins as rally_plugins
from rally.task import scenario

from rally_container_bench.core import base
from rally_container_bench.images import sysbench_build as build
from rally_container_bench.report import overlap
from rally_container_bench.workloads import common
from rally_container_bench.workloads.sysbench import parse as sysbench_parse
from rally_container_bench.workloads.sysbench import presets
from rally_container_bench.workloads.sysbench import run as sysbench_run

FIXTURES = os.path.join(os.path.dirname(__file__), "..", "fixtures",
                        "sysbench", "1.0.20")


def recorded(case):
    with open(os.path.join(FIXTURES, case + ".txt")) as f:
        return f.read()


class ScriptedExecutor(base.Executor):
    """Stand-in executor: answers by the sysbench phase in the argv."""

    kind = "scripted"

    def __init__(self, answers, started_inside=1700000000.25):
        self.answers = answers
        self.calls = []
        self.started_inside = started_inside

    def run(self, argv, timeout, cwd=None):
        if list(argv[:2]) == ["sh", "-c"] and argv[2] in (
                build.OWN_SCRIPT, build.BUNDLE_SCRIPT):
            # a build's files read (task/scenarios/sysbench_builds.py)
            return base.CommandResult("sha256sum", 0, "%s  %s\n" % (
                "ab" * 32, argv[4]), "", 0.1)
        stamped = list(argv[:2]) == ["sh", "-c"]
        if stamped:  # common.stamped: the clock, then the command
            argv = argv[4:]
        if list(argv) == ["date", "+%s.%N"]:  # the clock check's reading
            return base.CommandResult("date", 0, "%.9f\n" % time.time(),
                                      "", 0.1)
        self.calls.append(list(argv))
        key = "version" if "--version" in argv else argv[-1]
        if argv[1] == "memory":
            key = "memory-" + key
        exit_code, stdout = self.answers.get(key, (0, ""))
        if stamped:
            stdout = "%.9f\n%s" % (self.started_inside, stdout)
        return base.CommandResult(" ".join(argv), exit_code, stdout, "", 0.1)


VERSION = (0, "sysbench 1.0.20 (using system LuaJIT 2.1.0-beta3)\n")


class RunTestCase(unittest.TestCase):

    def test_fileio_cleanup_runs_when_the_run_fails(self):
        executor = ScriptedExecutor({"run": (1, "FATAL: boom")})
        with self.assertRaisesRegex(sysbench_run.SysbenchError,
                                    "fileio.rndrd run exited 1.*boom"):
            sysbench_run.run_test(executor, presets.get("quick-fileio-rndrd"),
                                  "1.0.20", "sysbench", "/tmp", 10)
        self.assertEqual(["prepare", "run", "cleanup"],
                         [argv[-1] for argv in executor.calls])

    def test_unparseable_output_keeps_the_raw_text(self):
        executor = ScriptedExecutor({"run": (0, "garbage\n")})
        with self.assertRaises(sysbench_run.SysbenchError) as ctx:
            sysbench_run.run_test(executor, presets.get("quick-cpu"),
                                  "1.0.20", "sysbench", None, 10)
        self.assertEqual("garbage\n", ctx.exception.raw)

    def test_direct_io_refusal_gets_a_hint(self):
        executor = ScriptedExecutor({"run": (
            1, "FATAL: Cannot open file 'test_file.0' errno = 22")})
        with self.assertRaisesRegex(sysbench_run.SysbenchError,
                                    "may not support O_DIRECT"):
            sysbench_run.run_test(executor, presets.get("quick-fileio-seqrd"),
                                  "1.0.20", "sysbench", "/tmp", 10)

    def test_timer_wraps_only_the_run(self):
        timed = []

        class Timer(object):
            def __init__(self, label):
                self.label = label

            def __enter__(self):
                timed.append((self.label, len(executor.calls)))

            def __exit__(self, *exc):
                timed.append((self.label, len(executor.calls)))

        executor = ScriptedExecutor({"run": (0, recorded("fileio-rndwr"))})
        run = sysbench_run.run_test(
            executor, presets.get("quick-fileio-rndwr"), "1.0.20",
            "sysbench", "/tmp", 10, timed=Timer)
        # prepare is call 1 (before the timer), run is call 2 (inside).
        self.assertEqual([("fileio.rndwr", 1), ("fileio.rndwr", 2)], timed)
        self.assertEqual("fileio", run.result.test)

    def test_version_detection_errors(self):
        missing = ScriptedExecutor({"version": (127, "")})
        with self.assertRaisesRegex(sysbench_run.SysbenchError,
                                    "is sysbench installed"):
            sysbench_run.detect_version(missing, "sysbench", 5)
        odd = ScriptedExecutor({"version": (0, "hello\n")})
        with self.assertRaisesRegex(sysbench_run.SysbenchError, "no 'sysb"):
            sysbench_run.detect_version(odd, "sysbench", 5)


class StampTestCase(unittest.TestCase):

    def test_the_command_runs_after_the_clock(self):
        self.assertEqual(["sh", "-c", 'date +%s.%N; exec "$@"', "sh",
                          "sysbench", "cpu", "run"],
                         common.stamped(["sysbench", "cpu", "run"]))

    def test_the_stamp_is_split_from_the_output(self):
        self.assertEqual((1700000000.123456789, "sysbench 1.0.20\n"),
                         common.split_stamp(
                             "1700000000.123456789\nsysbench 1.0.20\n"))

    def test_a_date_without_nanoseconds_gives_no_stamp(self):
        # busybox's date prints %N literally: the line goes, no stamp.
        self.assertEqual((None, "sysbench 1.0.20\n"),
                         common.split_stamp("1700000000.N\nsysbench 1.0.20\n"))

    def _scheduled(self, start, path=None):
        """(the stamp, seconds the whole command took) of a real sh."""
        env = dict(os.environ, PATH=path or os.environ["PATH"])
        sent = time.time()
        out = subprocess.run(common.stamped(["echo", "ran"], start),
                             capture_output=True, text=True, check=True,
                             env=env).stdout
        took = time.time() - sent
        stamp, rest = common.split_stamp(out)
        self.assertEqual("ran\n", rest)
        return stamp, took

    def test_a_scheduled_run_starts_at_its_time_not_before(self):
        at = time.time() + 0.5
        stamp, _ = self._scheduled(common.Start(at=at, at_most=5))
        self.assertGreaterEqual(stamp, at - 0.002)
        self.assertLess(stamp, at + 0.3)

    def test_a_start_already_past_runs_at_once(self):
        at = time.time() - 10
        _, took = self._scheduled(common.Start(at=at, at_most=5))
        self.assertLess(took, 0.5)

    def test_a_scheduled_wait_is_bounded(self):
        # a clock read wrongly (the start a minute away) must not stall
        stamp, took = self._scheduled(common.Start(at=time.time() + 60,
                                                   at_most=0.3))
        self.assertGreaterEqual(took, 0.3)
        self.assertLess(took, 2)

    def test_a_date_without_nanoseconds_starts_at_once(self):
        # Stand-in for busybox's date (no %N): a date that prints it
        # literally, first on PATH.
        with tempfile.TemporaryDirectory() as bin_dir:
            fake = os.path.join(bin_dir, "date")
            with open(fake, "w") as f:
                f.write('#!/bin/sh\necho "1700000000${1#+%s}" | '
                        'sed "s/%//g"\n')
            os.chmod(fake, 0o755)
            stamp, took = self._scheduled(
                common.Start(at=time.time() + 5, at_most=5),
                path=bin_dir + os.pathsep + os.environ["PATH"])
        self.assertIsNone(stamp)
        self.assertLess(took, 2)

    def test_no_date_leaves_the_output_alone(self):
        self.assertEqual((None, "sysbench 1.0.20\n"),
                         common.split_stamp("sysbench 1.0.20\n"))


class MixinTestCase(unittest.TestCase):

    def make_scenario(self):
        rally_plugins.load()
        cls = scenario.Scenario.get("NativeHost.sysbench")
        return cls(context={})

    def test_one_failed_test_keeps_the_others(self):
        executor = ScriptedExecutor({
            "version": VERSION,
            "run": (0, recorded("cpu-events")),
            "memory-run": (1, "FATAL: out of memory"),
        })
        bench = self.make_scenario()
        with self.assertRaisesRegex(Exception,
                                    "1 of 3 tests failed: "
                                    ".*memory.read run exited 1"):
            bench.run_tests(
                executor, ["quick-cpu", "quick-memory-read", "quick-cpu"],
                "sysbench", None, timeout=10)
        titles = [item["title"] for item in bench._output["additive"]]
        self.assertEqual(["sysbench cpu", "sysbench cpu"], titles)
        actions = [a["name"] for a in bench.atomic_actions()]
        self.assertEqual(["sysbench.cpu", "sysbench.memory.read",
                          "sysbench.cpu"], actions)
        environment = dict(bench._output["complete"][0]["data"]["rows"])
        self.assertEqual("1.0.20", environment["sysbench_version"])
        self.assertEqual("scripted", environment["driver"])

    def test_the_run_inside_the_instance_is_a_child_action(self):
        executor = ScriptedExecutor({"version": VERSION,
                                     "run": (0, recorded("cpu-events"))})
        bench = self.make_scenario()
        bench.run_tests(executor, ["quick-cpu"], "sysbench", None,
                        timeout=10)
        (action,) = bench.atomic_actions()
        (inside,) = action["children"]
        self.assertEqual(overlap.INSIDE, inside["name"])
        # This stand-in's clock answers in step with the host's: no offset.
        self.assertEqual(1700000000.25, inside["started_at"])
        total = sysbench_parse.parse(recorded("cpu-events")).metrics[
            "total_time_s"].value
        self.assertAlmostEqual(total, inside["finished_at"]
                               - inside["started_at"], places=5)

    def test_the_output_of_a_failed_test_is_attached(self):
        garbage = "\n".join("line %d" % i for i in range(100))
        executor = ScriptedExecutor({"version": VERSION,
                                     "memory-run": (0, garbage)})
        bench = self.make_scenario()
        with self.assertRaisesRegex(Exception, "memory.read output is "
                                               "unreadable"):
            bench.run_tests(executor, ["quick-memory-read"],
                            "sysbench", None, timeout=10)
        (raw,) = [item for item in bench._output["complete"]
                  if item["chart_plugin"] == "TextArea"]
        self.assertEqual("sysbench memory.read failed: its output",
                         raw["title"])
        self.assertEqual("... 40 lines left out ...", raw["data"][0])
        self.assertEqual("line 99", raw["data"][-1])
        self.assertEqual(61, len(raw["data"]))

    def test_a_missing_sysbench_fails_with_what_the_shell_said(self):
        executor = ScriptedExecutor({
            "version": (127, "sh: 1: sysbench: not found")})
        bench = self.make_scenario()
        with self.assertRaisesRegex(Exception, "is sysbench installed"):
            bench.run_tests(executor, ["quick-cpu"], "sysbench",
                            None, timeout=10)
        (raw,) = bench._output["complete"]
        self.assertEqual(["sh: 1: sysbench: not found"], raw["data"])
