"""The periodic job refuses what cannot run, before anything boots.

Bad connection strings to a real PostgreSQL server (a wrong password, a
server that is down, an unknown database), a database whose schema a
newer Rally made, and a task that cannot run without a database: one
line of error, exit status 2, no password. Each is rcbench as an
operator types it, from a clean HOME; none measures anything, so they
run beside the other functional tests (tests/functional/test_periodic.py,
whose gate compares throughput across runs, runs alone).
"""

import json
import os
import re
import subprocess
import sys
import tempfile
import time
import unittest

import sqlalchemy

from rally_container_bench.periodic import database as periodic_db
from tests.functional import helpers
from tests.functional import test_periodic

TASK = test_periodic.TASK
ARGS = test_periodic.ARGS


class BadPeriodicInputTestCase(unittest.TestCase):

    def test_without_a_database_a_task_that_cannot_run_says_why(self):
        # the embedded default: SQLite, files, no server
        home = helpers.RallyHome()
        self.addCleanup(home.close)
        results = os.path.join(home.path, "bad")
        env = {k: v for k, v in os.environ.items()
               if k != "RCBENCH_DATABASE"}
        proc = subprocess.run(
            [os.path.join(helpers.BIN, "rcbench"), "periodic",
             "--task", TASK, "--task-args-file", ARGS,
             "--task-args", json.dumps({"platforms": ["docker"],
                                        "tests": ["no-such-preset"]}),
             "--results", results, "--local-env", "--rally-config",
             home.conf], capture_output=True, text=True, cwd=helpers.TOP,
            env=dict(env, HOME=home.path, XDG_CACHE_HOME=helpers.CACHE_HOME))
        self.assertEqual(2, proc.returncode, proc.stdout + proc.stderr)
        self.assertIn("the task did not run", proc.stdout)
        self.assertIn("unknown sysbench preset 'no-such-preset'",
                      proc.stdout)
        (run_dir,) = os.listdir(results)
        self.assertEqual(["run.json"], os.listdir(os.path.join(results,
                                                               run_dir)))

    def test_bad_connection_strings_stop_before_anything_boots(self):
        server = os.environ.get("RCBENCH_TEST_DATABASE")
        if not server:
            self.skipTest("no PostgreSQL server here (tools/postgres.sh)")
        wrong = re.sub(r"(://[^:]*:)[^@]*@", r"\1not-the-password@", server)
        down = re.sub(r":(\d+)/", ":1/", server)
        unknown = re.sub(r"/[^/]*$", "/no_such_database", server)
        for url, words in ((wrong, "password authentication failed"),
                           (down, "Connection refused"),
                           (unknown, 'database "no_such_database" does '
                                     "not exist")):
            with self.subTest(words=words):
                # a clean HOME, nothing more: the job makes no Rally DB
                # of its own when given one (a RallyHome's `rally db
                # create` and `env create` cost ~8 s each time, unused)
                home = self.enterContext(tempfile.TemporaryDirectory(
                    prefix="rcbench-bad-db-"))
                proc = subprocess.run(
                    [os.path.join(helpers.BIN, "rcbench"), "periodic",
                     "--task", TASK, "--task-args-file", ARGS,
                     "--results", os.path.join(home, "results"),
                     "--local-env", "--database", url],
                    capture_output=True, text=True, cwd=helpers.TOP,
                    env=dict(os.environ, HOME=home))
                self.assertEqual(2, proc.returncode, proc.stdout)
                self.assertEqual("", proc.stdout)
                lines = proc.stderr.strip().splitlines()
                self.assertEqual(1, len(lines), proc.stderr)
                self.assertIn(words, lines[0])
                self.assertIn(":***@", lines[0])
                self.assertNotIn("not-the-password", proc.stderr)
                self.assertNotIn(re.search(r"://[^:]*:([^@]*)@",
                                           server).group(1), proc.stderr)
                self.assertFalse(os.path.exists(
                    os.path.join(home, "results")))
                # nothing made in the HOME either: no Rally DB, no env
                self.assertEqual([], os.listdir(home))


