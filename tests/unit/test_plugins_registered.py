"""Rally only logs a warning when a plugin module fails to import, so a
broken module would silently vanish from ``rally plugin list``: this test
loads the package the way Rally does (entry points) and checks every
module arrived and every plugin class is known to Rally."""

import importlib.metadata
import logging as std_logging
import pkgutil
import sys
import unittest

from rally.common import opts as rally_opts
from rally.common.plugin import discover
from rally.common.plugin import plugin
from rally import plugins as rally_plugins
from rally.task import scenario

from rally_container_bench import task as plugins_package

PACKAGE = "rally-container-bench"


def package_modules():
    """Every module Rally imports: the plugins live in the task package."""
    prefix = plugins_package.__name__ + "."
    return sorted(name for _, name, _ in pkgutil.walk_packages(
        plugins_package.__path__, prefix))


class EntryPointTestCase(unittest.TestCase):

    def test_entry_points_are_installed(self):
        eps = {(ep.group, ep.name): ep.value
               for ep in importlib.metadata.distribution(PACKAGE)
               .entry_points}
        # Not the whole package: Rally imports every module under the
        # path at each command, and the report's numpy/scipy/matplotlib
        # would cost seconds.
        self.assertEqual("rally_container_bench.task",
                         eps[("rally_plugins", "path")])
        self.assertEqual("rally_container_bench.opts:list_opts",
                         eps[("rally_plugins", "options")])
        self.assertEqual("rally_container_bench.opts:list_opts",
                         eps[("oslo.config.opts", "rally_container_bench")])
        self.assertEqual("rally_container_bench.cli.main:main",
                         eps[("console_scripts", "rcbench")])

    def test_rally_finds_the_package(self):
        names = [p["name"] for p in discover.find_packages_by_entry_point()]
        self.assertIn(PACKAGE, names)


class EveryModuleLoadsTestCase(unittest.TestCase):

    def test_rally_imports_every_module_without_a_warning(self):
        rally_opts.register()
        ours = [p for p in discover.find_packages_by_entry_point()
                if p["name"] == PACKAGE]
        self.assertEqual(1, len(ours))
        rally_opts.register_options_from_path(ours[0]["options"])
        with self.assertLogs(level=std_logging.WARNING) as logs:
            std_logging.getLogger(__name__).warning("sentinel")
            discover.import_modules_by_entry_point(_packages=ours)
        self.assertEqual(1, len(logs.output), logs.output)
        missing = [name for name in package_modules()
                   if name not in sys.modules]
        self.assertEqual([], missing)

    def test_every_plugin_class_is_registered(self):
        rally_plugins.load()
        ours = [cls for cls in discover.itersubclasses(plugin.Plugin)
                if cls.__module__.startswith("rally_container_bench.")
                and cls._meta_is_inited(raise_exc=False)]
        self.assertTrue(ours)
        for cls in ours:
            with self.subTest(plugin=cls.__name__):
                base = cls._get_base()
                self.assertIs(cls, base.get(cls.get_name(),
                                            platform=cls.get_platform(),
                                            allow_hidden=True))

    def test_comparison_exporter_is_registered(self):
        rally_plugins.load()
        from rally.task import exporter
        cls = exporter.TaskExporter.get("rcbench-comparison")
        self.assertIn("against native", cls.get_info()["title"])

    def test_native_scenario_is_platform_agnostic(self):
        rally_plugins.load()
        cls = scenario.Scenario.get("NativeHost.sysbench")
        self.assertEqual("default", cls.get_platform())
        self.assertIn("native baseline", cls.get_info()["title"])
