"""Both views of engines.catalog, one prepared driver per process.

The instance view (core.base.Driver: the Debian guest with sshd) and the
lifecycle view (core.lifecycle.LifecycleDriver: busybox, ptcr's verbs).
Cleanup is engines.catalog.leftovers, for both views.
"""

import os
import threading

from rally_container_bench.core import base
from rally_container_bench.engines import catalog
from rally_container_bench.images import busybox
from rally_container_bench.images import guest
from rally_container_bench.workloads import tools

INSTANCE_NAMES = catalog.names(catalog.INSTANCE)
LIFECYCLE_NAMES = catalog.names(catalog.LIFECYCLE)
UNAVAILABLE = catalog.UNAVAILABLE

_lock = threading.Lock()
_prepared = {}


def instance_class(name):
    return catalog.view_class(catalog.INSTANCE, name)


def lifecycle_class(name):
    return catalog.view_class(catalog.LIFECYCLE, name)


def guest_image(conf):
    return catalog.built(guest.GuestImage.in_cache(conf.image_cache_dir),
                         "guest")


def not_ready(name, conf):
    """Why the instance driver ``name`` cannot boot here now, or None.

    Its engine must answer with what conf needs (what ``rcbench doctor``
    says) and the guest image must be built. The reason reads after the
    driver's name: "cannot run on this host: ...".
    """
    usable, why = instance_class(name).check(conf)
    if not usable:
        return "cannot run on this host: %s" % why
    try:
        guest_image(conf)
    except base.DriverError as e:
        return "has no image to boot: %s" % e
    return None


def busybox_image(conf):
    return catalog.built(
        busybox.BusyboxImage.in_cache(conf.image_cache_dir), "busybox")


def prepared_instance(name, conf, tuning=None):
    """The instance driver ``name`` of this process, prepared once.

    Rally's runner forks worker processes, so each prepares its own (the
    engine work is idempotent: the image is imported only once). tuning:
    a core.tuning.ContainerTuning for the drivers that take one. The
    workload tools' server ports are the ones it forwards.
    """
    def make():
        driver = instance_class(name)(guest_image(conf), conf)
        driver.tuning = tuning
        driver.server_ports = tools.server_ports()
        return driver
    return prepared_once((name, tuning), make)


def prepared_lifecycle(name, conf):
    """The lifecycle driver ``name`` of this process, prepared once."""
    return prepared_once(
        "lifecycle:" + name,
        lambda: lifecycle_class(name)(busybox_image(conf), conf))


def prepared_once(key, make):
    """make()'s driver, prepared, once per process and key (thread-safe)."""
    key = (os.getpid(), key)
    with _lock:
        if key not in _prepared:
            driver = make()
            driver.prepare()
            _prepared[key] = driver
        return _prepared[key]
