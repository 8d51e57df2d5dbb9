"""References generated from the code, so they cannot drift.

Directives:

``.. rcbench-plugins:: scenario``  every Rally plugin of this package of that
    kind (scenario, context, validator, exporter): its name, platform,
    docstring and arguments, as ``rally plugin show`` gives them. A plugin
    without a docstring, or a scenario argument without a ``:param:``
    description, is an error: the build (warnings as errors) fails.
``.. rcbench-cli::``  ``rcbench --help`` and every subcommand's help, from
    the argparse parser itself.
and, before the sources are read, a page per committed results directory
(results/<name>/: meta.json, the comparison report's own comparison.md and
decide.json).
"""

import argparse
import inspect
import json
import os
import re

from docutils import nodes
from docutils.parsers.rst import Directive
from docutils.statemachine import StringList

PACKAGE = "rally_container_bench"
KINDS = {
    "scenario": ("rally.task.scenario", "Scenario"),
    "context": ("rally.task.context", "BaseContext"),
    "validator": ("rally.common.validation", "Validator"),
    "exporter": ("rally.task.exporter", "TaskExporter"),
}


def load_plugins():
    """Rally's plugins and this package's (its rally_plugins entry point)."""
    from rally.common.plugin import discover
    from rally import plugins
    plugins.load()
    discover.import_modules_from_package(PACKAGE + ".task")


def ours(kind):
    """This package's plugins of a kind, sorted by name."""
    import importlib
    module, name = KINDS[kind]
    base = getattr(importlib.import_module(module), name)
    load_plugins()
    found = [p for p in base.get_all(allow_hidden=True)
             if p.__module__.startswith(PACKAGE)]
    return sorted(found, key=lambda p: p.get_name())


def undocumented(plugin, kind):
    """What is missing from a plugin's documentation, or []."""
    info = plugin.get_info()
    missing = []
    if not info["title"].strip():
        missing.append("docstring")
    if kind == "scenario":
        documented = {p["name"] for p in info["parameters"]}
        arguments = [name for name in
                     inspect.signature(plugin.run).parameters
                     if name not in ("self", "args", "kwargs")]
        missing += [":param %s:" % name for name in arguments
                    if name not in documented]
    return missing


def _indented(text, by="   "):
    return [by + line if line.strip() else "" for line in
            text.splitlines()]


def plugin_rst(plugin, kind):
    info = plugin.get_info()
    # A rubric, not a section: generated content cannot hold sections.
    lines = [".. rubric:: " + info["name"], ""]
    lines += ["*%s plugin, platform* ``%s`` *(module* ``%s`` *)*"
              % (kind, info["platform"], info["module"]), ""]
    lines += [info["title"], ""]
    if info["description"]:
        lines += ["::", ""] + _indented(info["description"]) + [""]
    if info["parameters"]:
        lines += [".. list-table:: Arguments", "   :widths: 25 75",
                  "   :header-rows: 1", "", "   * - argument",
                  "     - description"]
        for param in info["parameters"]:
            doc = " ".join(param["doc"].split()) or "(no description)"
            lines += ["   * - ``%s``" % param["name"], "     - %s"
                      % _escaped(doc)]
        lines.append("")
    if info["returns"]:
        lines += ["Returns: " + _escaped(info["returns"]), ""]
    return lines


def _escaped(text):
    """Plain text in reStructuredText: no markup but ``literals``."""
    for char in "\\*`|_[]":
        text = text.replace(char, "\\" + char)
    return re.sub(r"\\`\\`(.+?)\\`\\`",
                  lambda m: "``%s``" % m.group(1).replace("\\", ""), text)


class PluginsDirective(Directive):
    required_arguments = 1

    def run(self):
        kind = self.arguments[0]
        if kind not in KINDS:
            raise self.error("rcbench-plugins: kind %r is not one of %s"
                             % (kind, ", ".join(KINDS)))
        lines = []
        for plugin in ours(kind):
            missing = undocumented(plugin, kind)
            if missing:
                raise self.error("%s %s (%s) has no %s: document it there"
                                 % (kind, plugin.get_name(),
                                    plugin.__module__, ", ".join(missing)))
            lines += plugin_rst(plugin, kind)
        return _parsed(self, lines)


def _parsed(directive, lines):
    """The nodes of generated reStructuredText (no section titles)."""
    node = nodes.container()
    node.document = directive.state.document
    directive.state.nested_parse(StringList(lines, "<rcbench>"), 0, node)
    return node.children


