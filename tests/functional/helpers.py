"""Shared pieces of the functional tests: a private Rally home (its own
config and SQLite DB, so tests never touch ~/.rally) and the sysbench
binaries of both generations."""

import functools
import json
import os
import re
import subprocess
import sys
import tempfile

TOP = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
BIN = os.path.dirname(sys.executable)
CACHE_HOME = (os.environ.get("XDG_CACHE_HOME")
              or os.path.expanduser("~/.cache"))
_UUID_RE = re.compile(r"Task ([0-9a-f-]{36})")


@functools.lru_cache(maxsize=None)
def sysbench04():
    """Path of sysbench 0.4.12 (built once into the cache), or None."""
    path = os.environ.get("RCBENCH_SYSBENCH04")
    if path:
        return path
    build = subprocess.run([os.path.join(TOP, "tools",
                                         "build-sysbench-0.4.sh")],
                           capture_output=True, text=True)
    return build.stdout.strip() if build.returncode == 0 else None


class RallyHome(object):
    """A throwaway Rally installation state: config, DB, one empty env."""

    def __init__(self):
        self._dir = tempfile.TemporaryDirectory(prefix="rcbench-rally-")
        self.path = self._dir.name
        self.conf = os.path.join(self.path, "rally.conf")
        with open(self.conf, "w") as f:
            f.write("[database]\nconnection = sqlite:///%s\n"
                    % os.path.join(self.path, "rally.sqlite"))
        self.rally("db", "create")
        self.rally("env", "create", "--name", "local")

    def close(self):
        self._dir.cleanup()

    def rally(self, *args, check=True, timeout=900):
        # HOME too: Rally keeps the default env in ~/.rally/globals. The
        # guest image cache stays where the tests' user keeps it.
        env = dict(os.environ, COLUMNS="250", HOME=self.path,
                   XDG_CACHE_HOME=CACHE_HOME)
        proc = subprocess.run(
            [os.path.join(BIN, "rally"), "--config-file", self.conf]
            + list(args), capture_output=True, text=True, cwd=TOP, env=env,
            timeout=timeout)
        if check and proc.returncode != 0:
            raise AssertionError("rally %s exited %d:\n%s\n%s"
                                 % (" ".join(args), proc.returncode,
                                    proc.stdout[-3000:], proc.stderr[-3000:]))
        return proc

    def start(self, task_file, *extra):
        """Run a task to its end; return (uuid, stdout)."""
        proc = self.rally("task", "start", task_file, *extra, check=False)
        match = _UUID_RE.search(proc.stdout + proc.stderr)
        if not match:
            raise AssertionError("no task started:\n%s\n%s"
                                 % (proc.stdout[-3000:], proc.stderr[-3000:]))
        uuid = match.group(1)
        status = self.rally("task", "status", uuid).stdout
        if "Task %s: finished" % uuid not in status:
            raise AssertionError("task %s did not finish: %s\n%s"
                                 % (uuid, status, proc.stderr[-3000:]))
        return uuid, proc.stdout

    def results(self, uuid):
        """Rally's JSON report of one task, as a dict."""
        out = os.path.join(self.path, uuid + ".json")
        self.rally("task", "report", uuid, "--json", "--out", out)
        with open(out) as f:
            return json.load(f)


def processes(pattern):
    """PIDs of live (not zombie) processes whose command line has pattern."""
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open("/proc/%s/cmdline" % pid, "rb") as f:
                cmdline = f.read().replace(b"\0", b" ").decode()
            with open("/proc/%s/stat" % pid) as f:
                state = f.read().rsplit(")", 1)[-1].split()[0]
        except OSError:
            continue
        if pattern in cmdline and state != "Z" and int(pid) != os.getpid():
            found.append(int(pid))
    return found


def workloads(report):
    for task in report["tasks"]:
        for subtask in task["subtasks"]:
            for workload in subtask["workloads"]:
                yield workload


def atomic_names(iteration):
    return [action["name"] for action in iteration["atomic_actions"]]


def additive(iteration):
    """{title: {row label: value}} of an iteration's additive output."""
    return {item["title"]: dict(item["data"])
            for item in iteration["output"]["additive"]}
