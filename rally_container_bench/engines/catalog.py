"""The one engine registry: names, the views each engine serves, stores.

An engine serves the ``instance`` view (core.base.Driver: a Debian
guest with sshd, for the boot / sysbench / delete scenarios), the
``lifecycle`` view (core.lifecycle.LifecycleDriver: busybox, for ptcr's
verbs and the footprint), or both. Engines that keep their instances in
one store (dockerd for docker and docker-runsc; Podman's storage for its
three runtimes; libvirtd; /var/lib/lxc) name it, so cleanup asks each
store once.

Engines above an OCI runtime (docker, podman, or none: a bare bundle)
are made from the entries of engines.oci.runtimes: the engine's class with the
runtime's entry as its ``oci``.

Classes are imported on first use: an engine whose client library is
missing fails only when it is asked for, with its name in the message.
"""

import collections
import importlib
import queue
import threading
import time

from rally_container_bench.core import base
from rally_container_bench.core import labels
from rally_container_bench.engines.oci import runtimes

#: runtime: the entry of engines.oci.runtimes the engine runs, if any
Engine = collections.namedtuple("Engine", "store instance lifecycle runtime",
                                defaults=(None,))

#: How each engine above an OCI runtime is driven; the runtime's entry
#: fills in the rest (binary, flags, facts). A bare runtime keeps its own
#: state root, so it is a store of its own.
_RUNTIME_HOSTS = {
    runtimes.DOCKER: Engine(
        "docker",
        "rally_container_bench.engines.docker.instance:DockerDriver",
        "rally_container_bench.engines.docker.lifecycle:DockerCli"),
    runtimes.PODMAN: Engine(
        "podman",
        "rally_container_bench.engines.podman.instance:PodmanDriver",
        "rally_container_bench.engines.podman.lifecycle:PodmanCli"),
    runtimes.BARE: Engine(
        None, None, "rally_container_bench.engines.oci.bare:OciRuntime"),
}
_FIXED = {
    "kvm": Engine(
        "libvirt",
        "rally_container_bench.engines.libvirt.instance:LibvirtDriver",
        "rally_container_bench.engines.libvirt.lifecycle:LibvirtVm"),
    "lxc": Engine(
        "lxc", "rally_container_bench.engines.lxc.instance:LxcDriver",
        "rally_container_bench.engines.lxc.lifecycle:Lxc"),
    "containerd": Engine(
        "containerd", None,
        "rally_container_bench.engines.containerd.ctr:Containerd"),
    "cri-containerd": Engine(
        "cri", None,
        "rally_container_bench.engines.containerd.cri:CriContainerd"),
}


def engines():
    """{name: Engine}: the fixed engines and those of engines.oci.runtimes."""
    found = dict(_FIXED)
    for name, host, runtime in runtimes.offered():
        made = _RUNTIME_HOSTS[host]
        found[name] = made._replace(store=made.store or name,
                                    runtime=runtime)
    return found


ENGINES = engines()
# Not packaged for Debian: named in errors so users know why.
UNAVAILABLE = {"isulad": "iSulad is not packaged for Debian",
               "kata": "kata-containers is not packaged for Debian"}
INSTANCE, LIFECYCLE = labels.INSTANCE, labels.LIFECYCLE
_WHAT = {INSTANCE: "driver", LIFECYCLE: "runtime"}


class UnknownEngine(base.DriverError):
    """No engine of that name serves that view."""


def names(view):
    """Sorted names of the engines that serve ``view``."""
    return tuple(sorted(name for name, engine in ENGINES.items()
                        if getattr(engine, view)))


def view_class(view, name):
    """The class of engine ``name`` for ``view``."""
    path = getattr(ENGINES.get(name), view, None) if view in _WHAT else None
    if path is None:
        if name in UNAVAILABLE:
            raise UnknownEngine(
                "%s %r: %s; the driver protocol is open for it (the "
                "guide: Adding an engine)"
                % (_WHAT[view], name, UNAVAILABLE[name]))
        raise UnknownEngine("unknown %s %r; known: %s"
                            % (_WHAT.get(view, view), name,
                               ", ".join(names(view))))
    module_name, class_name = path.split(":")
    cls = getattr(importlib.import_module(module_name), class_name)
    runtime = ENGINES[name].runtime
    return cls if runtime is None else runtimes.with_runtime(cls, name,
                                                             runtime)


