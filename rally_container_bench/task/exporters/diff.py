"""``rally task export --uuid BASE --uuid CANDIDATE --type rcbench-diff``."""

import json
import os

from rally import exceptions
from rally.plugins.task.exporters import json_exporter
from rally.task import exporter


@exporter.configure("rcbench-diff")
class DiffExporter(exporter.TaskExporter):
    """Run against run: the second task against the first (the baseline).

    Every metric x platform x concurrency of both: change with its 95 %
    CI, permutation test, and a verdict (worse / better only when both
    significant and beyond the effect floor, 5 %). ``--to DIR`` writes
    diff.txt and diff.json there; without it the table is printed.
    ``rcbench diff BASELINE.json CANDIDATE.json`` does the same from
    exported files.
    """

    def generate(self):
        if len(self.tasks_results) != 2:
            raise exceptions.RallyException(
                "rcbench-diff compares two tasks: --uuid BASELINE --uuid "
                "CANDIDATE (got %d)" % len(self.tasks_results))
        # Imported here: numpy and scipy take seconds to import.
        from rally_container_bench.report import diff

        baseline, candidate = (
            json.loads(json_exporter.JSONExporter([task], None)
                       .generate()["print"])
            for task in self.tasks_results)
        changes, only, failed = diff.compare([baseline], [candidate])
        text = diff.format_changes(changes, only, failed) + "\n"
        if not self.output_destination:
            return {"print": text}
        directory = os.path.abspath(
            os.path.expanduser(self.output_destination))
        if os.path.exists(directory) and not os.path.isdir(directory):
            raise exceptions.RallyException(
                "rcbench-diff: --to %s is a file; give a directory for "
                "diff.txt and diff.json" % directory)
        os.makedirs(directory, exist_ok=True)
        document = json.dumps({"changes": [c._asdict() for c in changes],
                               "only": {k: [list(key) for key in v]
                                        for k, v in only.items()}},
                              indent=2) + "\n"
        return {"files": {os.path.join(directory, "diff.txt"): text,
                          os.path.join(directory, "diff.json"): document},
                "open": os.path.join(directory, "diff.txt")}
