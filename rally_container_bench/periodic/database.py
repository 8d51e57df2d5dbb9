"""The periodic job's memory in a shared Rally database.

Zuul runs each job on a fresh node: a baseline or a history kept in files
on the node is gone by the next night. With ``--database URL`` (or
``$RCBENCH_DATABASE``; any Rally database: PostgreSQL, MySQL, SQLite) the
job keeps everything in Rally's own database, which every node reaches:

- each run's tasks, tagged ``rcbench-periodic``, ``rcbench-job:JOB`` and
  ``rcbench-run:JOB:RUN`` (RUN: the run's UTC stamp and 8 random hex
  digits, see new_run_id; a run of ``--decide`` has a task per round);
- the baseline: the tasks tagged ``rcbench-baseline:JOB`` (``--promote``
  or ``rcbench promote --database`` moves the tag to a run's tasks);
- the gate reads the baseline from it, the trends the job's last N runs.

JOB (``--job``) keeps jobs apart: two jobs on one database, at the same
time or not, never read each other's runs or baseline. The files a run
writes stay as they are; the node keeps nothing the next run needs.

The URL's password never reaches a log, a report or ``run.json``: Rally
gets it in a private rally.conf (mode 600, removed after the run). A
database that is down, refuses the login, does not exist or carries a
schema of another Rally version stops the job before anything boots,
with one line that says which.
"""

import configparser
import contextlib
import fcntl
import json
import os
import re
import shutil
import tempfile
import time
import urllib.parse
import uuid as uuidlib

TAG = "rcbench-periodic"
# How long a job waits for the schema another job's first run is making.
SCHEMA_WAIT_S = 60
# The schema lock's (take, give) in each server's SQL; the advisory
# lock's key is any bigint, rcbench's alone on the database.
_SQL_LOCKS = {
    "postgresql": ("SELECT pg_try_advisory_lock(125771178730344)",
                   "SELECT pg_advisory_unlock(125771178730344)"),
    "mysql": ("SELECT GET_LOCK('rcbench-schema', 0)",
              "SELECT RELEASE_LOCK('rcbench-schema')"),
}
_PASSWORD = re.compile(r"(://[^:/@]*:)([^@]*)@")


class DatabaseError(ValueError):
    """The database cannot keep the job's runs; the message says why."""


def mask(url):
    """The URL with its password as ***."""
    return _PASSWORD.sub(r"\1***@", url or "")


def engine_url(url):
    """url with a PostgreSQL driver this package installs (psycopg 3).

    A bare postgresql:// means psycopg2 to SQLAlchemy 2.0 and psycopg 3
    to 2.1: named, the URL works under either.
    """
    return re.sub(r"^postgres(ql)?://", "postgresql+psycopg://", url or "")


def hide(text, secrets):
    """text with each secret as ***, apart from letters and digits.

    As Rally and the drivers print one: user:SECRET@host, password=SECRET.
    Not inside a longer word: a short password ("p") turned psycopg's
    "OperationalError ... port 1 failed" into "O***erationalError ...
    ***ort 1 failed".
    """
    for secret in sorted(secrets, key=len, reverse=True):
        text = re.sub(r"(?<![A-Za-z0-9])%s(?![A-Za-z0-9])" % re.escape(secret),
                      "***", text)
    return text


def password_of(url):
    found = _PASSWORD.search(url or "")
    return found.group(2) if found and found.group(2) else None


def job_name(task, task_args_file):
    """The default job: the task file's and args file's names."""
    name = os.path.splitext(os.path.basename(task))[0]
    if task_args_file:
        name += ":" + os.path.splitext(os.path.basename(task_args_file))[0]
    return name


def new_run_id(stamp):
    """A run's id in the database: its UTC stamp and 8 random hex digits.

    Zuul starts a pipeline's periodic jobs at once: two nodes of one job
    (two branches of it) can start in the same second, and with the stamp
    alone their tasks would make one run. Ids still sort by time.
    """
    return "%s-%s" % (stamp, uuidlib.uuid4().hex[:8])


def stamp_of(run):
    """The UTC stamp of a run's id (its results directory's name)."""
    return run.split("-", 1)[0]


def run_of(tags, job):
    """The run (RUN) a task of the job belongs to, from its tags."""
    prefix = "rcbench-run:%s:" % job
    for tag in tags:
        if tag.startswith(prefix):
            return tag[len(prefix):]
    return None