class ForeignSchemaTestCase(unittest.TestCase):
    """A database whose Rally schema a newer Rally made: one line, exit 2."""

    def test_unknown_schema_revision_stops_before_anything_boots(self):
        home = helpers.RallyHome()
        self.addCleanup(home.close)
        path = os.path.join(home.path, "newer.sqlite")
        engine = sqlalchemy.create_engine("sqlite:///" + path)
        with engine.begin() as conn:
            conn.execute(sqlalchemy.text(
                "CREATE TABLE alembic_version (version_num VARCHAR(32) "
                "NOT NULL PRIMARY KEY)"))
            conn.execute(sqlalchemy.text(
                "INSERT INTO alembic_version VALUES ('f00dfacef00d')"))
        engine.dispose()
        results = os.path.join(home.path, "results")
        proc = subprocess.run(
            [os.path.join(helpers.BIN, "rcbench"), "periodic",
             "--task", TASK, "--task-args-file", ARGS, "--results", results,
             "--local-env", "--database", "sqlite:///" + path],
            capture_output=True, text=True, cwd=helpers.TOP, timeout=300,
            env=dict(os.environ, HOME=home.path))
        self.assertEqual(2, proc.returncode, proc.stdout + proc.stderr)
        lines = proc.stderr.strip().splitlines()
        self.assertEqual(1, len(lines), proc.stderr)
        self.assertIn("has schema revision f00dfacef00d, which this Rally "
                      "does not know", lines[0])
        self.assertFalse(os.path.exists(results))


class FirstRunsAtOnceTestCase(unittest.TestCase):
    """Jobs started at once on a new database all get its schema.

    Zuul starts a pipeline's periodic jobs together: each first run makes
    Rally's schema, and the later ones' CREATE met the tables the first
    had just made (psycopg's UniqueViolation, a traceback, exit 1: 6 of
    12 such opens failed before the first fix). Then, with a wait and
    no lock, two could still both "create" it (Rally's create_all skips
    the tables it finds): one CI run in many. Now one makes it under a
    lock in the database.
    """

    def test_four_opens_at_once_all_use_one_schema(self):
        server = os.environ.get("RCBENCH_TEST_DATABASE")
        if not server:
            self.skipTest("no PostgreSQL server here (tools/postgres.sh)")
        database, drop = test_periodic.fresh_database(None)
        self.addCleanup(drop)
        code = ("import sys\n"
                "from rally import api\n"
                "from rally.common.db import schema\n"
                "from rally_container_bench.periodic import database "
                "as periodic_db\n"
                "store = periodic_db.Database(sys.argv[1], 'job')\n"
                "print('opening', flush=True)\n"
                "print(store.open())\n"
                "store.close()\n")
        engine = sqlalchemy.create_engine(periodic_db.engine_url(database))
        self.addCleanup(engine.dispose)
        # The test holds the schema lock until all four are opening: all
        # are then in the race's window at once (in CI, 1 run in many had
        # two of them "create" the schema before there was a lock). None
        # may make the schema while another holds the lock.
        with periodic_db._schema_lock(engine):
            procs = [subprocess.Popen([sys.executable, "-c", code, database],
                                      stdout=subprocess.PIPE,
                                      stderr=subprocess.STDOUT, text=True)
                     for _ in range(4)]
            said = [proc.stdout.readline() for proc in procs]
            self.assertEqual(["opening\n"] * 4, said)
            time.sleep(3)
            self.assertNotIn("alembic_version",
                             sqlalchemy.inspect(engine).get_table_names(),
                             "a schema was made under another's lock")
        outputs = [proc.communicate(timeout=120)[0] for proc in procs]
        self.assertEqual([0] * 4, [proc.returncode for proc in procs],
                         outputs)
        made = [out for out in outputs if "created the Rally schema" in out]
        self.assertEqual(1, len(made), outputs)
