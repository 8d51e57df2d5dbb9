"""The comparison's four files, from recorded local results."""

import csv
import io
import json
import os
import re
import unittest

from rally_container_bench.report import comparison
from rally_container_bench.report import forest
from rally_container_bench.report import kek_figures
from rally_container_bench.report import render
from rally_container_bench.report import sequential
from tests.unit.report import test_comparison

REPORT = comparison.build([test_comparison.load(test_comparison.RUN_OF_4)])


class CsvTestCase(unittest.TestCase):

    def test_columns_and_one_line_per_row(self):
        table = list(csv.DictReader(io.StringIO(render.to_csv(REPORT))))
        header = list(table[0])
        self.assertEqual(list(comparison.CSV_COLUMNS),
                         header[:len(comparison.CSV_COLUMNS)])
        self.assertEqual(len(REPORT["rows"]), len(table))
        cpu = [r for r in table if r["metric"] == "sysbench.cpu.events_per_s"
               and r["platform"] == "docker-runc" and r["concurrency"] == "1"]
        self.assertEqual("events/s", cpu[0]["unit"])
        self.assertGreater(float(cpu[0]["mean"]), 0)
        self.assertLess(float(cpu[0]["ci_low"]), float(cpu[0]["ci_high"]))
        self.assertLessEqual(0, float(cpu[0]["p_value"]))


class JsonTestCase(unittest.TestCase):

    def test_round_trips(self):
        document = json.loads(render.to_json(REPORT))
        self.assertEqual(len(REPORT["rows"]), len(document["rows"]))
        self.assertIn("bootstrap", document["methods"]["ratio_ci"])


class MarkdownTestCase(unittest.TestCase):

    def test_headline_per_concurrency_with_percent_and_interval(self):
        text = render.to_markdown(REPORT)
        self.assertIn("## Concurrency 1: workloads vs native", text)
        self.assertIn("## Concurrency 2: instance phases", text)
        line = next(text_line for text_line in text.splitlines()
                    if text_line.startswith("| sysbench.cpu.events_per_s"))
        cells = [c.strip() for c in line.strip("|").split("|")]
        self.assertEqual(7, len(cells))  # metric, native, 5 platforms
        # native: its own mean and CI; the others: "-72.6 % [-74.0,
        # -71.2] worse", "+1.4 % [+0.9, +1.9] equivalent ±2 %", ...
        self.assertRegex(cells[1], r"^[0-9.]+ \[[0-9.]+, [0-9.]+\]$")
        for cell in cells[2:]:
            self.assertRegex(cell, r"^[+-][0-9.]+ % \[[+-][0-9.]+, "
                                   r"[+-][0-9.]+\] (worse|better|equivalent "
                                   r"±2 %|inconclusive \(n ≈ \d+\))$")
        self.assertIn("worse", line)
        self.assertIn("n per cell: 4", text)

    def test_no_cell_inside_the_margin_is_called_better_or_worse(self):
        for row in REPORT["rows"]:
            if row["verdict"] in ("better", "worse"):
                self.assertGreater(abs(row["change"]), row["margin"], row)
            if row["verdict"] == "equivalent":
                self.assertLess(row["change_ci_high"], row["margin"])
                self.assertGreater(row["change_ci_low"], -row["margin"])

    def test_headline_shows_one_number_per_measurement(self):
        headline = {m["name"] for m in REPORT["metrics"] if m["headline"]}
        self.assertIn("sysbench.memory.read.mib_per_s", headline)
        self.assertNotIn("sysbench.memory.read.ops_per_s", headline)
        self.assertIn("sysbench.fileio.rndrd.read_mib_per_s", headline)
        self.assertNotIn("sysbench.fileio.rndrd.reads_per_s", headline)
        self.assertIn("sysbench.cpu.events_per_s", headline)

    def test_steps_say_how_many_ran_at_once(self):
        # The recorded run had no synchronised start: memory tests of the
        # containers at concurrency 2 ran well below 2 at once.
        text = render.to_markdown(REPORT)
        self.assertIn("## How each step ran", text)
        self.assertRegex(text, r"\| podman-crun \| 2 \| no \| 1\.\d+ of 2")
        self.assertIn("sysbench.memory.read ran", text)


