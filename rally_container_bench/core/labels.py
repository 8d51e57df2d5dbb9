"""How an engine's instances are marked as this package's: one scheme.

Every instance carries the key ``rcbench`` with its view as the value
(``instance``: the scenarios' Debian guests; ``lifecycle``: the busybox
instances of the lifecycle scenarios), in whatever the engine keeps:
a label (Docker, Podman, containerd, CRI), the first line of the config
(LXC), the description (libvirt). Cleanup lists by the key alone, so
both views' instances go in one pass, and also by the marks older
versions wrote, so a user's leftovers from before go too.
"""

KEY = "rcbench"
INSTANCE = "instance"
LIFECYCLE = "lifecycle"
VIEWS = (INSTANCE, LIFECYCLE)
# Written by versions before the one scheme (lifecycle instances only;
# Docker and Podman ones also carried rcbench=1, which KEY finds).
OLD_KEYS = ("rcbench-lifecycle",)

_LXC_MARK = "# rally-container-bench"


def label(view):
    """{key: value} for an engine that takes labels."""
    if view not in VIEWS:
        raise ValueError("no view %r; views: %s" % (view, ", ".join(VIEWS)))
    return {KEY: view}


def label_args(view):
    """``--label KEY=VIEW`` for a docker-like CLI."""
    return ["--label", "%s=%s" % (KEY, view)]


def lxc_header(view, name):
    """The first line of an LXC config of ours."""
    label(view)
    return "%s %s instance %s" % (_LXC_MARK, view, name)


def is_lxc_header(line):
    """Ours, of any view and version (older ones start the same way)."""
    return line.startswith(_LXC_MARK)


def libvirt_description(view):
    label(view)
    return "%s %s" % (KEY, view)


def is_libvirt_description(text):
    """Ours, of any view and version (older: 'rcbench-lifecycle')."""
    return text.strip().startswith(KEY)
