"""Shared pieces of the functional tests: a private Rally home (its own
config and SQLite DB, so tests never touch ~/.rally) and the sysbench
binaries of both generations."""

import atexit
import functools
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import unittest
import uuid

from rally_container_bench.core import processes as core_processes
from rally_container_bench.decide import rally_tasks
from rally_container_bench.engines import catalog
from rally_container_bench.engines import registry
from rally_container_bench import opts
from rally_container_bench.validity import cpu

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


# Tests on two workers are foreign load to each other: a test that is not
# about disturbed runs measures as before, never re-measured
# (tests/functional/test_decide.py sets the real limit), not even for a
# twin the other worker slowed (test_run_level.py sets a bound).
QUIET_OPTIONS = {"foreign_load_limit": 64, "run_level_bound": 0}


def ours(engine, conf=None):
    """Names of this package's instances in ``engine``'s store, sorted.

    Both views' instances: the store's own listing, as cleanup asks it
    (engines.catalog.store_of).
    """
    return sorted(
        catalog.store_of(engine, conf or opts.register()).list_ours())


def discard_if_left(engine, name, conf=None):
    """Delete instance ``name`` of ``engine``'s store if it is still there."""
    conf = conf or opts.register()
    if name in ours(engine, conf):
        catalog.store_of(engine, conf).discard(name)


