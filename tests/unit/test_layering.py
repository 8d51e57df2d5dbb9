"""The package's layers, and no arrow back up, string imports included.

    opts (Rally's options entry point)
      <- core (errors, processes, waits, SSH, ports, labels, mounts, the
         aborted wait, engine timestamps, what made a result), and beside
         it the offline images (which start their builds through core's
         processes)
      <- engine packages (engines/<engine>/; each may use engines/oci,
         the layer the OCI-runtime engines share, and nothing else of its
         siblings)
         and beside them, the workload tools (workloads/: sysbench, fio,
         net, the registry, the metric record) and what makes a
         measurement valid (validity: host readings, foreign load, clock,
         barrier, compute hosts): none of the three imports another
      <- the catalog (engines/catalog.py, registry.py, daemons.py)
      <- the Rally plugins (task/) and the report (report/)
      <- the sequential run (decide/)
      <- the periodic job (periodic/), which runs decide's rounds
      <- the command line (cli/)

Every package of the tree has its rank; a module at the package root
other than opts fails. Every import statement counts, wherever it
stands, and so does every string naming a module of the package (the
catalog loads engine classes by such strings): a cycle hidden in one is
still an arrow back.
"""

import ast
import os
import re
import unittest

from tests.unit import test_import_graph as graph

PACKAGE = graph.PACKAGE
UTILITIES = ("opts",)
TOOLS = ("workloads",)
# the packages above the catalog, by rank
UPPER = {"task": 4, "report": 4, "decide": 5, "periodic": 6, "cli": 7}
CATALOG = ("engines.catalog", "engines.registry", "engines.daemons")
# A dotted module path inside a string, with an optional ":attribute".
_STRING_IMPORT = re.compile(r"^(%s(?:\.\w+)+)(?::\w+)?$" % PACKAGE)


def layer(module):
    """(rank, package) of a module: a lower rank may not import a higher."""
    if module == PACKAGE:
        return 0, None  # its __init__: a docstring
    inner = module[len(PACKAGE) + 1:]
    if inner.split(".")[0] in UTILITIES:
        return 0, None
    if inner.split(".")[0] in ("core", "images"):
        return 1, None
    if inner in CATALOG:
        return 3, None
    if inner.split(".")[0] in TOOLS:
        return 2, "(tools)"
    if inner.split(".")[0] == "validity":
        return 2, "(validity)"
    parts = inner.split(".")
    if parts[0] == "engines" and len(parts) > 1:
        return 2, parts[1]
    if inner == "engines":
        return 2, None
    if parts[0] in UPPER:
        return UPPER[parts[0]], None
    raise ValueError("%s is in no layer: a module at the package root, or "
                     "a package the layering does not know" % module)


def string_imports(path, known):
    """Package modules named in the file's string constants."""
    with open(path) as f:
        tree = ast.parse(f.read(), path)
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            match = _STRING_IMPORT.match(node.value.strip())
            if match and match.group(1) in known:
                found.add(match.group(1))
    return found


def arrows_back(modules):
    """[(importer, imported, why)] that break the layering.

    modules: {dotted name: path}, as test_import_graph.package_modules.
    """
    known = set(modules)
    bad = []
    for module, path in sorted(modules.items()):
        rank, engine = layer(module)
        targets = graph.imports_of(path, known) | string_imports(path, known)
        for target in sorted(targets):
            to_rank, to_engine = layer(target)
            if to_rank > rank:
                bad.append((module, target, "imports a higher layer"))
            elif rank == to_rank == 2 and engine != to_engine and (
                    {"(tools)", "(validity)"} & {engine, to_engine}):
                bad.append((module, target, "crosses engines and tools"
                            if "(validity)" not in (engine, to_engine)
                            else "crosses validity and engines or tools"))
            elif rank == to_rank == 2 and engine and to_engine and \
                    engine != to_engine and to_engine != "oci":
                bad.append((module, target, "imports another engine"))
    return bad


