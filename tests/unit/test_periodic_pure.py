"""rcbench periodic's checks and bookkeeping that need no Rally run. The
whole job runs for real in tests/functional/test_periodic.py (and in CI as
tox -e periodic-local)."""

import os
import tempfile
import unittest

from rally_container_bench.cli import main as cli
from rally_container_bench.periodic import history as periodic_history
from rally_container_bench.periodic import job as periodic


class ValidateTestCase(unittest.TestCase):

    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self._tmp.cleanup)
        self.task = os.path.join(self._tmp.name, "task.yaml")
        with open(self.task, "w") as f:
            f.write("---\n")

    def options(self, **kwargs):
        return periodic.Options(task=self.task, results=self._tmp.name,
                                **kwargs)

    def test_bad_input_is_named_before_anything_runs(self):
        cases = ((dict(task_args_file="/no/such.yaml"),
                  "task args file /no/such.yaml does not exist"),
                 (dict(env_spec="/no/spec.json"), "env spec /no/spec.json"),
                 (dict(task_args="{platforms: [docker]"), "not JSON"),
                 (dict(trend=-1), "--trend must be >= 0"))
        for kwargs, message in cases:
            with self.subTest(kwargs=kwargs):
                with self.assertRaisesRegex(periodic.PeriodicError,
                                            message):
                    periodic.validate(self.options(**kwargs))

    def test_a_bad_thresholds_file_is_named(self):
        path = os.path.join(self._tmp.name, "t.yaml")
        with open(path, "w") as f:
            f.write("default: lots\n")
        with self.assertRaisesRegex(ValueError, "must be a fraction"):
            periodic.validate(self.options(thresholds=path))

    def test_cli_reports_it_with_exit_2(self):
        self.assertEqual(2, cli.main([
            "periodic", "--task", "/no/task.yaml", "--results",
            self._tmp.name, "--local-env"]))

    def test_previous_runs_newest_last_only_with_results(self):
        for name, with_results in (("20261101T020000Z", True),
                                   ("20261103T020000Z", True),
                                   ("20261102T020000Z", False),
                                   ("20261104T020000Z", True),
                                   ("notes", True)):
            os.makedirs(os.path.join(self._tmp.name, name))
            if with_results:
                with open(os.path.join(self._tmp.name, name,
                                       "rally.json"), "w") as f:
                    f.write("{}")
        self.assertEqual(["20261103T020000Z", "20261104T020000Z"],
                         periodic_history.previous_runs(self._tmp.name, 2))
        self.assertEqual([], periodic_history.previous_runs(self._tmp.name, 0))
        self.assertEqual([], periodic_history.previous_runs("/no/such/dir", 5))

    def test_the_gate_s_earlier_runs_leave_this_run_out(self):
        # the results directory's runs (this one among them), and the
        # database's (this run's Rally tasks among them)
        for name, content in (("20261101T020000Z", '{"tasks": [1]}'),
                              ("20261102T020000Z", '{"tasks": [2]}'),
                              ("20261103T020000Z", '{"tasks": [3]}')):
            os.makedirs(os.path.join(self._tmp.name, name))
            with open(os.path.join(self._tmp.name, name, "rally.json"),
                      "w") as f:
                f.write(content)
        runs = periodic_history.load_runs(None, self.options(trend=10))
        self.assertEqual(3, len(runs))
        this = os.path.join(self._tmp.name, "20261103T020000Z") + "/"
        self.assertEqual([{"tasks": [1]}, {"tasks": [2]}],
                         periodic_history.earlier(runs, this, ["u3"]))
        stored = [("a", {"tasks": [1]}, ["u1"]),
                  ("b", {"tasks": [2]}, ["u2", "u3"])]
        self.assertEqual([{"tasks": [1]}], periodic_history.earlier(
            stored, os.path.join(self._tmp.name, "c"), ["u3"]))

    def test_promote_copies_the_run(self):
        run_dir = os.path.join(self._tmp.name, "20261101T020000Z")
        os.makedirs(run_dir)
        with open(os.path.join(run_dir, "rally.json"), "w") as f:
            f.write('{"tasks": []}')
        baseline = os.path.join(self._tmp.name, "b", "baseline.json")
        self.assertEqual(0, cli.main(["promote", run_dir, baseline]))
        with open(baseline) as f:
            self.assertEqual('{"tasks": []}', f.read())
        self.assertEqual(2, cli.main(["promote", self._tmp.name, baseline]))
