"""What a user sees, against the list committed before the package moved.

Every Rally plugin (its kind, name and platform), every [container_bench]
option, every rcbench verb and its options, every entry point: a move
that drops or renames one fails here. After an intended change, write
the list again:

    python -m tests.unit.test_user_surface > tests/unit/user_surface.txt
"""

import argparse
import importlib.metadata
import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
LIST = os.path.join(HERE, "user_surface.txt")
PACKAGE = "rally-container-bench"


def _plugins():
    from rally.common.plugin import discover
    from rally.common.plugin import plugin
    from rally import plugins as rally_plugins
    rally_plugins.load()
    found = set()
    for cls in discover.itersubclasses(plugin.Plugin):
        if cls.__module__.startswith("rally_container_bench.") \
                and cls._meta_is_inited(raise_exc=False):
            found.add("plugin %s %s@%s" % (cls._get_base().__name__,
                                           cls.get_name(),
                                           cls.get_platform()))
    return found


def _options():
    from rally_container_bench import opts
    return {"option [container_bench] %s" % option.name
            for _, group in opts.list_opts() for option in group}


def _verbs():
    from rally_container_bench.cli import main as cli
    found = set()
    parser = cli.build_parser()
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for verb, sub in action.choices.items():
                found.add("rcbench %s" % verb)
                for option in sub._actions:
                    for flag in option.option_strings:
                        if flag.startswith("--") and flag != "--help":
                            found.add("rcbench %s %s" % (verb, flag))
    return found


def _entry_points():
    return {"entry point %s %s = %s" % (ep.group, ep.name, ep.value)
            for ep in importlib.metadata.distribution(PACKAGE).entry_points}


def surface():
    return sorted(_plugins() | _options() | _verbs() | _entry_points())


class UserSurfaceTestCase(unittest.TestCase):

    def test_nothing_a_user_sees_went_missing(self):
        with open(LIST) as f:
            committed = [line.rstrip("\n") for line in f if line.strip()]
        now = surface()
        self.assertEqual([], sorted(set(committed) - set(now)),
                         "gone since the committed list")
        self.assertEqual([], sorted(set(now) - set(committed)),
                         "new: add them to %s (this module's docstring)"
                         % LIST)


if __name__ == "__main__":
    sys.stdout.write("\n".join(surface()) + "\n")
