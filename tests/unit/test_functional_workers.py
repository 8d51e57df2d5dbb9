"""The stestr worker files give every functional test class exactly one of
its tox env's workers: stestr runs a test no worker matches nowhere, and one
that two match twice."""

import os
import re
import unittest

import yaml

TOP = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
# (worker file, test directory, the classes tox.ini runs alone instead:
# they measure the host, which tests beside them would disturb, or need
# Zun to themselves; workers).
SPLITS = (
    ("stestr-functional-workers.yaml", "functional",
     r"test_periodic|test_kek_step|test_decide(_at_once)?\.|"
     r"test_lifecycle_cleanup", 3),
    ("stestr-openstack-workers.yaml", "functional_openstack",
     r"test_compute_host_load|test_zun_network", 3),
)


def test_ids(suite):
    for item in suite:
        if isinstance(item, unittest.TestSuite):
            yield from test_ids(item)
        else:
            yield item.id()


class FunctionalWorkersTestCase(unittest.TestCase):

    def test_every_functional_test_runs_on_exactly_one_worker(self):
        for workers_file, directory, alone, count in SPLITS:
            with self.subTest(workers=workers_file):
                self.check_split(workers_file, directory, re.compile(alone),
                                 count)

    def check_split(self, workers_file, directory, alone, count):
        with open(os.path.join(TOP, "tools", workers_file)) as f:
            workers = [[re.compile(r) for r in w["worker"]]
                       for w in yaml.safe_load(f)]
        self.assertEqual(count, len(workers))
        suite = unittest.defaultTestLoader.discover(
            os.path.join(TOP, "tests", directory), top_level_dir=TOP)
        ids = [i for i in test_ids(suite) if not alone.search(i)]
        self.assertGreater(len(ids), 10)
        counts = dict.fromkeys(range(count), 0)
        for test_id in ids:
            matched = [n for n, regexes in enumerate(workers)
                       if any(r.search(test_id) for r in regexes)]
            self.assertEqual(1, len(matched), test_id)
            counts[matched[0]] += 1
        self.assertTrue(all(counts.values()), counts)