class Database:
    """The job's runs and baseline in the Rally database at url."""

    def __init__(self, url, job, rally_config=None):
        if not job or not re.match(r"^[A-Za-z0-9_.:-]+$", job):
            raise DatabaseError("--job %r: letters, digits and _.:- only"
                                % (job,))
        self.url = url
        self.job = job
        self._dir = tempfile.mkdtemp(prefix="rcbench-periodic-db-")
        self.conf = os.path.join(self._dir, "rally.conf")
        parser = configparser.RawConfigParser()
        if rally_config:
            parser.read(rally_config)
        if not parser.has_section("database"):
            parser.add_section("database")
        parser.set("database", "connection", engine_url(url))
        fd = os.open(self.conf, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as f:
            parser.write(f)

    @property
    def secrets(self):
        found = password_of(self.url)
        # as written in the URL, and as a driver may print it (decoded)
        return sorted({found, urllib.parse.unquote(found)}) if found else []

    @property
    def tags(self):
        return [TAG, "rcbench-job:%s" % self.job]

    def run_tags(self, stamp):
        return self.tags + ["rcbench-run:%s:%s" % (self.job, stamp)]

    @property
    def baseline_tag(self):
        return "rcbench-baseline:%s" % self.job

    def close(self):
        shutil.rmtree(self._dir, ignore_errors=True)

    def _say(self, text):
        """text without the password, on one line."""
        return " ".join(mask(hide(text, self.secrets)).split())

    def open(self):
        """Connect, and make or upgrade the schema as Rally does.

        DatabaseError (one line) when the database is down, refuses the
        login, does not exist, or has a schema this Rally does not know.
        """
        from rally import api
        from rally.common.db import schema

        where = mask(self.url)
        try:
            api.API(config_file=self.conf, skip_db_check=True)
            found = schema.schema_revision(detailed=True)
        except Exception as e:
            raise DatabaseError("the Rally database %s is not usable: %s"
                                % (where, self._first_line(e)))
        if found["revision"] is None:
            return self._create_schema(schema, where)
        if found["revision"] == found["current_head"]:
            return "using the Rally database %s" % where
        if not _known_revision(found["revision"]):
            raise DatabaseError(
                "the Rally database %s has schema revision %s, which this "
                "Rally does not know (it expects %s): a newer Rally made "
                "it; run the job with that Rally, or give another "
                "database" % (where, found["revision"],
                              found["current_head"]))
        schema.schema_upgrade()  # rally db upgrade
        return "upgraded the Rally schema in %s from %s to %s" % (
            where, found["revision"], found["current_head"])

    def _first_line(self, error):
        return self._say((str(error).strip().splitlines()
                          or [type(error).__name__])[0])

    def _create_schema(self, schema, where):
        """rally db ensure, also when another job's first run does it too.

        Zuul starts a pipeline's jobs at once: on a new database each
        would make the schema (Rally's create_all skips the tables it
        finds, so two could both "create" it, or one fail on a table the
        other just made). One makes it under a lock held in the database
        itself; the others, once they get the lock, find it made.
        """
        from rally.common.db import api as db_api

        try:
            with _schema_lock(db_api.get_engine()):
                found = schema.schema_revision(detailed=True)
                if found["revision"] is not None:
                    return ("using the Rally database %s (its schema made "
                            "by another run at the same time)" % where)
                schema.schema_create()
                return "created the Rally schema in %s" % where
        except DatabaseError:
            raise
        except Exception as e:
            raise DatabaseError("the Rally database %s got no schema: %s"
                                % (where, self._first_line(e)))

    # -- the job's tasks ---------------------------------------------------

    def _tasks(self, tag):
        from rally.common import db
        return db.task_list(tags=[tag])

    def runs(self):
        """{stamp: [task uuid, ...]} of the job's finished runs."""
        found = {}
        for task in self._tasks("rcbench-job:%s" % self.job):
            stamp = run_of(task["tags"], self.job)
            if stamp and task["status"] in ("finished", "aborted"):
                found.setdefault(stamp, []).append(task["uuid"])
        return found

    def baseline(self):
        """The uuids of the baseline's tasks ([] when there is none)."""
        return [t["uuid"] for t in self._tasks(self.baseline_tag)]

    def promote(self, uuids):
        """Make the tasks uuids the job's baseline (the tag moves).

        One transaction, on Rally's tags table itself: Rally's
        task_update(tags=...) compares its rows with strings, which
        PostgreSQL refuses (and SQLite lets pass, duplicating tags).
        """
        from rally.common.db import api
        from rally.common.db import models
        from rally import consts
        import sqlalchemy as sa

        tag = models.Tag
        with api.get_engine().begin() as conn:
            conn.execute(sa.delete(tag).where(
                tag.type == consts.TagType.TASK,
                tag.tag == self.baseline_tag))
            for uuid in uuids:
                conn.execute(sa.insert(tag).values(
                    uuid=uuid, type=consts.TagType.TASK,
                    tag=self.baseline_tag))

    def document(self, rally, uuids, path):
        """Rally's JSON report of the tasks uuids, written to path."""
        return rally.report(uuids, path)


def _known_revision(revision):
    from alembic import script
    from rally.common.db import schema
    directory = script.ScriptDirectory.from_config(schema._alembic_config())
    try:
        return directory.get_revision(revision) is not None
    except Exception:
        return False


def import_results(rally, store, directory, env, log):
    """Bring a results directory's runs and baseline.json into the store.

    Each <stamp>/rally.json becomes that run's tasks (Rally's own import),
    tagged as the job's run of that stamp; baseline.json marks the run
    whose tasks it holds as the baseline, or is imported as a run of its
    own ("baseline") when none does. Returns how many runs were imported.
    """
    from rally_container_bench.periodic import history as periodic_history

    done = {stamp_of(run) for run in store.runs()}
    by_task = {}  # a task uuid in a file -> the stamp of its run
    count = 0
    for stamp in periodic_history.previous_runs(directory, 10 ** 6):
        path = os.path.join(directory, stamp, "rally.json")
        by_task.update((uuid, stamp) for uuid in _task_uuids(path))
        if stamp in done:
            log("run %s is in the database already" % stamp)
            continue
        _import_file(rally, store, path, env, stamp)
        count += 1
        log("imported run %s" % stamp)
    baseline = os.path.join(directory, "baseline.json")
    if os.path.isfile(baseline):
        stamps = {by_task.get(uuid) for uuid in _task_uuids(baseline)}
        stamp = stamps.pop() if len(stamps) == 1 and None not in stamps \
            else None
        if stamp is None:
            stamp = "baseline"
            if stamp not in store.runs():
                _import_file(rally, store, baseline, env, stamp)
                count += 1
        store.promote([uuid for run, uuids in store.runs().items()
                       if stamp_of(run) == stamp for uuid in uuids])
        log("baseline: run %s" % stamp)
    return count


def _task_uuids(path):
    with open(path) as f:
        return [task.get("uuid") for task in json.load(f).get("tasks", [])]


def _import_file(rally, store, path, env, stamp):
    """Rally's import of each task of a results file, tagged with the run.

    Rally imports one task per file: a run of several tasks (rounds of
    rcbench decide) is split first.
    """
    with open(path) as f:
        document = json.load(f)
    scratch = tempfile.mkdtemp(prefix="rcbench-import-")
    try:
        for index, task in enumerate(document.get("tasks", [])):
            one = os.path.join(scratch, "%d.json" % index)
            with open(one, "w") as f:
                json.dump(dict(document, tasks=[task]), f)
            args = ["task", "import", "--file", one, "--env", env]
            for tag in store.run_tags(stamp):
                args += ["--tag", tag]
            rally(*args)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


@contextlib.contextmanager
def _schema_lock(engine):
    """One process at a time makes the schema of the database at engine.

    PostgreSQL's advisory lock, MySQL's GET_LOCK, a lock on the SQLite
    file: each is released when its holder's connection or process ends,
    so a job killed while making the schema blocks nobody.
    """
    dialect = engine.dialect.name
    if dialect == "sqlite":
        path = engine.url.database
        if not path or path == ":memory:":
            yield
            return
        with open(path, "ab") as held:
            _wait_for(lambda: _try_flock(held), engine)
            yield
        return
    import sqlalchemy
    if dialect not in _SQL_LOCKS:
        yield
        return
    take, give = _SQL_LOCKS[dialect]
    with engine.connect() as conn:
        _wait_for(lambda: bool(conn.execute(sqlalchemy.text(take)).scalar()),
                  engine)
        try:
            yield
        finally:
            conn.execute(sqlalchemy.text(give))


def _try_flock(held):
    try:
        fcntl.flock(held, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return True
    except BlockingIOError:
        return False


def _wait_for(took, engine):
    deadline = time.monotonic() + SCHEMA_WAIT_S
    while not took():
        if time.monotonic() > deadline:
            raise DatabaseError(
                "the Rally database %s: another run has been making its "
                "schema for over %s s" % (mask(str(engine.url)),
                                          SCHEMA_WAIT_S))
        time.sleep(0.2)
