"""Check that an environment holds upper-constraints.txt's versions.

Run with the environment's Python (.ci/run: .venv's after README command
1's install): every installed package the file lists must have its
version there. Exit 1 naming each that differs.
    .venv/bin/python tools/check_constraints.py [CONSTRAINTS]
"""

import importlib.metadata
import os
import re
import sys


def normalized(name):
    return re.sub(r"[-_.]+", "-", name).lower()


def pins(path):
    found = {}
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line and not line.startswith("#"):
                name, _, version = line.partition("==")
                found[normalized(name)] = version
    return found


def main(argv):
    path = argv[1] if len(argv) > 1 else os.path.join(
        os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
        "upper-constraints.txt")
    wanted = pins(path)
    checked, wrong = 0, []
    for dist in importlib.metadata.distributions():
        name = normalized(dist.metadata["Name"])
        if name in wanted:
            checked += 1
            if dist.version != wanted[name]:
                wrong.append("%s %s (constraints: %s)"
                             % (name, dist.version, wanted[name]))
    for line in wrong:
        print("not the tested version: " + line, file=sys.stderr)
    print("constraints: %d installed package(s) checked, %d not at the "
          "tested version" % (checked, len(wrong)))
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
