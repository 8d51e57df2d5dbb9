"""The guide as tox -e docs builds it: references that cannot drift, and
the HTML read offline in a real browser (Debian's headless Chromium).

Run by tox -e docs after sphinx-build, on doc/build/html.
"""

import os
import sys
import tempfile
import unittest
from unittest import mock

from oslo_config import cfg
from rally.task import scenario

from tests.functional import helpers

BUILD = os.path.join(helpers.TOP, "doc", "build", "html")
sys.path.insert(0, os.path.join(helpers.TOP, "doc", "source", "_ext"))
sys.path.insert(0, os.path.join(helpers.TOP, "tools"))

import check_docs  # noqa: E402
import rcbench_reference  # noqa: E402


def built():
    if not os.path.isfile(os.path.join(BUILD, "index.html")):
        raise unittest.SkipTest("no guide built in %s (tox -e docs)" % BUILD)


class ReferencesTestCase(unittest.TestCase):

    def setUp(self):
        built()

    def test_every_plugin_option_and_command_is_there(self):
        self.assertEqual([], check_docs.missing_items(BUILD))

    def test_a_scenario_without_docstring_is_refused(self):
        # A stand-in plugin (registered in this process only): what the
        # plugins directive refuses, the build fails on (-W).
        @scenario.configure(name="RcbenchDocsStandIn.undocumented")
        class Undocumented(scenario.Scenario):
            def run(self, size, tests=None):
                pass

        self.assertEqual(["docstring", ":param size:", ":param tests:"],
                         rcbench_reference.undocumented(Undocumented,
                                                        "scenario"))

        @scenario.configure(name="RcbenchDocsStandIn.half")
        class HalfDocumented(scenario.Scenario):
            def run(self, size, tests=None):
                """Boot something.

                :param size: how big
                """

        self.assertEqual([":param tests:"], rcbench_reference.undocumented(
            HalfDocumented, "scenario"))

    def test_an_option_without_help_is_refused(self):
        from rally_container_bench import opts
        bare = cfg.IntOpt("rcbench_docs_stand_in", default=1)
        listed = opts.list_opts()
        with mock.patch.object(opts, "list_opts", return_value=[
                (group, list(options) + [bare])
                for group, options in listed]):
            missing = check_docs.missing_items(BUILD)
        self.assertIn("help text of option [%s] rcbench_docs_stand_in"
                      % listed[0][0], missing)


@unittest.skipUnless(helpers.CHROMIUM, "chromium is not installed "
                                       "(tools/install-deps.sh installs it)")
class OfflineBrowserTestCase(unittest.TestCase):

    def setUp(self):
        built()
        self.profile = tempfile.TemporaryDirectory(prefix="rcbench-docs-")
        self.addCleanup(self.profile.cleanup)

    def dom(self, page):
        return helpers.offline_dom("file://" + os.path.join(BUILD, page),
                                   self.profile.name)

    def test_navigation_reaches_every_page(self):
        dom = self.dom("index.html")
        for page in ("getting-started.html", "local.html", "cloud.html",
                     "lifecycle.html", "report.html", "periodic.html",
                     "troubleshooting.html", "architecture.html",
                     "reference/plugins.html", "reference/config.html",
                     "reference/cli.html", "references.html",
                     "results/index.html"):
            self.assertIn('href="%s' % page, dom, page)

    def test_search_finds_pages_offline(self):
        # Sphinx's search runs in the page (searchindex.js): the results
        # list is filled in by it, with no server.
        dom = self.dom("search.html?q=disturbed")
        self.assertIn('id="search-results"', dom)
        self.assertRegex(dom, r'<li[^>]*><a href="[^"]*report\.html')

    def test_a_generated_reference_renders(self):
        dom = self.dom("reference/plugins.html")
        self.assertIn("NovaInstances.boot_sysbench_delete", dom)
        self.assertIn("ZunContainers.run_sysbench_delete", dom)
