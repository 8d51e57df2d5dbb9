"""tox's periodic-local env is what tests/functional/test_periodic.py runs.

CI runs the pipeline in that functional test (a baseline, an unchanged
rerun, a slowed run), not through ``tox -e periodic-local``: this checks
that the env's commands are ones rcbench accepts, with files that exist.
"""

import configparser
import os
import re
import shlex
import unittest

from rally_container_bench.cli import main as cli

TOP = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))


def env_commands(name):
    parser = configparser.ConfigParser(interpolation=None)
    parser.read(os.path.join(TOP, "tox.ini"))
    text = parser["testenv:%s" % name]["commands"]
    text = re.sub(r"\{env:[A-Z_]+:([^}]*)\}", r"\1", text)
    text = text.replace("{posargs}", "").replace("\\\n", " ")
    return [shlex.split(line) for line in text.splitlines() if line.strip()]


class PeriodicLocalEnvTestCase(unittest.TestCase):

    def test_its_commands_parse_and_name_existing_files(self):
        commands = env_commands("periodic-local")
        periodic = [c for c in commands if c[:2] == ["rcbench", "periodic"]]
        self.assertEqual(2, len(periodic))
        parser = cli.build_parser()
        for argv in periodic:
            args = parser.parse_args(argv[1:])
            for path in (args.task, args.task_args_file, args.thresholds):
                self.assertTrue(os.path.isfile(os.path.join(TOP, path)),
                                path)
            self.assertTrue(args.local_env)
        self.assertTrue(parser.parse_args(periodic[0][1:])
                        .promote_if_missing)
        for argv in commands:
            if argv[0] == "rcbench" and argv[1] != "periodic":
                parser.parse_args(argv[1:])
