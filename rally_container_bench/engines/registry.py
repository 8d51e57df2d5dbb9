"""The instance view of engines.catalog, one prepared driver per process.

Cleanup is engines.catalog.leftovers, for both views.
"""

import os
import threading

from rally_container_bench.engines import catalog
from rally_container_bench.images import guest

NAMES = catalog.names(catalog.INSTANCE)

_lock = threading.Lock()
_prepared = {}


def driver_class(name):
    return catalog.view_class(catalog.INSTANCE, name)


def guest_image(conf):
    return catalog.built(guest.GuestImage.in_cache(conf.image_cache_dir),
                         "guest")


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
