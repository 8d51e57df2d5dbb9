"""``rally task export --type rcbench-comparison --to DIR``."""

import json
import os

from rally import exceptions
from rally.plugins.task.exporters import json_exporter
from rally.task import exporter


@exporter.configure("rcbench-comparison")
class ComparisonExporter(exporter.TaskExporter):
    """Every platform against native: comparison.html, .csv, .json, .md.

    Groups the iterations of the given tasks by metric x platform
    (driver, runtime, acceleration) x concurrency and compares each group
    with the native baseline at the same concurrency: mean, SD, median,
    95 % CI, ratio to native with its CI, Mann-Whitney U p-value, Cliff's
    delta. ``--to`` is a directory (created if missing); the HTML opens
    offline. ``rcbench compare`` does the same from exported JSON files.
    """

    def generate(self):
        if not self.output_destination:
            return {"print": "rcbench-comparison writes four files: give a "
                             "directory with --to DIR"}
        directory = os.path.abspath(
            os.path.expanduser(self.output_destination))
        if os.path.exists(directory) and not os.path.isdir(directory):
            raise exceptions.RallyException(
                "rcbench-comparison: --to %s is a file; give a directory "
                "for comparison.html, .csv, .json and .md" % directory)
        # Imported here: Rally loads every plugin module at each command,
        # and numpy, scipy and matplotlib take seconds to import.
        from rally_container_bench.report import comparison
        from rally_container_bench.report import render

        exported = json_exporter.JSONExporter(self.tasks_results, None)
        document = json.loads(exported.generate()["print"])
        report = comparison.build([document])
        os.makedirs(directory, exist_ok=True)
        files = render.files(report, directory)
        return {"files": files,
                "open": "file://" + os.path.join(
                    directory, render.FILE_NAMES["html"])}
