"""Lifecycle runtime names -> drivers, one prepared driver per process."""

import importlib

from rally_container_bench.drivers import registry as drivers_registry
from rally_container_bench.images import busybox
from rally_container_bench.lifecycle import base

DRIVERS = {
    "docker": "cli_engines:DockerCli",
    "docker-runsc": "cli_engines:DockerRunscCli",
    "podman-runc": "cli_engines:PodmanRuncCli",
    "podman-crun": "cli_engines:PodmanCrunCli",
    "podman-runsc": "cli_engines:PodmanRunscCli",
    "runc": "oci_runtimes:Runc",
    "crun": "oci_runtimes:Crun",
    "runsc": "oci_runtimes:Runsc",
    "containerd": "containerd:Containerd",
    "cri-containerd": "cri:CriContainerd",
    "lxc": "lxc:Lxc",
    "kvm": "libvirt:LibvirtVm",
}
NAMES = tuple(sorted(DRIVERS))
# Not packaged for Debian: named in errors so users know why.
UNAVAILABLE = {"isulad": "iSulad is not packaged for Debian",
               "kata": "kata-containers is not packaged for Debian"}


def driver_class(name):
    if name in UNAVAILABLE:
        raise base.DriverError("runtime %r: %s; the driver protocol "
                               "(rally_container_bench.lifecycle.base) is "
                               "open for it" % (name, UNAVAILABLE[name]))
    try:
        module_name, class_name = DRIVERS[name].split(":")
    except KeyError:
        raise base.DriverError("unknown runtime %r; known: %s"
                               % (name, ", ".join(NAMES)))
    module = importlib.import_module("rally_container_bench.lifecycle."
                                     + module_name)
    return getattr(module, class_name)


def image(conf):
    found = busybox.BusyboxImage.in_cache(conf.image_cache_dir)
    if not found.is_built():
        raise base.DriverError("the busybox image is not built in %s: run "
                               "'rcbench images build'" % found.dir)
    return found


def prepared_driver(name, conf):
    """The driver of this process for ``name``, prepared once."""
    return drivers_registry.prepared_once(
        "lifecycle:" + name, lambda: driver_class(name)(image(conf), conf))


def leftovers(conf, matches, on_error=None):
    """[(driver, name)] of our instances where matches(name) is true.

    Runtimes of one engine (docker and docker-runsc; podman's) share its
    store: each instance is listed once.
    """
    found, seen = [], set()
    for runtime in NAMES:
        try:
            driver = driver_class(runtime)(None, conf)
            names = driver.list_names()
        except Exception as e:
            if on_error is not None:
                on_error(runtime, e)
            continue
        for name in names:
            if name not in seen and matches(name):
                seen.add(name)
                found.append((driver, name))
    return found
