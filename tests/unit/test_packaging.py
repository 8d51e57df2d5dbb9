"""setup.cfg's install_requires and requirements.txt say the same: tox
installs the one, ``pip install .`` (and tools/install-deps.sh) the other."""

import configparser
import os
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
