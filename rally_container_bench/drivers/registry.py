"""Driver names -> classes, and one prepared driver per process.

Modules are imported on first use, so an engine whose client library is
missing fails only when it is asked for, with its name in the message.
"""

import importlib
import os
import threading

from rally_container_bench.drivers import base
from rally_container_bench.images import guest

DRIVERS = {
    "docker": "rally_container_bench.drivers.docker:DockerDriver",
    "docker-runsc":
        "rally_container_bench.drivers.docker_runsc:DockerRunscDriver",
    "podman-runc": "rally_container_bench.drivers.podman:PodmanRuncDriver",
    "podman-crun": "rally_container_bench.drivers.podman:PodmanCrunDriver",
    "podman-runsc": "rally_container_bench.drivers.podman:PodmanRunscDriver",
    "kvm": "rally_container_bench.drivers.libvirt:LibvirtDriver",
    "lxc": "rally_container_bench.drivers.lxc:LxcDriver",
}
NAMES = tuple(sorted(DRIVERS))

_lock = threading.Lock()
_prepared = {}


def driver_class(name):
    try:
        module_name, class_name = DRIVERS[name].split(":")
    except KeyError:
        raise base.DriverError("unknown driver %r; known: %s"
                               % (name, ", ".join(NAMES)))
    return getattr(importlib.import_module(module_name), class_name)


def guest_image(conf):
    image = guest.GuestImage.in_cache(conf.image_cache_dir)
    if not image.is_built():
        raise base.DriverError("the guest image is not built in %s: run "
                               "'rcbench images build'" % image.dir)
    return image


def prepared_driver(name, conf, tuning=None):
    """The driver ``name`` of this process, prepared once (thread-safe).

    Rally's runner forks worker processes, so each prepares its own (the
    engine work is idempotent: the image is imported only once). tuning:
    a tuning.ContainerTuning for the drivers that take one.
    """
    def make():
        driver = driver_class(name)(guest_image(conf), conf)
        driver.tuning = tuning
        return driver
    return prepared_once((name, tuning), make)


def prepared_once(key, make):
    """make()'s driver, prepared, once per process and key."""
    key = (os.getpid(), key)
    with _lock:
        if key not in _prepared:
            driver = make()
            driver.prepare()
            _prepared[key] = driver
        return _prepared[key]


def leftovers(conf, matches, on_error=None):
    """[(driver, name)] of the instances where matches(name) is true.

    Every engine is asked; one that does not answer (daemon down, client
    missing) is skipped, and on_error(driver_name, exception) hears of it.
    Podman's runc and crun drivers share one store: each instance is
    listed once.
    """
    found, seen = [], set()
    for driver_name in NAMES:
        try:
            driver = driver_class(driver_name)(None, conf)
            names = driver.list_names("")
        except Exception as e:
            if on_error is not None:
                on_error(driver_name, e)
            continue
        for name in names:
            if name not in seen and matches(name):
                seen.add(name)
                found.append((driver, name))
    return found
