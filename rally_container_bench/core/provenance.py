"""What made a result: this harness and what computes its numbers.

Every iteration's environment table carries these (the Rally host's), the
comparison and decide.json carry the report's own, and ``rcbench diff``
and the periodic gate name what differs between two runs: a baseline
made months ago by another version of the harness, or of numpy and
scipy, is not gated as if only the cloud had changed.
"""

import functools
import importlib.metadata
import os
import platform
import subprocess

#: (environment key, distribution) of the versions recorded
VERSIONS = (("rcbench_version", "rally-container-bench"),
            ("rally_version", "rally"),
            ("rally_openstack_version", "rally-openstack"),
            ("numpy_version", "numpy"),
            ("scipy_version", "scipy"))
#: how each key reads in a sentence
NAMES = dict([("rcbench_commit", "rally-container-bench's commit"),
              ("python_version", "Python")] + [
    (key, distribution) for key, distribution in VERSIONS])
KEYS = tuple(key for key, _ in VERSIONS) + ("rcbench_commit",
                                            "python_version")


def _version(distribution):
    try:
        return importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        return None


def commit(directory=None):
    """The git commit of the package's checkout, "+modified" when changed.

    None where the package is not a git checkout (installed from a
    wheel) or git is missing.
    """
    top = directory or os.path.dirname(os.path.dirname(
        os.path.dirname(os.path.abspath(__file__))))
    if not os.path.exists(os.path.join(top, ".git")):
        return None
    try:
        head = subprocess.run(["git", "-C", top, "rev-parse", "HEAD"],
                              capture_output=True, text=True, timeout=10)
        changed = subprocess.run(
            ["git", "-C", top, "status", "--porcelain",
             "--untracked-files=no"],
            capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return None
    if head.returncode != 0:
        return None
    found = head.stdout.strip()[:12]
    if changed.returncode == 0 and changed.stdout.strip():
        found += "+modified"
    return found


@functools.lru_cache(maxsize=None)
def facts():
    """{key: version} of this process (read once)."""
    found = {key: _version(distribution) for key, distribution in VERSIONS}
    found["rcbench_commit"] = commit()
    found["python_version"] = platform.python_version()
    return found


def of_environments(environments):
    """{key: value or sorted list of values} over result environments."""
    seen = {}
    for environment in environments:
        for key in KEYS:
            if environment.get(key):
                seen.setdefault(key, set()).add(environment[key])
    return {key: sorted(values)[0] if len(values) == 1 else sorted(values)
            for key, values in seen.items()}


def changes(before, after):
    """["numpy 2.4.6 -> 2.5.0", ...]: what differs between two runs' facts.

    A key only one side has is not a change (results of an older harness
    carry none).
    """
    found = []
    for key in KEYS:
        if key in before and key in after and before[key] != after[key]:
            found.append("%s %s -> %s" % (NAMES[key], _text(before[key]),
                                          _text(after[key])))
    return found


def _text(value):
    return ", ".join(value) if isinstance(value, list) else str(value)


def line(found=None):
    """One line for rcbench --version and the reports."""
    found = found or facts()
    return ("rally-container-bench %s (%s), Rally %s, rally-openstack %s, "
            "Python %s, numpy %s, scipy %s" % tuple(
                _text(found.get(key) or "?") for key in (
                    "rcbench_version", "rcbench_commit", "rally_version",
                    "rally_openstack_version", "python_version",
                    "numpy_version", "scipy_version")))
