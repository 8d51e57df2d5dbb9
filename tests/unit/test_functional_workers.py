"""tools/stestr-functional-workers.yaml gives every functional test class
exactly one of tox -e functional's workers: stestr runs a test no worker
matches nowhere, and one that two match twice."""

import os
import re
import unittest

import yaml

TOP = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
WORKERS = os.path.join(TOP, "tools", "stestr-functional-workers.yaml")
# tox.ini runs these alone, after the two workers: they measure the host.
ALONE = re.compile(r"test_periodic|test_kek_step")


def test_ids(suite):
    for item in suite:
        if isinstance(item, unittest.TestSuite):
            yield from test_ids(item)
        else:
            yield item.id()


class FunctionalWorkersTestCase(unittest.TestCase):

    def test_every_functional_test_runs_on_exactly_one_worker(self):
        with open(WORKERS) as f:
            workers = [[re.compile(r) for r in w["worker"]]
                       for w in yaml.safe_load(f)]
        self.assertEqual(2, len(workers))
        suite = unittest.defaultTestLoader.discover(
            os.path.join(TOP, "tests", "functional"), top_level_dir=TOP)
        ids = [i for i in test_ids(suite) if not ALONE.search(i)]
        self.assertGreater(len(ids), 50)
        counts = {0: 0, 1: 0}
        for test_id in ids:
            matched = [n for n, regexes in enumerate(workers)
                       if any(r.search(test_id) for r in regexes)]
            self.assertEqual(1, len(matched), test_id)
            counts[matched[0]] += 1
        self.assertTrue(all(counts.values()), counts)