def subcommands(parser):
    """[(name, subparser)] of an argparse parser, in definition order."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return list(action.choices.items())
    return []


class CliDirective(Directive):

    def run(self):
        from rally_container_bench.cli import main as cli
        os.environ["COLUMNS"] = "79"  # argparse wraps to it
        parser = cli.build_parser()
        lines = [".. rubric:: rcbench", "", "::", ""]
        lines += _indented(parser.format_help()) + [""]
        for name, sub in subcommands(parser):
            lines += [".. rubric:: rcbench %s" % name, "", "::", ""]
            lines += _indented(sub.format_help()) + [""]
        return _parsed(self, lines)


def results_pages(app):
    """results/<name>.md for each committed results/<name>/ directory.

    meta.json names the host, the date and the command (and a screenshot
    of comparison.html, where one was taken); comparison.md is
    the comparison report's own Markdown, its headings one level down;
    decide.json, where there is one, gives what rcbench decide settled.
    The pages are written before Sphinx reads its sources, and not kept
    in git (they are made from the files that are).
    """
    top = os.path.join(app.srcdir, "results")
    for name in sorted(os.listdir(top)):
        directory = os.path.join(top, name)
        meta_path = os.path.join(directory, "meta.json")
        if not os.path.isfile(meta_path):
            continue
        with open(meta_path) as f:
            meta = json.load(f)
        lines = ["# " + meta["title"], "",
                 "- **Host:** " + meta["host"],
                 "- **Date:** " + meta["date"],
                 "- **Command:** `%s`" % meta["command"],
                 "- **Files:** " + ", ".join(
                     "`%s`" % f for f in sorted(os.listdir(directory)))]
        decide = os.path.join(directory, "decide.json")
        if os.path.isfile(decide):
            lines.append("- **rcbench decide:** " + decide_summary(decide))
        lines.append("")
        if meta.get("note"):
            lines += [meta["note"], ""]
        if meta.get("screenshot"):
            lines += ["![%s](%s/%s)" % (meta["screenshot"]["caption"], name,
                                        meta["screenshot"]["file"]), ""]
        with open(os.path.join(directory, "comparison.md")) as f:
            for line in f.read().splitlines():
                # the report's figures (forest-c<N>.svg, kek-*.svg)
                line = re.sub(r"\]\((forest-c\d+\.svg|kek-[a-z]+\.svg)\)",
                              r"](%s/\1)" % name, line)
                lines.append("#" + line if line.startswith("#") else line)
        with open(os.path.join(top, name + ".md"), "w") as f:
            f.write("\n".join(lines) + "\n")
    kek_page(top)


def kek_page(top):
    """results/kek-conclusions.md: KEK's conclusions against the runs.

    Every committed run whose comparison.json is kept: rcbench kek's
    table of it.
    """
    from rally_container_bench.report import kek

    lines = ["# KEK's conclusions, checked", "",
             "Every conclusion of KEK's HEPiX 2015 talk, in its words, "
             "against each committed run below, as `rcbench kek "
             "DIR/comparison.json` gives it on any run of your own. "
             + kek.RULE, ""]
    checked = 0
    for name in sorted(os.listdir(top)):
        comparison = os.path.join(top, name, "comparison.json")
        if not os.path.isfile(comparison):
            continue
        with open(os.path.join(top, name, "meta.json")) as f:
            meta = json.load(f)
        with open(comparison) as f:
            found = kek.check(json.load(f))
        checked += 1
        lines += ["## %s" % meta["title"], "",
                  "{doc}`The run <%s>`, %s; `%s`." % (
                      name, meta["date"], meta["command"]), ""]
        lines += kek.table(found) + [""]
    if not checked:
        lines.append("No committed run keeps its comparison.json yet.")
    with open(os.path.join(top, "kek-conclusions.md"), "w") as f:
        f.write("\n".join(lines) + "\n")


def decide_summary(path):
    with open(path) as f:
        decided = json.load(f)
    margins = ", ".join("%s +-%g %%" % (kind, 100 * value) for kind, value
                        in sorted(decided["margins"].items()))
    said = ("%(decided)d of %(cells)d cells decided in %(elapsed_s).0f s "
            "(budget %(budget_s).0f s)" % decided) + ", margins " + margins
    if decided.get("instrument_cells"):
        said += ("; the platforms' %d of %d, beside the instrument check's "
                 "cells (%s)" % (decided["platform_decided"],
                                 decided["platform_cells"],
                                 ", ".join(decided["instrument_cells"])))
    return said


def setup(app):
    app.add_directive("rcbench-plugins", PluginsDirective)
    app.add_directive("rcbench-cli", CliDirective)
    app.connect("builder-inited", results_pages)
    return {"parallel_read_safe": True, "version": "1"}
