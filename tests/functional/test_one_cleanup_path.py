"""One cleanup path for both views, on the real engines.

A workload's leftovers of the instance view (the Debian guest through
docker's SDK, podman, LXC, libvirt) and of the lifecycle view (busybox
through the CLIs, LXC, libvirt) go in one pass of the cleanup context,
each store asked once; another workload's stay.
"""

import os
import unittest

from rally_container_bench.engines import catalog
from rally_container_bench.engines import registry
from rally_container_bench import opts
from rally_container_bench.task.contexts import local_cleanup
from rally_container_bench.task.scenarios import lifecycle
# Registers LocalInstances.*, the scenario the context asks for names.
from rally_container_bench.task.scenarios import local  # noqa: F401

TASK = {"uuid": "22222222-3333-4444-5555-666666666666"}
ENGINES = ("docker", "podman-crun", "lxc", "kvm")


def context(owner):
    return dict(task=TASK, owner_id=owner,
                scenario_name="LocalInstances.boot_sysbench_delete")


class OneCleanupPathTestCase(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.conf = opts.register()

    def make(self, view, engine, ctx):
        """A leftover of view on engine, named for the workload of ctx."""
        if view == catalog.INSTANCE:
            usable, why = registry.instance_class(engine).check(self.conf)
            driver = registry.prepared_instance(engine, self.conf)
        else:
            usable, why = registry.lifecycle_class(engine).check(
                self.conf)
            driver = registry.prepared_lifecycle(engine, self.conf)
        if not usable:
            self.fail("%s: %s" % (engine, why))
        name = lifecycle.RunAndRemove(ctx).generate_random_name()
        driver.create(name)
        cleaner = catalog.view_class(
            catalog.LIFECYCLE,
            catalog.stores()[catalog.ENGINES[engine].store])(None, self.conf)
        self.addCleanup(cleaner.discard, name)
        return cleaner, name

    def test_both_views_leftovers_go_in_one_pass(self):
        mine, other = (context("%s-0000-0000-0000-00000000000%d" % (c, i))
                       for i, c in ((1, "aaaaaaaa"), (2, "bbbbbbbb")))
        left = []
        for engine in ENGINES:
            for view in (catalog.INSTANCE, catalog.LIFECYCLE):
                for key, ctx in (("mine", mine), ("other", other)):
                    cleaner, name = self.make(view, engine, ctx)
                    left.append((engine, view, key, cleaner, name))
        for engine, view, _, cleaner, name in left:
            self.assertIn(name, cleaner.list_ours(), (engine, view))

        local_cleanup.LocalCleanup(mine).cleanup()

        for engine, view, key, cleaner, name in left:
            listed = cleaner.list_ours()
            if key == "mine":
                self.assertNotIn(name, listed, (engine, view))
            else:
                self.assertIn(name, listed, (engine, view))
        # Nothing of mine is left in the image cache either (disks, uppers).
        for engine, view, key, _, name in left:
            if key == "mine":
                self.assertFalse(os.path.exists(opts.cache_path(
                    self.conf, "instances", name)), (engine, view, name))
