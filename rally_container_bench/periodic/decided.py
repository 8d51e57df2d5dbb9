"""The periodic job through rcbench decide (``rcbench periodic --decide``).
"""

import os


def run_decided(rally, options, run_dir, log, tags):
    """The task as rcbench decide runs it: (uuids, status, sla_failed).

    Rounds until every cell has a verdict or the budget of the args
    file's decide mapping ends; its files are the run's (rally.json of
    every round, comparison.*, decide.json), and Rally's HTML report and
    JUnit XML of every round beside them.
    """
    from rally_container_bench.decide import plan as planner
    from rally_container_bench.decide import rally_reads
    from rally_container_bench.decide import run as decide
    from rally_container_bench.decide import settings as decide_settings

    args = decide_settings.read_task_args(
        options.task_args_file, options.task_args)
    try:
        args, where = decide_settings.with_compute_hosts(
            args, options.compute_hosts, options.env, rally.reads)
        if where:
            log("compute hosts from %s" % where)
        settings = decide_settings.settings_of(args)
    except (ValueError, planner.DecideError) as e:
        return [], "not run: %s" % e, False
    margins = decide_settings.margins_of(
        0.02, ["%s=%s" % item for item in sorted(
            (settings.get("margins") or {}).items())])
    log("rcbench decide %s: budget %s s, at most %d rounds"
        % (options.task, settings["budget_s"], settings["max_rounds"]))
    try:
        summary, _ = decide.decide(
            rally.argv, options.task, args, options.env, run_dir,
            settings["budget_s"], settings["max_rounds"],
            settings["pairs_per_round"], margins, stream=_LogStream(log),
            tags=tags, harness_yields=settings["harness_yields"],
            instrument_check=settings["instrument_check"],
            pairing=settings["pairing"])
    except (planner.DecideError, rally_reads.RallyReadError) as e:
        return [], "not run: %s" % e, False
    uuids = summary["tasks"]
    os.replace(os.path.join(run_dir, "rally.html"),
               os.path.join(run_dir, "report.html"))
    rally.export(uuids, "junit-xml", os.path.join(run_dir, "junit.xml"))
    log("decided %d of %d cells in %d round(s)" % (
        summary["decided"], summary["cells"], len(summary["rounds"])))
    status = "aborted" if summary["interrupted"] else "finished"
    return uuids, status, bool(summary["sla_failed"])


class _LogStream:
    """decide's progress lines, as the job's log lines."""

    def __init__(self, log):
        self.log = log

    def write(self, text):
        for line in text.replace("\r", "\n").splitlines():
            if line.strip():
                self.log(line.rstrip())

    def flush(self):
        pass

    def isatty(self):
        return False
