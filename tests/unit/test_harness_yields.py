"""decide's settings and harness_yields: Rally in a session of its own at
the lowest CPU priority, Ctrl-C passed on to it.

The "Rally" here is a stand-in (a Python one-liner in Rally's place:
a real Rally task needs an env); the real run on the test cloud is
tasks/args/aio-decide.yaml's (the guide's cloud page).
"""

import argparse
import io
import os
import signal
import subprocess
import sys
import tempfile
import time
import unittest
from unittest import mock

from rally_container_bench.cli import decide as cli_decide
from rally_container_bench.decide import plan as planner
from rally_container_bench.decide import rally_runs
from rally_container_bench.decide import run as decide
from rally_container_bench.decide import settings as decide_settings
from rally_container_bench.engines.native import instance as native

# Prints what the kernel says of its priority, once the parent had the
# time to lower it, then Rally's line that names the task. A process in
# no session's autogroup (a descendant of init that never called setsid:
# the CI's test runner, 2026-11-29) reads its autogroup file empty.
STAND_IN = """
import os, time
time.sleep(1)
words = open("/proc/self/autogroup").read().split() \\
    if os.path.exists("/proc/self/autogroup") else []
group = words[-1] if words else "none"
print("sid-is-pid %s nice %d autogroup %s apart %s" % (
    os.getsid(0) == os.getpid(), os.getpriority(os.PRIO_PROCESS, 0), group,
    os.environ.get("RCBENCH_TWINS_APART")))
print("Task 12345678-1234-1234-1234-123456789012: started")
"""

CATCHES_SIGINT = """
import signal, sys, time
signal.signal(signal.SIGINT, lambda *_: sys.exit(3))
print("ready", flush=True)
time.sleep(30)
"""


class SettingsTestCase(unittest.TestCase):

    def test_the_files_mapping_over_defaults_and_the_command_line_over(self):
        args = {"decide": {"budget_s": 900, "harness_yields": True},
                "platforms": ["native"]}
        settings = decide_settings.settings_of(
            args, {"max_rounds": 2, "budget_s": None})
        self.assertEqual(900, settings["budget_s"])
        self.assertEqual(2, settings["max_rounds"])
        self.assertTrue(settings["harness_yields"])
        self.assertNotIn("decide", args)

    def test_the_command_line_turns_it_off_over_the_file(self):
        parser = argparse.ArgumentParser()
        cli_decide.add_parser(parser.add_subparsers())

        def settings(*argv):
            return decide_settings.settings_of(
                {"decide": {"harness_yields": True}},
                cli_decide.given_settings(parser.parse_args(
                    ["decide", "--out", "o"] + list(argv))))
        self.assertFalse(settings("--harness-yields", "false")[
            "harness_yields"])
        self.assertTrue(settings()["harness_yields"])

    def test_the_budget_is_capped_whoever_set_it(self):
        # README command 1: what its install left of its 10 minutes
        capped = decide_settings.settings_of(
            {"decide": {"budget_s": 600}}, {"budget_s": None}, 480)
        self.assertEqual(480, capped["budget_s"])
        # a shorter budget holds
        self.assertEqual(300, decide_settings.settings_of(
            {"decide": {"budget_s": 900}}, {"budget_s": 300}, 480)[
                "budget_s"])
        with self.assertRaises(ValueError) as caught:
            decide_settings.settings_of({}, None, 0)
        self.assertIn("budget's limit must be > 0", str(caught.exception))

    def test_bad_settings_are_refused_by_name(self):
        for mapping, words in (
                ({"budget": 600}, "unknown setting(s) budget"),
                ({"harness_yields": "yes"}, "true or false"),
                ({"max_rounds": 0}, "max_rounds >= 1")):
            with self.assertRaises(ValueError) as caught:
                decide_settings.settings_of({"decide": mapping})
            self.assertIn(words, str(caught.exception))

    def run_of(self, args):
        return decide.SequentialRun(["false"], "task.yaml", args, "env",
                                    "out", 60, 1, 1, None, io.StringIO(),
                                    harness_yields=True)

    def test_a_cloud_yields_rally_and_its_children_local_its_session(self):
        args = {"platforms": ["native", "docker"], "concurrency": [1],
                "tests": ["quick-cpu"]}
        self.assertEqual(rally_runs.CLOUD, self.run_of(
            dict(args, compute_hosts={"h": {"address": "10.0.0.1"}})
        ).yielding)
        if rally_runs.autogroup_enabled():
            self.assertEqual(rally_runs.LOCAL, self.run_of(args).yielding)

    def test_locally_refused_without_autogroup_before_anything_runs(self):
        args = {"platforms": ["native", "docker"], "concurrency": [1],
                "tests": ["quick-cpu"]}
        with tempfile.NamedTemporaryFile("w") as off:
            off.write("0\n")
            off.flush()
            with mock.patch.object(rally_runs, "AUTOGROUP_ENABLED",
                                   off.name):
                with self.assertRaises(planner.DecideError) as caught:
                    self.run_of(args)
        self.assertIn("needs the kernel's autogroup", str(caught.exception))


