"""A cloud cell without its twin on the instance's host: no verdict against
native measured on another host (the Rally host), a warning that names
it, the gate does not judge it; a task that states the hosts identical
gets its verdict, labelled.

The documents are built here in the shape the cloud scenarios write them
(an environment table with compute_host and pairing "unpaired: ...",
native's with the Rally host's name); a real run is in
tests/functional_openstack/test_unpaired_cloud.py.
"""

import unittest

import numpy as np

from rally_container_bench.report import comparison
from rally_container_bench.report import gate
from rally_container_bench.report import placement
from rally_container_bench.report import render
from rally_container_bench.workloads import metrics

METRIC = "sysbench.cpu.events_per_s"
UNPAIRED = ("unpaired: no compute_hosts given (how the Rally host logs in "
            "to the compute hosts), so no native twin ran on the "
            "instance's host")


def _iteration(env, value, at):
    records = [metrics.Record(METRIC, value, "events/s", True,
                              dict(tool="sysbench", test="cpu", attempt=1,
                                   final=True, disturbed=False))]
    return {"timestamp": at, "duration": 10.0, "error": [],
            "atomic_actions": [],
            "output": {"additive": [], "complete": [
                {"title": "environment", "chart_plugin": "Table",
                 "data": {"cols": ["key", "value"],
                          "rows": [list(kv) for kv in env.items()]}},
                metrics.records_table(records)]}}


def _document(level, stated=False, cell_host="c1", native_host="rally",
              seed=3):
    """Native on the Rally host, nova-lxc unpaired on cell_host."""
    rng = np.random.default_rng(seed)
    native_env = {"driver": "native", "host": native_host}
    cell_env = {"driver": "nova", "runtime": "lxc", "host": native_host,
                "compute_host": cell_host, "pairing": UNPAIRED}
    if stated:
        native_env[placement.STATED_IDENTICAL] = True
    workloads = [
        ("NativeHost.sysbench", {}, [_iteration(
            native_env, 1000 * rng.normal(1, 0.004), i) for i in range(8)]),
        ("NovaInstances.boot_sysbench_delete", {"hypervisor_type": "lxc"},
         [_iteration(cell_env, 1000 * level * rng.normal(1, 0.004), 100 + i)
          for i in range(8)])]
    return {"tasks": [{"uuid": "t", "subtasks": [{"workloads": [{
        "scenario": {name: dict(args, tests=["quick-cpu"])},
        "runner": {"constant": {"times": 8, "concurrency": 2}},
        "data": data} for name, args, data in workloads]}]}]}


def _cell(report):
    (row,) = comparison.rows_for(report, METRIC, "nova-lxc", 2)
    return row


class OffHostTestCase(unittest.TestCase):

    def test_a_cell_on_another_host_gets_no_verdict_and_is_named(self):
        # half native's rate: what two instances on a one-CPU host read
        # against two native runs on two CPUs
        report = comparison.build([_document(0.51)])
        row = _cell(report)
        self.assertEqual(placement.NOT_COMPARABLE, row["verdict"])
        self.assertAlmostEqual(-0.49, row["change"], delta=0.01)
        self.assertIsNone(row["margin"])
        self.assertIn("against the Rally host's native, not this "
                      "instance's host (native on rally, this cell on c1)",
                      row["note"])
        self.assertRegex(render.ratio_cell(row),
                         r"^-4\d\.\d % \[-4\d\.\d, -4\d\.\d\] not "
                         r"comparable: no twin on c1$")
        (warning,) = [w for w in report["warnings"]
                      if w.startswith("not comparable")]
        self.assertIn("nova-lxc at 2 (on c1)", warning)
        self.assertIn("compute_hosts", warning)
        markdown = render.to_markdown(report)
        self.assertIn("not comparable: nova-lxc at 2 (on c1)", markdown)

    def test_stated_identical_hosts_give_the_verdict_labelled(self):
        row = _cell(comparison.build([_document(0.51, stated=True)]))
        self.assertEqual("worse", row["verdict"])
        self.assertIn("across hosts, stated identical", row["note"])
        self.assertTrue(render.ratio_cell(row).endswith(
            "(across hosts, stated identical)"))

    def test_a_cell_on_natives_own_host_keeps_its_verdict(self):
        # an all-in-one: the instance's compute host is the Rally host
        report = comparison.build([_document(0.999, cell_host="rally")])
        self.assertEqual("equivalent", _cell(report)["verdict"])
        self.assertFalse([w for w in report["warnings"]
                          if w.startswith("not comparable")])

    def test_the_gate_does_not_judge_such_a_cell(self):
        findings, _, _ = gate.compare([_document(1.0)], [_document(0.7)],
                                      gate.Thresholds())
        (cell,) = [f for f in findings if f.platform == "nova-lxc"]
        self.assertFalse(cell.regressed)
        self.assertEqual("not tested", cell.verdict)
        self.assertIn("no native twin on the instance's host", cell.note)
        # the same slowdown on a paired-alike platform would fail it
        findings, _, _ = gate.compare(
            [_document(1.0, cell_host="rally")],
            [_document(0.7, cell_host="rally")], gate.Thresholds())
        (cell,) = [f for f in findings if f.platform == "nova-lxc"]
        self.assertTrue(cell.regressed)