class RallyHome(object):
    """A throwaway Rally installation state: config, DB, its envs.

    ``options``: [container_bench] options of its rally.conf (over
    QUIET_OPTIONS). ``envs``: (name, spec file or None) of each env,
    the last the default; without a spec an empty env.

    The DB and Rally's globals are copies of ones the real CLI made once
    per process and envs (``rally db create`` and ``rally env create``):
    those two processes took 6-9 s of CPU per home (Rally loads every
    plugin of rally-openstack for env create), some 400 s of CPU over a
    functional run on two cores. Copied, each home starts in what the
    CLI made: an empty database with its envs.
    """

    def __init__(self, options=None, envs=(("local", None),)):
        options = dict(QUIET_OPTIONS, **(options or {}))
        self._dir = tempfile.TemporaryDirectory(prefix="rcbench-rally-")
        self.path = self._dir.name
        self._ended = set()  # tasks whose report is final
        self._errors = ""
        self.conf = _write_conf(self.path, options)
        _copy_state(_made_by_rally(tuple(envs)), self.path)

    @classmethod
    def existing(cls, path, conf):
        """The Rally of a HOME made elsewhere (its DB where conf says)."""
        home = cls.__new__(cls)
        home.path, home.conf = path, conf
        home._ended, home._errors = set(), ""
        return home

    def close(self):
        self._dir.cleanup()

    def _argv_and_env(self, args):
        # HOME too: Rally keeps the default env in ~/.rally/globals. The
        # guest image cache stays where the tests' user keeps it.
        env = dict(os.environ, COLUMNS="250", HOME=self.path,
                   XDG_CACHE_HOME=CACHE_HOME)
        return ([os.path.join(BIN, "rally"), "--config-file", self.conf]
                + list(args), env)

    def popen(self, *args, **kwargs):
        """rally <args> in the background, in a session of its own.

        A signal to its process group is then what a terminal's Ctrl-C
        sends. Stop it with core.processes.end_group(proc).
        """
        argv, env = self._argv_and_env(args)
        return subprocess.Popen(argv, env=env, cwd=TOP,
                                start_new_session=True, **kwargs)

    def rally(self, *args, check=True, timeout=900):
        argv, env = self._argv_and_env(args)
        proc = subprocess.run(argv, capture_output=True, text=True, cwd=TOP,
                              env=env, timeout=timeout)
        if check and proc.returncode != 0:
            raise AssertionError("rally %s exited %d:\n%s\n%s"
                                 % (" ".join(args), proc.returncode,
                                    proc.stdout[-3000:], proc.stderr[-3000:]))
        return proc

    def validate_each(self, task_file, task_args, args_file=None):
        """Rally's task validation once per dict of task_args.

        In one process, four at a time (each waits mostly on the cloud's
        APIs), through Rally's API as ``rally task validate`` calls it:
        the same rendering of the task with args_file's args under
        task_args, the same validation against the home's default env.
        As 14 rally processes (the cloud's bad-input cases) they spent
        ~6 s of CPU each loading Rally and every plugin, on the cores
        the cloud's other tests use. ``rally task validate`` itself
        refusing bad input: test_rally_native, test_guest_faults.
        Returns a CompletedProcess per dict, in the order given: exit
        status 1 and the error in stderr, or 0.
        """
        proc = subprocess.run(
            [sys.executable, "-c", _VALIDATE, self.conf, task_file,
             args_file or "", json.dumps(list(task_args))],
            capture_output=True, text=True, cwd=TOP, timeout=600,
            env=self._argv_and_env(())[1])
        if proc.returncode != 0:
            raise AssertionError("validating failed: %s" % proc.stderr[-3000:])
        return [subprocess.CompletedProcess([], status, "", error)
                for status, error in json.loads(proc.stdout)]

    def start(self, task_file, *extra, timeout=900):
        """Run a task to its end; return (uuid, stdout)."""
        proc = self.rally("task", "start", task_file, *extra, check=False,
                          timeout=timeout)
        return self.finished(proc.stdout, proc.stderr), proc.stdout

    def finished(self, stdout, stderr=""):
        """The uuid of the task rally task start printed; it finished."""
        match = _UUID_RE.search(stdout + stderr)
        if not match:
            raise AssertionError("no task started:\n%s\n%s"
                                 % (stdout[-3000:], stderr[-3000:]))
        uuid = match.group(1)
        status = self._read(uuid)
        if status != "finished":
            raise AssertionError("task %s did not finish: %s\n%s"
                                 % (uuid, status, (stderr or stdout)[-3000:]))
        return uuid

    def results(self, uuid):
        """Rally's JSON report of one task, as a dict.

        Read again while the task runs: only an ended task's is kept.
        """
        out = os.path.join(self.path, uuid + ".json")
        if uuid not in self._ended:
            self._read(uuid)
        if not os.path.exists(out):
            raise AssertionError("no report of task %s (%s)"
                                 % (uuid, self._errors))
        with open(out) as f:
            return json.load(f)

    def _read(self, uuid):
        """The task's status; its JSON report to <home>/<uuid>.json.

        One process reading Rally's database (rally_reads), not rally
        task status and rally task report: each of those spent 2.5-5.5 s
        of CPU starting and loading Rally's plugins, for every task of
        every test.
        """
        proc = subprocess.run(
            [sys.executable, "-c", _READ, self.conf, uuid,
             os.path.join(self.path, uuid + ".json")],
            capture_output=True, text=True, timeout=300,
            env=dict(os.environ, HOME=self.path))
        if proc.returncode != 0:
            raise AssertionError("reading task %s failed: %s"
                                 % (uuid, proc.stderr[-3000:]))
        self._errors = proc.stderr[-3000:]
        status = proc.stdout.strip()
        if status in ("finished", "aborted", "crashed"):
            self._ended.add(uuid)
        return status


def _write_conf(path, options):
    conf = os.path.join(path, "rally.conf")
    with open(conf, "w") as f:
        f.write("[database]\nconnection = sqlite:///%s\n"
                % os.path.join(path, "rally.sqlite"))
        f.write("[container_bench]\n")
        for name, value in sorted(options.items()):
            f.write("%s = %s\n" % (name, value))
    return conf


# The DB, and Rally's default env in its globals
_STATE = ("rally.sqlite", os.path.join(".rally", "globals"))
_made = {}  # envs -> a directory with the state the CLI made
_made_lock = threading.Lock()


