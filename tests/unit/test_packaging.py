"""setup.cfg's install_requires and requirements.txt say the same: tox
installs the one, ``pip install .`` (and tools/install-deps.sh) the other."""

import configparser
import os
import re
import unittest

TOP = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))


class RequirementsTestCase(unittest.TestCase):

    def test_install_requires_matches_requirements_txt(self):
        config = configparser.ConfigParser()
        config.read(os.path.join(TOP, "setup.cfg"))
        declared = set(config["options"]["install_requires"].split())
        with open(os.path.join(TOP, "requirements.txt")) as f:
            listed = {line.strip() for line in f
                      if line.strip() and not line.startswith("#")}
        self.assertEqual(listed, declared)


def _name(requirement):
    """The normalized project name of a requirement line (PEP 503)."""
    name = re.split(r"[\s\[<>=!~;]", requirement.strip(), maxsplit=1)[0]
    return re.sub(r"[-_.]+", "-", name).lower()


def _lines(path):
    with open(os.path.join(TOP, path)) as f:
        return [line.strip() for line in f
                if line.strip() and not line.lstrip().startswith("#")]


def constraints():
    """{name: version} of upper-constraints.txt; ValueError on a range."""
    pins = {}
    for line in _lines("upper-constraints.txt"):
        name, sep, version = line.partition("==")
        if not sep or not version:
            raise ValueError("not an exact pin: %r" % line)
        pins[_name(name)] = version
    return pins


class ConstraintsTestCase(unittest.TestCase):
    """Every package the project names is pinned: the install CI tested."""

    NAMED_IN = ("requirements.txt", "test-requirements.txt",
                "doc/requirements.txt")

    def named(self):
        config = configparser.ConfigParser()
        config.read(os.path.join(TOP, "setup.cfg"))
        found = {_name(r): "setup.cfg" for r in
                 config["options"]["install_requires"].split("\n") if r}
        for path in self.NAMED_IN:
            found.update({_name(r): path for r in _lines(path)})
        # README command 1's venv: tox with tox-uv (tools/install-deps.sh)
        found.update({"tox": "tools/install-deps.sh",
                      "tox-uv": "tools/install-deps.sh"})
        return found

    def test_every_named_package_is_pinned(self):
        pins = constraints()
        self.assertEqual({}, {name: where for name, where in
                              self.named().items() if name not in pins})

    def test_a_name_without_a_pin_is_caught(self):
        pins = constraints()
        self.assertNotIn(_name("leftpad-rcbench[x]>=1.0"), pins)
        self.assertEqual("numpy", _name("numpy>=1.26"))
        self.assertEqual("psycopg", _name("psycopg[binary]>=3.1"))
        self.assertEqual("oslo-config", _name("oslo.config>=9.0"))

    def test_the_install_and_every_tox_env_use_it(self):
        with open(os.path.join(TOP, "tools", "install-deps.sh")) as f:
            self.assertIn('-c "$constraints"', f.read())
        config = configparser.ConfigParser(interpolation=None)
        config.read(os.path.join(TOP, "tox.ini"))
        setenv = config["testenv"]["setenv"]
        for variable in ("UV_CONSTRAINT", "PIP_CONSTRAINT"):
            self.assertIn("%s = {toxinidir}/upper-constraints.txt"
                          % variable, setenv)
        for section in config.sections():
            own = config[section].get("setenv")
            if own is not None and section != "testenv":
                self.assertIn("{[testenv]setenv}", own, section)
