"""Every registered plugin, option and rcbench subcommand is in the guide.

Run after sphinx-build (tox -e docs): reads the generated reference pages
of the built HTML and fails, naming what is missing, when a plugin of this
package (scenario, context, validator, exporter), a [container_bench]
option (with its help text) or a subcommand of rcbench is not there.
  python tools/check_docs.py doc/build/html
"""

import html
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "doc",
                                "source", "_ext"))

import rcbench_reference  # noqa: E402


def page_text(build, name):
    with open(os.path.join(build, "reference", name + ".html")) as f:
        return html.unescape(re.sub(r"<[^>]+>", " ", f.read()))


def missing_items(build):
    from rally_container_bench.cli import main as cli
    from rally_container_bench import opts

    missing = []
    plugins = page_text(build, "plugins")
    for kind in rcbench_reference.KINDS:
        for plugin in rcbench_reference.ours(kind):
            if plugin.get_name() not in plugins:
                missing.append("%s plugin %s" % (kind, plugin.get_name()))
    config = page_text(build, "config")
    for group, options in opts.list_opts():
        for opt in options:
            if not (opt.help or "").strip():
                missing.append("help text of option [%s] %s"
                               % (group, opt.name))
            elif opt.name not in config:
                missing.append("option [%s] %s" % (group, opt.name))
    commands = page_text(build, "cli")
    for name, _ in rcbench_reference.subcommands(cli.build_parser()):
        if "rcbench %s" % name not in commands:
            missing.append("rcbench %s" % name)
    return missing


def main(build):
    missing = missing_items(build)
    for item in missing:
        print("check_docs: not in the guide's references: %s" % item,
              file=sys.stderr)
    if not missing:
        print("check_docs: every plugin, option and rcbench subcommand is "
              "in the references")
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
