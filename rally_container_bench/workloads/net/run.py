"""Run iperf3 and http tests: the server inside the instance (through its
Executor), the client on the Rally host (``client``, a NativeExecutor).

No Rally import. ``endpoint`` is a base.Endpoint: the port the server
listens on inside, and host:port where the client reaches it. Only the
client's run is inside ``timed(label)``; the server is always stopped and
its files removed, also when the client failed.
"""

import contextlib
import posixpath
import shlex
import time

from rally_container_bench.core import base
from rally_container_bench.core import processes
from rally_container_bench.workloads import common
from rally_container_bench.workloads import metrics
from rally_container_bench.workloads.net import http
from rally_container_bench.workloads.net import iperf3
from rally_container_bench.workloads.net import presets as preset_lib

LISTEN_POLL_S = 0.2


class NetworkTestError(common.WorkloadError):
    """A network test could not run or its output could not be read."""


def iperf3_version(executor, timeout):
    result = _version_output(executor, ["iperf3", "--version"], timeout,
                             "iperf3")
    return _parsed(iperf3.parse_version, result.stdout, "iperf3 --version")


def nginx_version(executor, timeout):
    result = _version_output(executor, ["nginx", "-v"], timeout,
                             "nginx-light")
    return _parsed(http.parse_nginx_version, result.stdout + result.stderr,
                   "nginx -v")


def _version_output(executor, argv, timeout, package):
    try:
        result = executor.run(argv, timeout)
    except base.DriverError as e:
        raise NetworkTestError("%s is not usable: %s" % (argv[0], e))
    if result.exit_code != 0:
        raise NetworkTestError("%s exited %d (is %s installed?)"
                               % (" ".join(argv), result.exit_code, package),
                               result.stdout + result.stderr)
    return result


def _parsed(parse, text, what):
    try:
        return parse(text)
    except metrics.ParseError as e:
        raise NetworkTestError("%s: %s" % (what, e), text)


def run_iperf3(executor, client, spec, endpoint, workdir, timeout,
               timed=common.untimed):
    pidfile = posixpath.join(workdir, "rcbench-iperf3.pid")
    start = iperf3.server_argv(endpoint.listen_port, pidfile,
                               address=endpoint.listen_address)
    stop = _stop_script(pidfile, "iperf3")
    with _server(executor, start, stop, endpoint, timeout,
                 "iperf3 server"):
        argv = iperf3.client_argv(spec, endpoint.host, endpoint.port)
        with timed(spec.label):
            result = client.run(argv, timeout)
        # iperf3 --json reports its errors in the document.
        parsed = _parsed(iperf3.parse, result.stdout,
                         "iperf3 %s" % spec.label)
        return common.TestRun(spec=spec, command=_shell(argv), result=parsed)


def run_http(executor, client, spec, endpoint, workdir, timeout, version,
             timed=common.untimed):
    directory = posixpath.join(workdir, "rcbench-nginx")
    conf = posixpath.join(directory, "nginx.conf")
    start = ["sh", "-c", " && ".join([
        "mkdir -p %s %s" % (shlex.quote(directory + "/www"),
                            shlex.quote(directory + "/tmp")),
        "head -c %d /dev/zero > %s" % (spec.size, shlex.quote(
            posixpath.join(directory, "www", http.FILE_NAME))),
        "printf '%%s' %s > %s" % (shlex.quote(http.nginx_conf(
            directory, endpoint.listen_port, endpoint.listen_address)),
            shlex.quote(conf)),
        "nginx -c %s -p %s" % (shlex.quote(conf), shlex.quote(directory))])]
    stop = _stop_script(posixpath.join(directory, "nginx.pid"), "nginx",
                        remove=directory)
    with _server(executor, start, stop, endpoint, timeout, "nginx"):
        argv = http.wrk_argv(spec, endpoint.host, endpoint.port)
        with timed(spec.label):
            result = client.run(argv, timeout)
        output = result.stdout + result.stderr
        if result.exit_code != 0:
            raise NetworkTestError("wrk %s exited %d: %s" % (
                spec.label, result.exit_code, output.strip()[-1500:]),
                output)
        parsed = _parsed(lambda text: http.parse(text, version),
                         result.stdout, "wrk %s" % spec.label)
        return common.TestRun(spec=spec, command=_shell(argv), result=parsed)