class LayeringTestCase(unittest.TestCase):

    def test_no_arrow_back_in_the_package(self):
        self.assertEqual([], arrows_back(graph.package_modules()))

    def test_an_upward_import_is_caught(self):
        found = self.check({
            "core/__init__.py": "",
            "core/base.py": "from rally_container_bench.engines import "
                            "catalog\n",
            "engines/__init__.py": "",
            "engines/catalog.py": ""})
        self.assertIn(("rally_container_bench.core.base",
                       "rally_container_bench.engines.catalog",
                       "imports a higher layer"), found)

    def test_the_report_or_the_job_importing_what_runs_them_is_caught(self):
        found = self.check({
            "report/__init__.py": "",
            "report/render.py": "from rally_container_bench.decide import "
                                "run\n",
            "decide/__init__.py": "",
            "decide/run.py": "",
            "periodic/__init__.py": "",
            "periodic/job.py": "from rally_container_bench.cli import "
                               "main\n",
            "cli/__init__.py": "",
            "cli/main.py": ""})
        self.assertIn(("rally_container_bench.report.render",
                       "rally_container_bench.decide.run",
                       "imports a higher layer"), found)
        self.assertIn(("rally_container_bench.periodic.job",
                       "rally_container_bench.cli.main",
                       "imports a higher layer"), found)

    def test_no_module_over_400_lines(self):
        long = {}
        for module, path in graph.package_modules().items():
            with open(path) as f:
                lines = sum(1 for _ in f)
            if lines > 400:
                long[module] = lines
        self.assertEqual({}, long)

    def test_a_module_at_the_package_root_is_in_no_layer(self):
        with self.assertRaisesRegex(ValueError, "in no layer"):
            self.check({"helpers.py": ""})
        self.assertEqual((0, None), layer(PACKAGE + ".opts"))

    def test_a_string_import_is_caught(self):
        found = self.check({
            "engines/__init__.py": "",
            "engines/docker/__init__.py": "",
            "engines/docker/lifecycle.py":
                "VIEW = 'rally_container_bench.engines.registry:lifecycle'\n",
            "engines/registry.py": ""})
        self.assertEqual(
            [("rally_container_bench.engines.docker.lifecycle",
              "rally_container_bench.engines.registry",
              "imports a higher layer")], found)

    def test_an_engine_importing_a_sibling_is_caught(self):
        found = self.check({
            "engines/__init__.py": "",
            "engines/oci/__init__.py": "",
            "engines/oci/runtimes.py": "",
            "engines/podman/__init__.py": "",
            "engines/podman/instance.py":
                "from rally_container_bench.engines.oci import runtimes\n"
                "from rally_container_bench.engines.docker import "
                "instance\n",
            "engines/docker/__init__.py": "",
            "engines/docker/instance.py": ""})
        self.assertIn(
            ("rally_container_bench.engines.podman.instance",
             "rally_container_bench.engines.docker.instance",
             "imports another engine"), found)
        # the shared OCI layer is no sibling
        self.assertNotIn("rally_container_bench.engines.oci.runtimes",
                         [imported for _, imported, _ in found])

    def test_an_engine_knowing_a_workload_tool_is_caught(self):
        found = self.check({
            "engines/__init__.py": "",
            "engines/lxc/__init__.py": "",
            "engines/lxc/instance.py":
                "from rally_container_bench.workloads import tools\n",
            "workloads/__init__.py": "",
            "workloads/tools.py": ""})
        self.assertIn(
            ("rally_container_bench.engines.lxc.instance",
             "rally_container_bench.workloads.tools",
             "crosses engines and tools"), found)

    def check(self, files):
        """arrows_back of a package made of ``files`` {path: source}."""
        import tempfile
        with tempfile.TemporaryDirectory() as top:
            modules = {}
            for relative, source in files.items():
                path = os.path.join(top, PACKAGE, relative)
                os.makedirs(os.path.dirname(path), exist_ok=True)
                with open(path, "w") as f:
                    f.write(source)
                dotted = (PACKAGE + "." + relative[:-3].replace("/", ".")
                          ).removesuffix(".__init__")
                modules[dotted] = path
            return arrows_back(modules)