def _made_by_rally(envs):
    """A directory whose state `rally db create` and `env create` made."""
    with _made_lock:
        if envs not in _made:
            made = tempfile.TemporaryDirectory(prefix="rcbench-rally-made-")
            atexit.register(made.cleanup)
            home = RallyHome.existing(
                made.name, _write_conf(made.name, QUIET_OPTIONS))
            home.rally("db", "create")
            for name, spec in envs:
                args = ["--spec", spec] if spec else []
                proc = home.rally("env", "create", "--name", name, *args,
                                  check=False)
                if proc.returncode != 0:
                    # Rally prints a spec whole (a cloud's password too)
                    shown = (" --spec %s (output not shown: it holds "
                             "credentials)" % spec if spec else
                             ":\n" + proc.stdout[-3000:] + proc.stderr)
                    raise AssertionError("rally env create --name %s "
                                         "failed%s" % (name, shown))
            _made[envs] = made
        return _made[envs].name


def _copy_state(made, path):
    os.makedirs(os.path.join(path, ".rally"), exist_ok=True)
    for name in _STATE:
        shutil.copyfile(os.path.join(made, name), os.path.join(path, name))


_READ = """import sys
from rally_container_bench.decide import rally_reads
conf, uuid, out = sys.argv[1:]
reads = rally_reads.RallyReads(conf)
status = reads.status(uuid)
try:
    reads.export([uuid], "json", out)
except rally_reads.RallyReadError as e:
    print(e, file=sys.stderr)
print(status)
"""


# rally task validate's steps (rally.cli: the globals, the API on the
# home's config, every plugin; its task rendered with the args file's
# args under each dict's), in one process for many dicts of task args.
_VALIDATE = """import json, logging, os, sys
from concurrent import futures
import yaml
from rally import api, plugins
from rally.cli import envutils
conf, task_file, args_file, cases = sys.argv[1:]
envutils.load_globals()
rally = api.API(config_args=["--config-file", conf])
plugins.load()
logging.getLogger("rally").setLevel(logging.CRITICAL)
with open(task_file) as f:
    template = f.read()
base = {}
if args_file:
    with open(args_file) as f:
        base = yaml.safe_load(f)
def validate(args):
    try:
        task = yaml.safe_load(rally.task.render_template(
            task_template=template,
            template_dir=os.path.dirname(task_file) or "./",
            **dict(base, **args)))
        rally.task.validate(deployment=os.environ[envutils.ENV_ENV],
                            config=task)
    except Exception as e:
        return 1, "%s: %s" % (type(e).__name__, e)
    return 0, ""
with futures.ThreadPoolExecutor(max_workers=4) as pool:
    print(json.dumps(list(pool.map(validate, json.loads(cases)))))
"""


def docker_conf():
    """The options; a class is skipped (SkipTest) where Docker cannot run."""
    conf = opts.register()
    usable, why = registry.instance_class("docker").check(conf)
    if not usable:
        raise unittest.SkipTest(why)
    return conf


class DockerRallyTestCase(unittest.TestCase):
    """A private Rally home; skipped (with the reason) without Docker."""

    @classmethod
    def setUpClass(cls):
        cls.conf = docker_conf()
        cls.home = RallyHome()

    @classmethod
    def tearDownClass(cls):
        cls.home.close()

    def containers(self, uuid=None, home=None):
        """Docker containers with Rally-made names (of task uuid, or any).

        The task is looked up in ``home``, the class's by default. Rally
        names them after the task's workloads, not the task (none before
        Rally has stored the first workload).
        """
        owners = None
        if uuid:
            owners = [w["uuid"] for w in workloads(
                (home or self.home).results(uuid))]
        matches = rally_tasks.name_matcher(owners)
        return [n for n in ours("docker", self.conf) if matches(n)]


def firewalled_docker_network(testcase, conf):
    """A Docker network whose bridge drops SSH (port 22); its name.

    Removed (network and iptables rule) when testcase ends.
    """
    import docker
    client = docker.DockerClient(base_url=conf.docker_url)
    testcase.addCleanup(client.close)
    suffix = uuid.uuid4().hex[:6]
    bridge = "rcbfw" + suffix
    network = client.networks.create(
        "rcbench-firewalled-" + suffix, driver="bridge",
        options={"com.docker.network.bridge.name": bridge})
    testcase.addCleanup(network.remove)
    rule = ["OUTPUT", "-o", bridge, "-p", "tcp", "--dport", "22", "-j",
            "DROP"]
    subprocess.run(["iptables", "-I"] + rule, check=True)
    testcase.addCleanup(subprocess.run, ["iptables", "-D"] + rule,
                        check=True)
    return network.name