@contextlib.contextmanager
def _server(executor, start, stop, endpoint, timeout, what):
    """Start a daemon inside, wait until it listens, stop it after."""
    try:
        started = executor.run(start, timeout)
        if started.exit_code != 0:
            raise NetworkTestError(
                "%s did not start (exit %d): %s" % (
                    what, started.exit_code,
                    (started.stderr or started.stdout).strip()[-1500:]),
                started.stdout + started.stderr)
        _wait_listening(executor, endpoint.listen_port, timeout, what)
        yield
    finally:
        with contextlib.suppress(base.DriverError):
            executor.run(stop, timeout)


def _wait_listening(executor, port, timeout, what):
    """Return when something listens on port inside the instance.

    iperf3 --daemon returns before it listens; the instance's own socket
    table tells (a probe connection would be taken as its one test).
    """
    argv = ["ss", "-H", "-l", "-t", "-n", "sport = :%d" % port]
    deadline = time.monotonic() + min(timeout, 30)
    while True:
        result = executor.run(argv, timeout)
        if result.exit_code == 0 and result.stdout.strip():
            return
        if time.monotonic() > deadline:
            raise NetworkTestError("%s is not listening on port %d inside "
                                   "within 30 s" % (what, port),
                                   result.stdout + result.stderr)
        time.sleep(LISTEN_POLL_S)


def _stop_script(pidfile, program, remove=None):
    """Stop the daemon whose pid is in pidfile (if it is still that one)."""
    script = "%s; rm -f %s" % (processes.signal_script(pidfile, program),
                               shlex.quote(pidfile))
    if remove:
        script += "; sleep 0.2; rm -rf %s" % shlex.quote(remove)
    return ["sh", "-c", script]


def _shell(argv):
    return " ".join(shlex.quote(str(word)) for word in argv)


class _NetworkTool(common.Tool):
    """A server inside the instance, its client on the Rally host."""

    spec_errors = (preset_lib.PresetError,)

    def preset(self, name):
        return preset_lib.get(name)

    def endpoint(self, job):
        if job.endpoint is None:
            raise NetworkTestError(
                "%s tests need the Rally host to reach into the instance, "
                "which this scenario cannot" % self.name)
        return job.endpoint(self.port)


class Iperf3(_NetworkTool):
    name = "iperf3"
    port = 5201
    inside = (("iperf3", "iperf3"),)
    client = (("iperf3", "iperf3"),)
    presets = tuple(n for n in preset_lib.NAMES if n.startswith("iperf3-"))
    spec_errors = _NetworkTool.spec_errors + (iperf3.Iperf3SpecError,)

    def from_dict(self, fields):
        return iperf3.from_dict(fields)

    def higher_is_better(self, metric):
        return iperf3.higher_is_better(metric)

    def version(self, executor, sysbench, timeout):
        return iperf3_version(executor, timeout)

    def run(self, spec, job):
        return run_iperf3(job.executor, job.client, spec, self.endpoint(job),
                          job.workdir, job.timeout, job.timed)


class Http(_NetworkTool):
    name = "http"
    versioned = "nginx"
    port = 8080
    inside = (("nginx", "nginx-light"),)
    client = (("wrk", "wrk"),)
    presets = tuple(n for n in preset_lib.NAMES if n.startswith("http-"))
    spec_errors = _NetworkTool.spec_errors + (http.HttpSpecError,)

    def from_dict(self, fields):
        return http.from_dict(fields)

    def higher_is_better(self, metric):
        return http.higher_is_better(metric)

    def version(self, executor, sysbench, timeout):
        return nginx_version(executor, timeout)

    def run(self, spec, job):
        return run_http(job.executor, job.client, spec, self.endpoint(job),
                        job.workdir, job.timeout, job.version, job.timed)
