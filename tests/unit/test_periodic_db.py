"""The periodic job's shared database, its pure parts: masked URLs, job
and run names, the private rally.conf. The database itself (PostgreSQL,
two fresh HOMEs, two jobs at once, bad connection strings) is in
tests/functional/test_periodic.py."""

import configparser
import os
import stat
import tempfile
import unittest

from rally_container_bench.periodic import database as periodic_db

URL = "postgresql://rally:s3cr%2Ft@db.example.org:5432/rally"


class PeriodicDatabaseTestCase(unittest.TestCase):

    def test_the_password_is_masked(self):
        self.assertEqual("postgresql://rally:***@db.example.org:5432/rally",
                         periodic_db.mask(URL))
        self.assertEqual("s3cr%2Ft", periodic_db.password_of(URL))
        self.assertEqual("sqlite:////tmp/x.db",
                         periodic_db.mask("sqlite:////tmp/x.db"))
        self.assertIsNone(periodic_db.password_of("sqlite:////tmp/x.db"))
        self.assertEqual("", periodic_db.mask(None))

    def test_a_short_password_is_hidden_only_where_it_stands_apart(self):
        said = ('(psycopg.OperationalError) connection to server at '
                '"127.0.0.1", port 1 failed: user=u password=p; u:p@h')
        self.assertEqual(
            '(psycopg.OperationalError) connection to server at '
            '"127.0.0.1", port 1 failed: user=u password=***; u:***@h',
            periodic_db.hide(said, ["p"]))
        # as written in the URL and decoded, as a driver may print it
        store = periodic_db.Database(URL, "j")
        self.addCleanup(store.close)  # its rally.conf holds the URL
        self.assertEqual(["s3cr%2Ft", "s3cr/t"], store.secrets)
        self.assertEqual("*** and ***", periodic_db.hide(
            "s3cr%2Ft and s3cr/t", ["s3cr%2Ft", "s3cr/t"]))

    def test_jobs_and_runs_by_name(self):
        self.assertEqual("kvm_vs_docker:kek2015", periodic_db.job_name(
            "tasks/kvm_vs_docker.yaml", "tasks/args/kek2015.yaml"))
        self.assertEqual("t", periodic_db.job_name("t.yaml", None))
        tags = ["rcbench-periodic", "rcbench-job:a",
                "rcbench-run:a:20261126T100000Z", "rcbench-run:b:x"]
        self.assertEqual("20261126T100000Z", periodic_db.run_of(tags, "a"))
        self.assertIsNone(periodic_db.run_of(tags, "c"))

    def test_two_runs_started_in_one_second_are_two_runs(self):
        stamp = "20261127T063000Z"
        first, second = (periodic_db.new_run_id(stamp) for _ in range(2))
        self.assertNotEqual(first, second)
        for run in (first, second):
            self.assertRegex(run, r"^20261127T063000Z-[0-9a-f]{8}$")
            self.assertEqual(run, periodic_db.run_of(
                ["rcbench-run:a:%s" % run], "a"))
            # the results directory's name, as periodic-import finds it
            self.assertEqual(stamp, periodic_db.stamp_of(run))
        self.assertEqual(stamp, periodic_db.stamp_of(stamp))
        # they sort by time with the runs before and after
        self.assertEqual(
            ["20261127T062959Z-ffffffff", first, "20261127T063001Z-00000000"],
            sorted(["20261127T063001Z-00000000", first,
                    "20261127T062959Z-ffffffff"]))

    def test_rally_gets_the_url_in_a_private_file(self):
        with tempfile.NamedTemporaryFile("w", suffix=".conf") as own:
            own.write("[container_bench]\ncontainer_cpus = 0.2\n")
            own.flush()
            store = periodic_db.Database(URL, "job-a", own.name)
        try:
            mode = stat.S_IMODE(os.stat(store.conf).st_mode)
            self.assertEqual(0o600, mode)
            parser = configparser.RawConfigParser()
            parser.read(store.conf)
            # psycopg 3 named: a bare URL means psycopg2 to SQLAlchemy 2.0
            self.assertEqual(URL.replace("postgresql://",
                                         "postgresql+psycopg://"),
                             parser.get("database", "connection"))
            # the operator's other settings kept
            self.assertEqual("0.2", parser.get("container_bench",
                                               "container_cpus"))
            self.assertEqual(["rcbench-periodic", "rcbench-job:job-a",
                              "rcbench-run:job-a:S"], store.run_tags("S"))
            self.assertEqual("rcbench-baseline:job-a", store.baseline_tag)
        finally:
            store.close()
        self.assertFalse(os.path.exists(store.conf))

    def test_a_named_driver_is_kept(self):
        for url in ("postgresql+psycopg2://u@h/d", "mysql+pymysql://u@h/d",
                    "sqlite:////tmp/x.db"):
            self.assertEqual(url, periodic_db.engine_url(url))
        self.assertEqual("postgresql+psycopg://u@h/d",
                         periodic_db.engine_url("postgres://u@h/d"))

    def test_a_bad_job_name_is_refused(self):
        with self.assertRaisesRegex(periodic_db.DatabaseError, "--job"):
            periodic_db.Database(URL, "a job with spaces")

    def test_an_unreachable_database_is_one_line_without_its_password(self):
        store = periodic_db.Database(
            "postgresql://rally:hunter2@127.0.0.1:1/rally", "j")
        try:
            with self.assertRaises(periodic_db.DatabaseError) as found:
                store.open()
        finally:
            store.close()
        text = str(found.exception)
        self.assertEqual(1, len(text.splitlines()))
        self.assertNotIn("hunter2", text)
        self.assertIn("postgresql://rally:***@127.0.0.1:1/rally", text)

    def test_a_second_schema_maker_of_a_sqlite_file_waits_then_says_why(self):
        import sqlalchemy
        from unittest import mock

        path = os.path.join(tempfile.mkdtemp(), "rally.db")
        open(path, "w").close()
        engine = sqlalchemy.create_engine("sqlite:///" + path)
        with periodic_db._schema_lock(engine):
            with mock.patch.object(periodic_db, "SCHEMA_WAIT_S", 0.5):
                with self.assertRaisesRegex(periodic_db.DatabaseError,
                                            "another run has been making"):
                    with periodic_db._schema_lock(engine):
                        pass
        with periodic_db._schema_lock(engine):  # released with its holder
            pass
