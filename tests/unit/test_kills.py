"""Every signal of the tree goes through one of three checked places.

A pid is handed out again once its process is reaped (within a minute on
a busy CI host): a kill of a number nobody checked can end any process.
Python sends signals through core.processes (a child not yet reaped, or
a pid checked against its start time); the shell scripts through
tools/openstack-aio/common.sh's signal_recorded (a pid file's process
that started before the file was written) and .ci/run's stop_job (a job
bash has not reaped).
"""

import os
import re
import unittest

TOP = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
SEARCHED = ("rally_container_bench", "tests", "tools", "playbooks", ".ci",
            "benchmarks", "etc")
# (file, shell function or None for Python) where a signal may be sent
ALLOWED = {("rally_container_bench/core/processes.py", None),
           ("tools/openstack-aio/common.sh", "signal_recorded"),
           (".ci/run", "stop_job")}
_PYTHON_SIGNAL = re.compile(
    r"\bos\.kill(pg)?\(|\bpidfd_send_signal\(|\.send_signal\(|\bkill\s+"
    r"(-\w+\s+)*[\"'$%]")
_SHELL_KILL = re.compile(r"(^|[\s;&|(`])(kill|pkill|killall)(\s|$)")
_SHELL_BANGS = ("#!/bin/bash", "#!/bin/sh", "#!/usr/bin/env bash")
_SHELL_FUNCTION = re.compile(r"^(\w[\w-]*)\(\)\s*\{")


def _files():
    for top in SEARCHED:
        for root, dirs, names in os.walk(os.path.join(TOP, top)):
            dirs[:] = [d for d in dirs if d not in ("__pycache__",)]
            for name in names:
                path = os.path.join(root, name)
                yield os.path.relpath(path, TOP)


def signals_sent(relative, text):
    """[(line number, shell function or None, line)] that send a signal."""
    found = []
    shell = relative.endswith(".sh") or text.startswith(_SHELL_BANGS)
    function = None
    for number, line in enumerate(text.splitlines(), 1):
        code = line.split("#", 1)[0] if shell else line
        if shell:
            opened = _SHELL_FUNCTION.match(line)
            if opened:
                function = opened.group(1)
            elif line.startswith("}"):
                function = None
            if _SHELL_KILL.search(code):
                found.append((number, function, line.strip()))
        elif relative.endswith(".py") and not line.lstrip().startswith("#") \
                and _PYTHON_SIGNAL.search(code):
            found.append((number, None, line.strip()))
    return found


class KillsTestCase(unittest.TestCase):

    def test_no_signal_outside_the_checked_places(self):
        stray = []
        for relative in _files():
            if relative == "tests/unit/test_kills.py":
                continue
            try:
                with open(os.path.join(TOP, relative)) as f:
                    text = f.read()
            except (UnicodeDecodeError, OSError):
                continue
            for number, function, line in signals_sent(relative, text):
                if (relative, function) not in ALLOWED:
                    stray.append("%s:%d %s" % (relative, number, line))
        self.assertEqual([], stray)

    def test_the_lint_sees_each_kind_of_kill(self):
        python = ("os.killpg(proc.pid, signal.SIGKILL)\n"
                  "os.kill(pid, 9)\n"
                  "proc.send_signal(signal.SIGINT)\n"
                  "script = 'kill $(cat %s)' % pidfile\n"
                  "proc.kill()  # Popen's own: checks it is not reaped\n")
        self.assertEqual([1, 2, 3, 4], [n for n, _, _ in signals_sent(
            "x.py", python)])
        shell = ("#!/bin/bash\n"
                 "kill \"$(cat \"$pidfile\")\"\n"
                 "stop() {\n"
                 "    [ -n \"$p\" ] && kill -TERM \"$p\"\n"
                 "}\n"
                 "pkill -f dnsmasq\n"
                 "epmd -kill  # not a kill\n"
                 "# kill in a comment\n")
        self.assertEqual([(2, None), (4, "stop"), (6, None)],
                         [(n, f) for n, f, _ in signals_sent("x.sh", shell)])
