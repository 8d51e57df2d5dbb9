"""iperf3 and http tests through Rally's CLI on the real engines: native
(loopback), a QEMU guest (user-mode port forwards), LXC containers in the
host's network namespace two at once (a port each) and Podman containers
on their bridge two at once; every server stopped, every instance gone,
and the comparison report lines them up against native."""

import os
import subprocess
import tempfile
import unittest

from rally_container_bench.core import base
from rally_container_bench.decide import rally_tasks
from rally_container_bench.engines.native import instance as native
from rally_container_bench.engines import registry
from rally_container_bench import opts
from rally_container_bench.report import comparison
from rally_container_bench.workloads.net import http
from rally_container_bench.workloads.net import iperf3
from rally_container_bench.workloads.net import run as net_run
from rally_container_bench.workloads import tools
from tests.functional import helpers

SAMPLE = os.path.join("samples", "tasks", "workloads",
                      "iperf3-and-http.yaml")
DRIVERS = ("kvm", "lxc", "podman-crun")
ACTIONS = ["iperf3.to-instance", "iperf3.from-instance", "http.c1",
           "http.c16"]


class NetworkWorkloadsTestCase(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        for name in DRIVERS:
            usable, why = registry.instance_class(name).check(
                opts.register())
            if not usable:
                raise unittest.SkipTest("%s: %s" % (name, why))
        cls.home = helpers.RallyHome()
        cls.uuid, _ = cls.home.start(SAMPLE)
        cls.results = cls.home.results(cls.uuid)

    @classmethod
    def tearDownClass(cls):
        cls.home.close()

    def test_every_platform_measured_both_directions_and_http(self):
        found = list(helpers.workloads(self.results))
        self.assertEqual(4, len(found))
        for workload in found:
            self.assertEqual(0, workload["failed_iteration_count"],
                             [i["error"] for i in workload["data"]])
            for iteration in workload["data"]:
                self.assertEqual(ACTIONS, [
                    n for n in helpers.atomic_names(iteration)
                    if n in ACTIONS])
                out = helpers.additive(iteration)
                for label in ("to-instance", "from-instance"):
                    self.assertGreater(out["iperf3 " + label]
                                       ["throughput_gbit_s (Gbit/s)"], 0)
                for label in ("c1", "c16"):
                    http = out["http " + label]
                    self.assertGreater(http["requests_per_s (req/s)"], 0)
                    self.assertEqual(0, http["errors (count)"])
                    self.assertLessEqual(http["latency_p50_ms (ms)"],
                                         http["latency_p99_ms (ms)"])
                environment = helpers.environment(iteration)
                self.assertTrue(environment["iperf3_version"]
                                .startswith("3."))
                self.assertTrue(environment["nginx_version"])

    def test_report_lines_network_up_with_native(self):
        report = comparison.build([self.results])
        labels = [p["label"] for p in report["platforms"]]
        self.assertEqual("native", labels[0])
        self.assertEqual(4, len(labels))
        metrics = {m["name"]: m for m in report["metrics"]}
        throughput = metrics["iperf3.to-instance.throughput_gbit_s"]
        self.assertEqual(("workload", True),
                         (throughput["kind"], throughput["higher_is_better"]))
        self.assertFalse(metrics["http.c16.latency_p99_ms"]
                         ["higher_is_better"])
        rows = comparison.rows_for(report, "http.c16.requests_per_s",
                                   concurrency=2)
        self.assertEqual({"native", "lxc", "podman-crun"},
                         {row["platform"] for row in rows})

    def test_no_instance_and_no_server_left(self):
        owners = [w["uuid"] for w in helpers.workloads(self.results)]
        matches = rally_tasks.name_matcher(owners)
        conf = opts.register()
        for name in DRIVERS:
            self.assertEqual([], [n for n in helpers.ours(name, conf)
                                  if matches(n)], name)
        # The native servers ran on this host: none may be left.
        self.assertEqual([], helpers.processes("iperf3 --server"))
        self.assertEqual([], helpers.processes("rcbench-nginx"))


class _ListeningProbe(object):
    """The Rally host's client: it first reads where the server listens.

    ss on this host: native servers run here.
    """

    def __init__(self, port):
        self.port = port
        self.listening = None
        self.client = native.NativeExecutor()

    def run(self, argv, timeout, cwd=None):
        if self.listening is None:
            self.listening = subprocess.run(
                ["ss", "-H", "-l", "-t", "-n", "sport = :%d" % self.port],
                capture_output=True, text=True, check=True).stdout.split()
        return self.client.run(argv, timeout, cwd)


class NativeServersListenOnLoopbackTestCase(unittest.TestCase):
    """Servers of native network tests are not reachable from elsewhere."""

    def endpoint(self, tool):
        return base.host_network_endpoint(
            opts.register(), {}, tools.get(tool).port)

    def local_address(self, probe):
        # ss -H -l -t -n: State Recv-Q Send-Q Local:Port Peer:Port
        return probe.listening[3].rsplit(":", 1)[0]

    def test_iperf3_server_binds_loopback(self):
        endpoint = self.endpoint("iperf3")
        probe = _ListeningProbe(endpoint.port)
        with tempfile.TemporaryDirectory() as workdir:
            net_run.run_iperf3(native.NativeExecutor(), probe,
                               iperf3.Iperf3Spec(time=1), endpoint, workdir,
                               60)
        self.assertEqual("127.0.0.1", self.local_address(probe))

    def test_nginx_binds_loopback(self):
        endpoint = self.endpoint("http")
        probe = _ListeningProbe(endpoint.port)
        version = net_run.nginx_version(native.NativeExecutor(), 30)
        with tempfile.TemporaryDirectory() as workdir:
            net_run.run_http(native.NativeExecutor(), probe,
                             http.HttpSpec(connections=1, duration=1),
                             endpoint, workdir, 60, version)
        self.assertEqual("127.0.0.1", self.local_address(probe))