def processes(pattern):
    """PIDs of live (not zombie) processes whose command line has pattern."""
    found = []
    for pid in map(int, filter(str.isdigit, os.listdir("/proc"))):
        try:
            with open("/proc/%d/cmdline" % pid, "rb") as f:
                cmdline = f.read().replace(b"\0", b" ").decode()
        except OSError:
            continue
        if pattern in cmdline and pid != os.getpid() \
                and core_processes.running(pid):
            found.append(pid)
    return found


def _host_cpu():
    with open("/proc/stat") as f:
        times, _, running = cpu.parse_stat(f.read())
    return times, running


def wait_for_quiet_host(max_busy=0.15, window=2.0, timeout=120):
    """Wait until the CPUs were mostly idle over one window (bounded).

    For a test that measures how many processes run at once: the tail of
    the tests before it (engines removing instances, page cache being
    written back) delays some of its starts. Returns (seconds waited,
    the last window's {busy, steal, running_max}); never fails.
    """
    started = time.monotonic()
    while True:
        before = _host_cpu()
        time.sleep(window)
        load = cpu.host_load(before, _host_cpu())
        waited = time.monotonic() - started
        if (load["busy"] is not None and load["busy"] <= max_busy) or (
                waited >= timeout):
            return waited, load


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


def cpu_and_memory_rates(iteration):
    """(cpu events/s, memory read MiB/s) of a quick-cpu + memory iteration."""
    out = additive(iteration)
    return (out["sysbench cpu"]["events_per_s (events/s)"],
            out["sysbench memory.read"]["mib_per_s (MiB/s)"])


def key_value_tables(iteration):
    """{title: {key: value}} of an iteration's two-column tables.

    Wider tables (the per-test "validity" rows) are left out.
    """
    return {table["title"]: dict(table["data"]["rows"])
            for table in iteration["output"]["complete"]
            if table["chart_plugin"] == "Table"
            and len(table["data"]["cols"]) == 2}


def table_rows(iteration, title):
    """[{column: value}] of the iteration's complete table ``title``."""
    for table in iteration.get("output", {}).get("complete", []):
        if table.get("title") == title:
            columns = table["data"]["cols"]
            return [dict(zip(columns, row)) for row in table["data"]["rows"]]
    return []


def environment(iteration):
    """{key: value} of an iteration's "environment" table."""
    return key_value_tables(iteration).get("environment", {})


def sysbench_build_id(described):
    """The build id in an environment's sysbench_build entry."""
    match = re.search(r", build ([0-9a-f]{12}) ", described)
    if not match:
        raise AssertionError("no build id in %r" % described)
    return match.group(1)


def usable_conf(testcase, driver_name):
    """The options; skips the test where driver_name cannot run."""
    conf = opts.register()
    usable, why = registry.instance_class(driver_name).check(conf)
    if not usable:
        testcase.skipTest(why)
    return conf


CHROMIUM = shutil.which("chromium")


def headless_chromium(profile):
    """Chromium's argv, headless, with nothing of its own on the network."""
    return [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu",
            "--disable-quic", "--no-first-run",
            "--disable-background-networking", "--disable-component-update",
            "--disable-sync", "--user-data-dir=" + profile]


def offline_dom(url, profile, budget_ms=10000):
    """The DOM Chromium renders at url, offline.

    Every request of the page goes to a closed port: nothing reaches the
    network.
    """
    proc = subprocess.run(
        headless_chromium(profile)
        + ["--proxy-server=127.0.0.1:9",
           "--virtual-time-budget=%d" % budget_ms, "--dump-dom", url],
        capture_output=True, text=True, timeout=120)
    return proc.stdout
