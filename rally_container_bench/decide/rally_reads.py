"""What rcbench reads of Rally's database, read in this process.

A task's status and SLA, Rally's JSON report, its exports (static HTML,
JUnit XML, the comparison report, trends) go through Rally's own API
here: as a rally process each spent ~2.5 s of CPU starting Python and
Rally and ~3 s more loading every plugin before an export (about 50 s of
CPU in a run of the periodic job, 16 s in a round of rcbench decide, on
hosts of two cores). What changes state (the schema, envs, starting a
task) stays the rally CLI's, as an operator types it.
"""

import json
import logging
import os


class RallyReadError(ValueError):
    """Rally could not read or export; the message says why.

    A ValueError: rcbench's commands say it as one error line, exit 2.
    """


def ended_only(task):
    """A task's detailed dict without the workloads that never ended.

    A Rally killed midway (kill -9, a lost session) leaves the workload
    it ran with no results at all: no statistics, which Rally's own HTML
    report cannot draw. What ended is kept (rcbench decide --resume
    keeps those cells). Rally's JSON report keeps them all.
    """
    for subtask in task["subtasks"]:
        subtask["workloads"] = [
            w for w in subtask["workloads"]
            if "durations" in (w.get("statistics") or {})]
    task["subtasks"] = [s for s in task["subtasks"] if s["workloads"]]
    return task


class RallyReads:

    def __init__(self, config_file=None, hide=lambda text: text):
        self.config_file = config_file
        self.hide = hide  # what an error must not show (a DB password)
        self._api = None

    @classmethod
    def of_argv(cls, argv, hide=lambda text: text):
        """For the rally command line argv (its --config-file, if any)."""
        argv = list(argv)
        config = argv[argv.index("--config-file") + 1] \
            if "--config-file" in argv[:-1] else None
        return cls(config, hide)

    def api(self):
        if self._api is None:
            from rally import api
            from rally.common.plugin import discover
            self._api = api.API(config_file=self.config_file,
                                skip_db_check=True)
            # as quiet as the CLI: not each report's "Building ..."
            logging.getLogger("rally").setLevel(logging.WARNING)
            # the exporters only, not every plugin (rally-openstack's)
            discover.import_modules_from_package(
                "rally.plugins.task.exporters")
            from rally_container_bench.task.exporters import (  # noqa
                comparison)
        return self._api

    def env_data(self, name):
        """A Rally env's data ({platforms, extras, ...}); None if none.

        Its credentials are in it: never print it whole.
        """
        self.api()
        from rally.env import env_mgr
        from rally import exceptions
        try:
            return env_mgr.EnvManager.get(name).data
        except exceptions.DBRecordNotFound:
            return None
        except Exception as e:
            raise RallyReadError("rally env %s: %s" % (name, self.hide(
                str(e))))

    def export(self, sources, output_type, destination):
        """rally task export / report / trends, --type output_type --to ...

        sources: task uuids, or results files (rally.json) as the CLI
        takes them. output_type: json (``task report --json``),
        html-static, junit-xml, rcbench-comparison, trends-html-static.
        """
        try:
            api = self.api()
            from rally.cli import task_results_loader
            tasks = []
            for source in sources:
                if os.path.isfile(source):
                    tasks += task_results_loader.load(source)
                elif output_type == "json":
                    # the record as Rally has it (a running task's too)
                    tasks.append(source)
                else:
                    tasks.append(ended_only(api.task.get(task_id=source,
                                                         detailed=True)))
            made = api.task.export(tasks=tasks, output_type=output_type,
                                   output_dest=destination)
        except Exception as e:
            raise RallyReadError("rally task export --type %s failed: %s"
                                 % (output_type, self.hide(str(e))))
        for path, text in (made or {}).get("files", {}).items():
            with open(os.path.expanduser(path), "w") as f:
                f.write(text)

    def report(self, uuids, path):
        """Rally's JSON report of the tasks, written to path and read."""
        self.export(uuids, "json", path)
        with open(path) as f:
            return json.load(f)

    def status(self, uuid):
        """Rally's status of the task: finished, aborted, crashed, ..."""
        try:
            return self.api().task.get(task_id=uuid)["status"]
        except Exception:
            return "unknown"

    def sla_passed(self, uuid):
        """As ``rally task sla-check``: criteria there, and all passed."""
        task = self.api().task.get(task_id=uuid, detailed=True)
        results = [sla for subtask in task["subtasks"]
                   for workload in subtask["workloads"]
                   for sla in workload["sla_results"].get("sla", [])]
        return bool(results) and all(sla["success"] for sla in results)
