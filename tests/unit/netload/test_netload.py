"""iperf3 and http (wrk, nginx): specs, argv, parsing of real output.

The fixtures are what iperf3 3.12 and wrk 4.1.0 (Debian bookworm)
printed on this machine over loopback.
"""

import os
import shlex
import unittest

from rally_container_bench.workloads import metrics
from rally_container_bench.workloads.net import http
from rally_container_bench.workloads.net import iperf3
from rally_container_bench.workloads.net import presets
from rally_container_bench.workloads import tests as tests_lib
from rally_container_bench.workloads import tools

FIXTURES = os.path.join(os.path.dirname(__file__), "..", "..", "fixtures")


def fixture(*path):
    with open(os.path.join(FIXTURES, *path)) as f:
        return f.read()


class Iperf3TestCase(unittest.TestCase):

    def test_labels_name_direction_and_streams(self):
        self.assertEqual("to-instance", iperf3.Iperf3Spec().label)
        self.assertEqual("from-instance-4streams", iperf3.Iperf3Spec(
            streams=4, reverse=True).label)
        self.assertEqual("mine", iperf3.Iperf3Spec(name="mine").label)

    def test_client_asks_json_and_reverse(self):
        argv = iperf3.client_argv(iperf3.Iperf3Spec(streams=2, reverse=True,
                                                    time=7),
                                  "172.17.0.2", 5201)
        self.assertEqual(["iperf3", "--client", "172.17.0.2", "--port",
                          "5201", "--json", "--time", "7", "--parallel", "2",
                          "--reverse"], argv)
        self.assertIn("--one-off", iperf3.server_argv(5201, "/root/p"))

    def test_server_binds_where_asked(self):
        self.assertNotIn("--bind", iperf3.server_argv(5201, "/root/p"))
        argv = iperf3.server_argv(40000, "/tmp/p", address="127.0.0.1")
        self.assertEqual(["--bind", "127.0.0.1"], argv[-2:])

    def test_parses_throughput_and_retransmits(self):
        result = iperf3.parse(fixture("iperf3", "3.12",
                                      "to-instance-2streams.json"))
        self.assertEqual("3.12", result.version)
        throughput = result.metrics["throughput_gbit_s"]
        self.assertEqual("Gbit/s", throughput.unit)
        self.assertAlmostEqual(34.519, throughput.value, places=2)
        self.assertEqual(4.0, result.metrics["retransmits"].value)
        reverse = iperf3.parse(fixture("iperf3", "3.12",
                                       "from-instance.json"))
        self.assertAlmostEqual(32.331, reverse.metrics[
            "throughput_gbit_s"].value, places=2)
        self.assertFalse(iperf3.higher_is_better("retransmits"))
        self.assertTrue(iperf3.higher_is_better("throughput_gbit_s"))

    def test_an_error_in_the_document_is_an_error(self):
        with self.assertRaisesRegex(metrics.ParseError,
                                    "Connection refused"):
            iperf3.parse(fixture("iperf3", "3.12", "refused.json"))
        with self.assertRaisesRegex(metrics.ParseError, "not JSON"):
            iperf3.parse("iperf3: error - unable to connect")

    def test_version(self):
        self.assertEqual("3.12",
                         iperf3.parse_version("iperf 3.12 (cJSON 1.7.15)\n"))
        with self.assertRaises(metrics.ParseError):
            iperf3.parse_version("bash: iperf3: command not found")

    def test_invalid_specs_say_why(self):
        cases = (({"streams": 0}, "streams"), ({"time": "5"}, "time"),
                 ({"reverse": "yes"}, "reverse"),
                 ({"window": 1}, "unknown parameter"),
                 ({"name": "Big"}, "name must be"))
        for fields, message in cases:
            with self.subTest(fields=fields):
                with self.assertRaisesRegex(iperf3.Iperf3SpecError, message):
                    iperf3.from_dict(fields)


