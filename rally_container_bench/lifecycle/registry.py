"""The lifecycle view of engines.catalog, one prepared driver per process.

Cleanup is engines.catalog.leftovers, for both views.
"""

from rally_container_bench.drivers import registry as drivers_registry
from rally_container_bench.engines import catalog
from rally_container_bench.images import busybox
from rally_container_bench.lifecycle import base

NAMES = catalog.names(catalog.LIFECYCLE)
UNAVAILABLE = catalog.UNAVAILABLE


def driver_class(name):
    return catalog.view_class(catalog.LIFECYCLE, name)


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