class SequentialLineTestCase(unittest.TestCase):

    def test_cells_too_small_for_a_verdict_count_as_undecided(self):
        # CI's quickstart at 1 pair a round said "0 undecided" of its 18
        # undecided cells: none had the 3 pairs a verdict needs.
        report = {"baseline": "native", "metrics": [
            {"name": "build", "kind": "phase", "headline": True},
            {"name": "cpu", "kind": "workload", "headline": True}]}
        report["rows"] = [
            {"platform": "native", "metric": "cpu", "verdict": None},
            {"platform": "docker", "metric": "cpu", "verdict": "equivalent",
             "alpha": 0.02, "time_to_verdict_s": 300.0},
            {"platform": "podman", "metric": "cpu", "verdict": "inconclusive",
             "alpha": 0.02},
            {"platform": "lxc", "metric": "cpu", "verdict": None,
             "alpha": None},
            {"platform": "lxc", "metric": "build", "verdict": None}]
        line = sequential.decided_line(report)
        self.assertEqual(
            "Sequential: 1 headline cell(s) decided, time to verdict "
            "300-300 s; 2 undecided (each says the pairs it needs; 1 too "
            "few for any verdict).", line)


class HtmlTestCase(unittest.TestCase):

    html = render.to_html(REPORT)

    def test_self_contained(self):
        for pattern in (r"<script", r"<link", r"<img", r"src=", r"@import",
                        r"url\(\s*['\"]?(https?:|//)"):
            with self.subTest(pattern=pattern):
                self.assertIsNone(re.search(pattern, self.html))

    def test_a_figure_per_headline_metric_after_the_answer(self):
        headline = [m for m in REPORT["metrics"] if m["headline"]]
        answers = forest.figures(REPORT)
        # a ladder's phases are one figure of KEK's, beside its difference
        kek = kek_figures.figures(REPORT)
        phases = [m for m in headline if m["kind"] == "phase"]
        self.assertEqual(len(headline) + len(answers) + len(kek)
                         - (len(phases) if "phases" in kek else 0),
                         self.html.count("<svg"))
        if answers:
            # the answer comes first, before any table or warning
            self.assertLess(self.html.index('id="answer"'),
                            self.html.index('id="headline"'))

    def test_every_section(self):
        for anchor in ("headline", "phases", "workloads", "statistics",
                       "environment", "methods"):
            self.assertIn('id="%s"' % anchor, self.html)
        for task in REPORT["tasks"]:
            self.assertIn(task["uuid"], self.html)

    def test_significance_colours_the_cells(self):
        self.assertRegex(self.html, r'<td class="worse')

    def test_values_from_results_are_escaped(self):
        document = test_comparison.load(test_comparison.RUN_OF_2)
        hostile = "<script>alert(1)</script>"
        for workload in test_comparison.workloads(document):
            for iteration in workload["data"]:
                for table in iteration["output"]["complete"]:
                    if table["title"] == "environment":
                        table["data"]["rows"].append(["image_name", "x"])
                        for row in table["data"]["rows"]:
                            if row[0] == "image":
                                row[1] = hostile
        document["tasks"][0]["title"] = hostile
        html = render.to_html(comparison.build([document]))
        self.assertNotIn(hostile, html)
        self.assertIn("&lt;script&gt;", html)


class FilesTestCase(unittest.TestCase):

    def test_four_files_in_the_directory_and_the_forest_plots(self):
        files = render.files(REPORT, "/out")
        plots = {"/out/forest-c%s.svg" % step
                 for step, _ in forest.figures(REPORT)} | {
            "/out/" + kek_figures.FILES[kind]
            for kind in kek_figures.figures(REPORT)}
        self.assertEqual({"/out/comparison.html", "/out/comparison.csv",
                          "/out/comparison.json", "/out/comparison.md"}
                         | plots, set(files))
        for path in plots:
            self.assertIn("](%s)" % os.path.basename(path),
                          files["/out/comparison.md"])
