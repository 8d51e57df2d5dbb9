"""The lifecycle view of engines.catalog, one prepared driver per process.

Cleanup is engines.catalog.leftovers, for both views.
"""

from rally_container_bench.engines import catalog
from rally_container_bench.engines import registry as drivers_registry
from rally_container_bench.images import busybox

NAMES = catalog.names(catalog.LIFECYCLE)
UNAVAILABLE = catalog.UNAVAILABLE


def driver_class(name):
    return catalog.view_class(catalog.LIFECYCLE, name)


def image(conf):
    return catalog.built(
        busybox.BusyboxImage.in_cache(conf.image_cache_dir), "busybox")


def prepared_driver(name, conf):
    """The driver of this process for ``name``, prepared once."""
    return drivers_registry.prepared_once(
        "lifecycle:" + name, lambda: driver_class(name)(image(conf), conf))
