"""No import cycle in the package, hidden in a function or not.

A function-level import hides a cycle from Python until the function
runs: the static graph here counts every import statement wherever it
stands. Then every module is imported in a fresh interpreter in a shuffled
order (the seed is in the failure message), which a cycle between
module-level imports breaks.
"""

import ast
import os
import random
import subprocess
import sys
import unittest

TOP = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
PACKAGE = "rally_container_bench"


def package_modules():
    """{dotted module name: path} of every module of the package."""
    found = {}
    for directory, _, files in os.walk(os.path.join(TOP, PACKAGE)):
        for name in files:
            if not name.endswith(".py"):
                continue
            path = os.path.join(directory, name)
            dotted = os.path.relpath(path[:-3], TOP).replace(os.sep, ".")
            found[dotted.removesuffix(".__init__")] = path
    return found


def imports_of(path, known):
    """Package modules the file imports, at any depth of its code."""
    with open(path) as f:
        tree = ast.parse(f.read(), path)
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            names = [node.module] + ["%s.%s" % (node.module, alias.name)
                                     for alias in node.names]
        else:
            continue
        found.update(name for name in names if name in known)
    return found


def cycles(graph):
    """Strongly connected groups of more than one module (Tarjan)."""
    index, low, stack, on_stack, groups = {}, {}, [], set(), []

    def visit(node):
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in graph[node]:
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return groups


class ImportGraphTestCase(unittest.TestCase):

    def test_cycles_finds_a_hidden_one(self):
        self.assertEqual([["a", "b"]], cycles({"a": {"b"}, "b": {"a"},
                                               "c": {"a"}}))
        self.assertEqual([], cycles({"a": {"b"}, "b": set()}))

    def test_no_cycle_in_the_package(self):
        modules = package_modules()
        graph = {name: imports_of(path, modules) - {name}
                 for name, path in modules.items()}
        self.assertGreater(len(graph), 50)
        self.assertEqual([], cycles(graph))

    def test_every_module_imports_in_a_shuffled_order(self):
        names = sorted(package_modules())
        seed = random.randrange(2 ** 32)
        random.Random(seed).shuffle(names)
        script = ("import importlib, sys\n"
                  "for name in sys.argv[1:]:\n"
                  "    importlib.import_module(name)\n")
        proc = subprocess.run([sys.executable, "-c", script] + names,
                              cwd=TOP, capture_output=True, text=True,
                              timeout=300)
        self.assertEqual(0, proc.returncode,
                         "seed %d: %s" % (seed, proc.stderr[-3000:]))