def built(image, what):
    """image, or DriverError when ``rcbench images build`` has not made it."""
    if not image.is_built():
        raise base.DriverError("the %s image is not built in %s: run "
                               "'rcbench images build'" % (what, image.dir))
    return image


def stores():
    """{store: the engine whose lifecycle view lists and cleans it}.

    Every store has a lifecycle view; it lists both views' instances
    (labels.KEY and the older marks) and removes one in whatever state.
    """
    found = {}
    for name in sorted(ENGINES):
        found.setdefault(ENGINES[name].store, name)
    return found


def store_of(name, conf):
    """The lifecycle view that lists and discards engine ``name``'s store.

    Its ``list_ours()`` names both views' instances there (every runtime
    of the store); ``discard(name)`` deletes one in whatever state.
    """
    store = ENGINES[name].store
    return view_class(LIFECYCLE, stores()[store])(None, conf)


def leftovers(conf, matches, on_error=None):
    """[(cleaner, name)] of this package's instances where matches(name).

    The one cleanup path (the Rally cleanup context, ``rcbench
    cleanup``): each store is asked once; one that does not answer
    (daemon down, client missing) is skipped and on_error(store,
    exception) hears of it. ``cleaner.discard(name)`` deletes.
    """
    found = []
    for store, name in sorted(stores().items()):
        try:
            cleaner = view_class(LIFECYCLE, name)(None, conf)
            listed = cleaner.list_ours()
        except Exception as e:
            if on_error is not None:
                on_error(store, e)
            continue
        found += [(cleaner, n) for n in sorted(set(listed)) if matches(n)]
    return found


#: how many leftovers are removed at once
DISCARD_THREADS = 8


def discard_all(found, timeout, done=None):
    """Discard each (cleaner, name) of found; all within timeout s.

    A few at once, each in a daemon thread: an engine that stops answering
    holds one call up to engine_call_timeout, never the cleanup past
    timeout (a CI run hung on 55 such containers, each retried in turn).
    done(cleaner, name, error or None) hears of each that ended. Returns
    [(cleaner, name, why)] of what is still there: its error, or no end
    within timeout.
    """
    pending = queue.Queue()
    for item in found:
        pending.put(item)
    results = {}
    lock = threading.Lock()

    def work():
        while True:
            try:
                cleaner, name = pending.get_nowait()
            except queue.Empty:
                return
            try:
                cleaner.discard(name)
                error = None
            except Exception as e:
                error = e
            with lock:
                results[(cleaner.name, name)] = error
            if done is not None:
                done(cleaner, name, error)

    threads = [threading.Thread(target=work, daemon=True,
                                name="rcbench-discard-%d" % i)
               for i in range(min(DISCARD_THREADS, len(found)))]
    for thread in threads:
        thread.start()
    deadline = time.monotonic() + timeout
    for thread in threads:
        thread.join(max(0.0, deadline - time.monotonic()))
    left = []
    with lock:
        for cleaner, name in found:
            key = (cleaner.name, name)
            if key not in results:
                left.append((cleaner, name, "not removed within %.0f s "
                             "(cleanup_timeout)" % timeout))
            elif results[key] is not None:
                left.append((cleaner, name, str(results[key])))
    return left


def left_line(cleaner, name, why, task_id=None):
    """What a user reads of one leftover: what, why, how to remove it."""
    how = ["rcbench cleanup" + (" --task %s" % task_id if task_id else "")]
    by_hand = cleaner.by_hand(name)
    if by_hand:
        how.append(by_hand)
    return "%s %s is left (%s); remove it with: %s" % (
        cleaner.name, name, why, " or: ".join(how))