class HttpTestCase(unittest.TestCase):

    def test_parses_rate_and_percentiles_in_ms(self):
        result = http.parse(fixture("wrk", "4.1.0", "c8.txt"), "1.22.1")
        found = {name: m.value for name, m in result.metrics.items()}
        self.assertEqual(51310.43, found["requests_per_s"])
        self.assertAlmostEqual(0.150, found["latency_p50_ms"])
        self.assertAlmostEqual(0.170, found["latency_p90_ms"])
        self.assertAlmostEqual(0.242, found["latency_p99_ms"])
        self.assertEqual(0.0, found["errors"])
        self.assertFalse(http.higher_is_better("latency_p99_ms"))

    def test_non_2xx_responses_are_errors(self):
        result = http.parse(fixture("wrk", "4.1.0", "not-found.txt"))
        self.assertEqual(55874.0, result.metrics["errors"].value)

    def test_socket_errors_add_up(self):
        text = fixture("wrk", "4.1.0", "c8.txt").replace(
            "Requests/sec:", "  Socket errors: connect 1, read 2, write 0, "
            "timeout 3\nRequests/sec:")
        self.assertEqual(6.0, http.parse(text).metrics["errors"].value)

    def test_no_summary_is_an_error(self):
        with self.assertRaisesRegex(metrics.ParseError, "wrk --latency"):
            http.parse("unable to connect to 127.0.0.1:1 Connection refused")

    def test_seconds_and_microseconds(self):
        text = ("  Latency Distribution\n     50%  900.00us\n"
                "     75%    1.50ms\n     90%    2.00s\n     99%    1.00m\n"
                "Requests/sec:  1.5\n")
        found = http.parse(text).metrics
        self.assertAlmostEqual(0.9, found["latency_p50_ms"].value)
        self.assertAlmostEqual(2000.0, found["latency_p90_ms"].value)
        self.assertAlmostEqual(60000.0, found["latency_p99_ms"].value)

    def test_wrk_threads_never_exceed_connections(self):
        self.assertEqual("1", http.wrk_argv(
            http.HttpSpec(connections=1), "h", 1)[3])
        argv = http.wrk_argv(http.HttpSpec(connections=64, duration=9),
                             "10.88.0.5", 8080)
        self.assertEqual("http://10.88.0.5:8080/rcbench.bin", argv[-1])
        self.assertIn("9s", argv)
        with self.assertRaisesRegex(http.HttpSpecError, "threads"):
            http.HttpSpec(connections=2, threads=4)

    def test_nginx_conf_keeps_state_in_its_directory(self):
        conf = http.nginx_conf("/root/rcbench-nginx", 8080)
        self.assertIn("listen 8080 reuseport;", conf)
        self.assertIn("pid /root/rcbench-nginx/nginx.pid;", conf)
        self.assertIn("root /root/rcbench-nginx/www;", conf)
        # It goes through printf '%s' in sh -c: nothing printf would
        # expand, and shlex keeps it whole.
        self.assertNotIn("%", conf)
        self.assertEqual([conf], shlex.split(shlex.quote(conf)))

    def test_nginx_listens_on_the_address_given(self):
        self.assertIn("listen 127.0.0.1:40001 reuseport;", http.nginx_conf(
            "/tmp/rcbench-nginx", 40001, "127.0.0.1"))

    def test_nginx_version_from_stderr(self):
        self.assertEqual("1.22.1", http.parse_nginx_version(
            "nginx version: nginx/1.22.1\n"))


class TestsListTestCase(unittest.TestCase):

    def test_presets_and_mappings_resolve(self):
        specs = tests_lib.resolve_all([
            "iperf3-quick", "iperf3-quick-reverse", "http-quick-c16",
            {"iperf3": {"preset": "iperf3-quick", "streams": 8}},
            {"http": {"connections": 64, "duration": 2}}, "quick-cpu"])
        self.assertEqual(["iperf3", "iperf3", "http", "iperf3", "http",
                          "sysbench"], [s.tool for s in specs])
        self.assertEqual("to-instance-8streams", specs[3].label)
        self.assertEqual(5201, tools.of(specs[0]).port)
        self.assertIsNone(tools.of(specs[5]).port)
        for name in presets.NAMES:
            self.assertIn(name, tests_lib.names())

    def test_repeated_labels_and_bad_entries_are_refused(self):
        cases = ((["iperf3-quick", {"iperf3": {"time": 9}}],
                  "iperf3 to-instance twice"),
                 ([{"http": {}, "fio": {}}], "nothing beside it"),
                 (["http-quick-c2"], "unknown network preset"),
                 ([{"http": {"connections": 0}}], r"tests\[0\]"))
        for entries, message in cases:
            with self.subTest(entries=entries):
                with self.assertRaisesRegex(tests_lib.TestsError, message):
                    tests_lib.resolve_all(entries)
