"""The comparison report through Rally's own CLI and in a real browser.

Input: Rally results recorded from a real quickstart run of the local
scenarios (tests/fixtures/rally/local-quick-4.json), imported into a
private Rally DB, exported with ``rally task export --type
rcbench-comparison``; the HTML opened in Debian's headless Chromium.
"""

import os
import re
import subprocess
import tempfile
import unittest

from PIL import Image

from tests.functional import helpers

FIXTURE = os.path.join(helpers.TOP, "tests", "fixtures", "rally",
                       "local-quick-4.json")
CHROMIUM = helpers.CHROMIUM
# The report's own colours (report/comparison.html, matplotlib tab10).
WORSE_CELL = (0xf4, 0xb3, 0xad)
FIRST_PLATFORM = (0x1f, 0x77, 0xb4)  # qemu-tcg's lines and bars
_WORK = None  # this module's scratch directory
COMPARED = None  # rcbench compare FIXTURE, written once for every test


def setUpModule():
    global _WORK, COMPARED
    _WORK = tempfile.TemporaryDirectory(prefix="rcbench-report-")
    COMPARED = os.path.join(_WORK.name, "compared")
    proc = subprocess.run(
        [os.path.join(helpers.BIN, "rcbench"), "compare", FIXTURE, "--out",
         COMPARED], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr


def tearDownModule():
    _WORK.cleanup()


headless_chromium = helpers.headless_chromium


def import_fixture(home):
    """The fixture's task imported into home's Rally DB; its uuid."""
    imported = home.rally("task", "import", "--file", FIXTURE,
                          "--env", "local").stdout
    return re.search(r"Task UUID: ([0-9a-f-]{36})", imported).group(1)


class ComparisonExportTestCase(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.home = helpers.RallyHome()
        cls.uuid = import_fixture(cls.home)
        cls.exported = os.path.join(cls.home.path, "exported")
        cls.home.rally("task", "export", "--uuid", cls.uuid, "--type",
                       "rcbench-comparison", "--to", cls.exported)

    @classmethod
    def tearDownClass(cls):
        cls.home.close()

    def read(self, directory, name):
        with open(os.path.join(directory, name)) as f:
            return f.read()

    def test_rally_export_writes_the_four_files_and_forest_plots(self):
        written = sorted(os.listdir(self.exported))
        self.assertEqual(
            ["comparison.csv", "comparison.html", "comparison.json",
             "comparison.md"],
            [name for name in written if not name.endswith(".svg")])
        plots = [name for name in written if name.endswith(".svg")]
        self.assertTrue(plots)
        # the answer's forest plots, and KEK's figures of a ladder
        self.assertTrue(all(re.match(r"(forest-c\d+|kek-[a-z]+)\.svg$",
                                     name) for name in plots), plots)
        self.assertIn(self.uuid, self.read(self.exported, "comparison.html"))

    def test_rally_export_and_rcbench_compare_agree(self):
        # Same statistics from Rally's DB and from the exported file.
        self.assertEqual(self.read(COMPARED, "comparison.csv"),
                         self.read(self.exported, "comparison.csv"))

    def test_export_to_a_file_is_refused(self):
        path = os.path.join(self.home.path, "report.html")
        with open(path, "w") as f:
            f.write("mine")
        proc = self.home.rally("task", "export", "--uuid", self.uuid,
                               "--type", "rcbench-comparison", "--to", path,
                               check=False)
        self.assertNotEqual(0, proc.returncode)
        self.assertIn("is a file; give a directory", proc.stdout + proc.stderr)
        with open(path) as f:
            self.assertEqual("mine", f.read())

    def test_export_without_a_directory_says_what_it_needs(self):
        proc = self.home.rally("task", "export", "--uuid", self.uuid,
                               "--type", "rcbench-comparison")
        self.assertIn("--to DIR", proc.stdout)


@unittest.skipUnless(CHROMIUM, "chromium is not installed "
                               "(tools/install-deps.sh installs it)")
class ComparisonInBrowserTestCase(unittest.TestCase):
    """What a person sees: the page rendered, tables coloured, plots drawn."""

    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.TemporaryDirectory(prefix="rcbench-shot-")
        cls.png = os.path.join(cls.dir.name, "shot.png")
        # Offline: no network is reachable, and the page must need none.
        proc = subprocess.run(
            headless_chromium(os.path.join(cls.dir.name, "profile"))
            + ["--hide-scrollbars", "--window-size=1400,6000",
               "--screenshot=" + cls.png,
               "file://" + os.path.join(COMPARED, "comparison.html")],
            capture_output=True, text=True, timeout=120)
        assert os.path.exists(cls.png), proc.stderr[-2000:]
        cls.image = Image.open(cls.png).convert("RGB")

    @classmethod
    def tearDownClass(cls):
        cls.dir.cleanup()

    def count(self, colour, box=None, tolerance=6):
        region = self.image.crop(box) if box else self.image
        return sum(n for n, pixel in region.getcolors(maxcolors=1 << 24)
                   if all(abs(a - b) <= tolerance
                          for a, b in zip(pixel, colour)))

    def test_title_is_drawn_at_the_top(self):
        dark = self.count((0x22, 0x22, 0x22), box=(0, 0, 700, 60),
                          tolerance=60)
        self.assertGreater(dark, 500)

    def test_page_is_not_blank(self):
        white = self.count((255, 255, 255), tolerance=3)
        total = self.image.width * self.image.height
        self.assertLess(white / total, 0.93)

    def test_worse_than_native_cells_are_coloured(self):
        # The TCG guest is slower than native on every workload: its
        # headline cells are red, under the answer's figures at the top.
        self.assertGreater(self.count(WORSE_CELL, box=(0, 0, 1400, 2500)),
                           2000)

    def test_the_answer_is_the_first_thing_on_the_page(self):
        dom = helpers.offline_dom(
            "file://" + os.path.join(COMPARED, "comparison.html"),
            os.path.join(self.dir.name, "dom-profile"))
        answer = dom.index('id="answer"')
        # the forest plots before any table, warning or other figure
        self.assertLess(answer, dom.index("<svg"))
        self.assertLess(answer, dom.index("<table"))
        self.assertLess(answer, dom.index('class="warning"'))
        self.assertIn("each platform against native", dom)

    def test_a_quiet_run_shows_no_warning_box(self):
        # A run whose disturbed tests were all measured again, none left
        # out: a note, no warning.
        from rally_container_bench.report import comparison
        from rally_container_bench.report import render
        from tests.unit.report import test_paired
        iterations = [test_paired._iteration(
            test_paired._records(1000 + i, 1000 + i, attempt=2),
            [test_paired._check(1, "instance", 0.6, True, "re-measured"),
             test_paired._check(2, "instance", 0.0, False, "used")],
            10.0 * i) for i in range(4)]
        report = comparison.build([test_paired._document(iterations)])
        self.assertEqual([], report["warnings"])
        path = os.path.join(self.dir.name, "quiet.html")
        with open(path, "w") as f:
            f.write(render.to_html(report))
        dom = helpers.offline_dom("file://" + path, os.path.join(
            self.dir.name, "quiet-profile"))
        self.assertNotIn('class="warning"', dom)
        self.assertIn('class="note"', dom)
        self.assertIn("re-measured", dom)

    def test_a_false_aa_decision_is_a_warning_box_by_the_check(self):
        # A stand-in run (tests/unit/report/test_instrument.py's document,
        # labelled so) whose A/A cell is forced 10 % apart: a false
        # decision, which the page must put before the reader.
        from rally_container_bench.report import comparison
        from rally_container_bench.report import render
        from tests.unit.report import test_instrument
        report = comparison.build([test_instrument.document(aa=0.9)],
                                  margins={"cpu": 0.03})
        path = os.path.join(self.dir.name, "false-aa.html")
        with open(path, "w") as f:
            f.write(render.to_html(report))
        dom = helpers.offline_dom("file://" + path, os.path.join(
            self.dir.name, "false-aa-profile"))
        check = dom.index('id="instrument-check"')
        warning = dom.index('class="warning"')
        self.assertLess(check, warning)
        self.assertLess(warning, dom.index('id="headline"'))
        self.assertIn("false decision", dom[warning:warning + 600])

    def test_plots_are_drawn(self):
        # Lines and bars of the first platform in the figures below the
        # headline tables.
        self.assertGreater(
            self.count(FIRST_PLATFORM, box=(0, 1200, 1400, 6000)), 3000)


@unittest.skipUnless(CHROMIUM, "chromium is not installed "
                               "(tools/install-deps.sh installs it)")
class TablesFitTheWindowTestCase(unittest.TestCase):
    """Seven platforms at 1400 px: no table of the report scrolls sideways.

    The real quickstart's report (its six platforms) with a seventh made
    of one platform's rows under another name; every details element
    opened, the widths read by the page itself in Chromium.
    """

    PROBE = """<script>
document.querySelectorAll("details").forEach(function (d) {
  d.open = true;
});
var page = document.documentElement.clientWidth, wide = [];
document.querySelectorAll("table").forEach(function (t, i) {
  var r = t.getBoundingClientRect();
  if (r.right > page + 1)
    wide.push(t.className + "#" + i + ":" + Math.round(r.right));
});
document.body.setAttribute("data-page", page);
document.body.setAttribute("data-wide", wide.join(" ") || "none");
var scroll = document.documentElement.scrollWidth;
document.body.setAttribute("data-scroll", scroll);
</script></body>"""

    def test_no_table_is_wider_than_the_page(self):
        import json
        from rally_container_bench.report import comparison
        from rally_container_bench.report import render
        with open(FIXTURE) as f:
            report = comparison.build([json.load(f)])
        source = next(p for p in report["platforms"]
                      if p["label"] == "docker-runc")
        report["platforms"].append(dict(source, label="docker-seventh"))
        report["rows"] += [dict(row, platform="docker-seventh")
                           for row in report["rows"]
                           if row["platform"] == "docker-runc"]
        self.assertEqual(7, len(report["platforms"]))
        with tempfile.TemporaryDirectory() as scratch:
            page = os.path.join(scratch, "comparison.html")
            with open(page, "w") as f:
                f.write(render.to_html(report).replace("</body>",
                                                       self.PROBE))
            proc = subprocess.run(
                headless_chromium(os.path.join(scratch, "profile"))
                + ["--proxy-server=127.0.0.1:9", "--window-size=1400,1000",
                   "--virtual-time-budget=5000", "--dump-dom",
                   "file://" + page],
                capture_output=True, text=True, timeout=120)
        found = dict(re.findall(r'data-(page|wide|scroll)="([^"]*)"',
                                proc.stdout))
        # 1400 px less a vertical scrollbar's width
        self.assertGreater(int(found.get("page", 0)), 1350,
                           proc.stderr[-2000:])
        self.assertEqual("none", found["wide"])
        self.assertLessEqual(int(found["scroll"]), int(found["page"]))


class RallyReportOfflineTestCase(unittest.TestCase):
    """Rally's own HTML report, as the quickstart writes it, offline."""

    @classmethod
    def setUpClass(cls):
        cls.home = helpers.RallyHome()
        cls.uuid = import_fixture(cls.home)

    @classmethod
    def tearDownClass(cls):
        cls.home.close()

    def rendered(self, *form):
        path = os.path.join(self.home.path, "rally-%d.html" % len(form))
        self.home.rally("task", "report", self.uuid, *form, "--out", path)
        return helpers.offline_dom("file://" + path,
                                   os.path.join(self.home.path, "profile"))

    def test_the_static_report_renders_its_overview_offline(self):
        dom = self.rendered("--html-static")
        self.assertRegex(dom, r'id="page-error"[^>]*display: ?none')
        # The overview's workload list, filled in by AngularJS (the data
        # itself is in the page either way).
        self.assertGreaterEqual(len(RENDERED_WORKLOAD.findall(dom)), 10)

    def test_the_plain_report_needs_the_internet(self):
        # Why the quickstart and the periodic job write the static form.
        dom = self.rendered()
        self.assertRegex(dom, r'id="page-error"[^>]*display: ?block;?">'
                              r'Failed to load AngularJS framework')
        self.assertEqual([], RENDERED_WORKLOAD.findall(dom))


RENDERED_WORKLOAD = re.compile(r'class="ng-binding">[^<]*'
                               r'boot_sysbench_delete')
