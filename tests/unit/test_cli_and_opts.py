import contextlib
import io
import json
import os
import tempfile
import unittest

from oslo_config import cfg
from oslo_config import generator

from rally_container_bench.cli import main as cli
from rally_container_bench import opts
from rally_container_bench.validity import foreign_load

FIXTURES = os.path.join(os.path.dirname(__file__), "..", "fixtures",
                        "sysbench")


def run_cli(*argv):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cli.main(list(argv))
    return code, out.getvalue(), err.getvalue()


class SysbenchParseCommandTestCase(unittest.TestCase):

    def test_prints_the_documented_json(self):
        path = os.path.join(FIXTURES, "1.0.20", "cpu-time.txt")
        code, out, _ = run_cli("sysbench-parse", path)
        self.assertEqual(0, code)
        doc = json.loads(out)
        self.assertEqual({"version", "test", "metrics"}, set(doc))
        self.assertEqual(("1.0.20", "cpu"), (doc["version"], doc["test"]))
        self.assertEqual("events/s", doc["metrics"]["events_per_s"]["unit"])
        self.assertGreater(doc["metrics"]["events_per_s"]["value"], 0)

    def test_unparseable_file_is_a_clear_error(self):
        path = os.path.join(FIXTURES, "0.4.12", "fileio-prepare.txt")
        code, out, err = run_cli("sysbench-parse", path)
        self.assertEqual((2, ""), (code, out))
        self.assertIn("rcbench sysbench-parse: error: no 'total time'", err)

    def test_missing_file(self):
        code, _, err = run_cli("sysbench-parse", "/nonexistent")
        self.assertEqual(2, code)
        self.assertIn("No such file", err)


class CompareCommandTestCase(unittest.TestCase):

    def test_writes_four_files_and_names_them(self):
        fixture = os.path.join(FIXTURES, "..", "rally", "local-quick.json")
        with tempfile.TemporaryDirectory() as out:
            code, stdout, _ = run_cli("compare", fixture, "--out", out,
                                      "--title", "quick")
            self.assertEqual(0, code)
            self.assertEqual(sorted(os.listdir(out)), sorted(
                os.path.basename(line) for line in stdout.split()))
            with open(os.path.join(out, "comparison.md")) as f:
                self.assertTrue(f.read().startswith("# quick\n"))

    def test_other_json_is_a_clear_error_and_writes_nothing(self):
        with tempfile.TemporaryDirectory() as tmp:
            bad = os.path.join(tmp, "bad.json")
            with open(bad, "w") as f:
                f.write('{"results": []}')
            out = os.path.join(tmp, "out")
            code, _, err = run_cli("compare", bad, "--out", out)
            self.assertEqual(2, code)
            self.assertIn("rcbench compare: error: not Rally task results",
                          err)
            self.assertFalse(os.path.exists(out))

    def test_not_json(self):
        code, _, err = run_cli("compare", os.path.join(
            FIXTURES, "1.0.20", "cpu-time.txt"), "--out", "/tmp/unused")
        self.assertEqual(2, code)
        self.assertIn("is not JSON", err)


class PresetCommandsTestCase(unittest.TestCase):

    def test_presets_lists_every_preset(self):
        code, out, _ = run_cli("presets")
        self.assertEqual(0, code)
        self.assertIn("kek2015-fileio-rndwr", out)
        tools = [line.split()[1] for line in out.splitlines()]
        self.assertEqual({"sysbench": 14, "fio": 5, "iperf3": 3, "http": 2},
                         {tool: tools.count(tool) for tool in set(tools)})
        self.assertIn("connections=16", out)

    def test_sysbench_command(self):
        code, out, _ = run_cli("sysbench-command", "kek2015-cpu",
                               "--version", "0.4.12", "--threads", "4")
        self.assertEqual(0, code)
        self.assertEqual("sysbench --test=cpu --num-threads=4 --max-time=0 "
                         "--max-requests=10000 --cpu-max-prime=20000 run\n",
                         out)

    def test_sysbench_command_rejects_a_phase_cpu_lacks(self):
        code, _, err = run_cli("sysbench-command", "quick-cpu", "--version",
                               "1.0.20", "--phase", "prepare")
        self.assertEqual(2, code)
        self.assertIn("only fileio has a prepare phase", err)


class OptionsTestCase(unittest.TestCase):

    def test_list_opts_is_one_group(self):
        (group, options), = opts.list_opts()
        self.assertEqual("container_bench", group)
        names = {opt.name for opt in options}
        self.assertTrue({"poll_interval", "boot_timeout", "ssh_timeout",
                         "image_cache_dir", "docker_url", "libvirt_uri",
                         "sysbench_path"} <= names)

    def test_the_load_limits_default_to_foreign_loads_own(self):
        # opts.py may not import the measuring code (test_layering)
        defaults = {o.name: o.default for o in opts.OPTS}
        self.assertEqual(foreign_load.DEFAULT_LIMIT,
                         defaults["foreign_load_limit"])
        self.assertEqual(foreign_load.SATURATED_SHARE,
                         defaults["saturated_load_share"])

    def test_register_twice_on_a_fresh_conf(self):
        conf = cfg.ConfigOpts()
        opts.register(conf)
        group = opts.register(conf)
        conf([])
        self.assertEqual("sysbench", group.sysbench_path)
        self.assertEqual(0.2, group.poll_interval)


class SampleConfigTestCase(unittest.TestCase):

    def test_committed_sample_is_what_genconfig_writes(self):
        top = os.path.join(os.path.dirname(__file__), "..", "..")
        with tempfile.TemporaryDirectory() as scratch:
            fresh = os.path.join(scratch, "sample.conf")
            generator.main(["--namespace", "rally_container_bench",
                            "--wrap-width", "79", "--output-file", fresh])
            with open(fresh) as f:
                expected = f.read()
        with open(os.path.join(top, "etc",
                               "rally_container_bench.conf.sample")) as f:
            self.assertEqual(expected, f.read(),
                             "run: tox -e genconfig")