class YieldTestCase(unittest.TestCase):

    def run_stand_in(self, harness_yields):
        with tempfile.TemporaryDirectory() as tmp:
            log = os.path.join(tmp, "rally-task.log")
            interrupt = rally_runs.Interrupt()
            uuid, code, _ = rally_runs.run_round(
                [sys.executable, "-c", STAND_IN], "task.yaml", {}, "env",
                log, rally_runs.Progress(600, io.StringIO()),
                [("docker", 1, "quick-cpu", 1)], interrupt=interrupt,
                harness_yields=harness_yields)
            self.assertIsNone(interrupt.forward_to)
            with open(log) as f:
                return uuid, code, f.read()

    def test_rally_runs_in_its_own_session_at_nice_19(self):
        uuid, code, text = self.run_stand_in(rally_runs.CLOUD)
        self.assertEqual(("12345678-1234-1234-1234-123456789012", 0),
                         (uuid, code), text)
        self.assertIn("sid-is-pid True nice 19", text)
        self.assertRegex(text, r"harness_yields: Rally \(pid \d+\) at "
                               r"nice 19")
        if os.path.exists("/proc/self/autogroup"):
            self.assertIn("autogroup 19", text)
            self.assertIn("its session's autogroup nice 19", text)

    def test_locally_only_rallys_session_yields(self):
        # its children (the native twins) keep this priority, each in a
        # session of its own
        uuid, code, text = self.run_stand_in(rally_runs.LOCAL)
        self.assertEqual(0, code, text)
        nice = os.getpriority(os.PRIO_PROCESS, 0)
        self.assertIn("sid-is-pid True nice %d" % nice, text)
        self.assertIn("apart 1", text)
        if os.path.exists("/proc/self/autogroup"):
            self.assertIn("autogroup 19", text)
            self.assertIn("at its session's autogroup nice 19\n", text)

    def test_without_it_rally_stays_in_this_session_at_this_priority(self):
        _, code, text = self.run_stand_in(False)
        self.assertEqual(0, code, text)
        self.assertIn("sid-is-pid False nice %d"
                      % os.getpriority(os.PRIO_PROCESS, 0), text)
        self.assertIn("apart None", text)
        self.assertNotIn("harness_yields", text)


class ForwardTestCase(unittest.TestCase):

    def test_ctrl_c_reaches_rally_in_its_own_session(self):
        # a child in a session of its own, as Rally with harness_yields;
        # its own handler: a test runner may start it with SIGINT ignored
        child = subprocess.Popen(
            [sys.executable, "-c", CATCHES_SIGINT], stdout=subprocess.PIPE,
            text=True, start_new_session=True)
        self.addCleanup(child.wait)
        self.addCleanup(child.kill)
        self.assertEqual("ready\n", child.stdout.readline())
        interrupt = rally_runs.Interrupt()
        interrupt.forward_to = child
        started = time.monotonic()
        interrupt._on_signal(signal.SIGINT, None)
        self.assertTrue(interrupt.seen)
        self.assertEqual(3, child.wait(timeout=10))
        self.assertLess(time.monotonic() - started, 10)
        child.stdout.close()
        with self.assertRaises(KeyboardInterrupt):  # the second stops at once
            interrupt._on_signal(signal.SIGINT, None)


class TwinsApartTestCase(unittest.TestCase):
    """A local run's native commands, in Rally's session or their own."""

    SESSION = ["python3", "-c",
               "import os; print(os.getsid(0) == os.getpid())"]

    def test_apart_where_rally_yields_else_in_its_session(self):
        with mock.patch.dict(os.environ, {native.TWINS_APART: "1"}):
            self.assertEqual("True\n",
                             native.NativeExecutor().run(self.SESSION,
                                                         30).stdout)
        with mock.patch.dict(os.environ):
            os.environ.pop(native.TWINS_APART, None)
            self.assertEqual("False\n",
                             native.NativeExecutor().run(self.SESSION,
                                                         30).stdout)
