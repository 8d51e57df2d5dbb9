"""KEK's conclusions checked against a comparison (report/kek.py).

The reports are built here in comparison.json's shape (stand-ins: rows
with the fields kek reads); rcbench kek reads one from a file.
"""

import contextlib
import io
import json
import os
import shutil
import tempfile
import unittest

from rally_container_bench.cli import main as cli
from rally_container_bench.report import kek

PLATFORMS = [
    {"label": "native", "driver": "native", "runtime": None,
     "acceleration": None},
    {"label": "docker", "driver": "docker", "runtime": None,
     "acceleration": None},
    {"label": "kvm", "driver": "kvm", "runtime": "qemu",
     "acceleration": "kvm"}]
METRICS = [{"name": n, "headline": True} for n in (
    "sysbench.cpu.events_per_s", "sysbench.memory.read.mib_per_s",
    "build+network", "build")] + [
    {"name": "sysbench.cpu.latency_avg_ms", "headline": False}]


def row(platform, metric, step, change=None, low=None, high=None,
        verdict=None, mean=None, sd=0.1):
    return {"platform": platform, "metric": metric, "concurrency": step,
            "change": change, "change_ci_low": low, "change_ci_high": high,
            "verdict": verdict, "mean": mean,
            "ci_low": None if mean is None else mean - sd,
            "ci_high": None if mean is None else mean + sd}


def report(rows, platforms=PLATFORMS):
    return {"platforms": platforms, "metrics": METRICS, "rows": rows}


def answer(found, start):
    (item,) = [i for i in found if i["words"].startswith(start)]
    return item


class KekTestCase(unittest.TestCase):

    def test_a_ci_inside_kvms_range_agrees_one_outside_disagrees(self):
        cpu = "sysbench.cpu.events_per_s"
        found = kek.check(report([
            row("kvm", cpu, 1, -0.05, -0.06, -0.04, "worse"),
            row("kvm", cpu, 2, -0.03, -0.04, -0.02, "worse")]))
        self.assertEqual(kek.AGREES, answer(
            found, "At low concurrency KVM is 2-7% worse")["answer"])
        found = kek.check(report([
            row("kvm", cpu, 1, -0.05, -0.06, -0.04, "worse"),
            row("kvm", cpu, 2, 0.0, -0.01, 0.01, "equivalent")]))
        item = answer(found, "At low concurrency KVM is 2-7% worse")
        self.assertEqual(kek.DISAGREES, item["answer"])
        self.assertIn("kvm cpu at 2 +0.0 % [-1.0, +1.0] equivalent",
                      item["cells"])

    def test_an_undecided_ci_across_the_range_is_not_settled(self):
        memory = "sysbench.memory.read.mib_per_s"
        found = kek.check(report([
            row("docker", memory, 1, -0.02, -0.06, 0.02, "inconclusive")]))
        self.assertEqual(kek.UNSETTLED, answer(
            found, "Docker is 2-5% worse")["answer"])

    def test_equivalence_wider_than_kek_s_range_settles_nothing(self):
        # fileio at the disk's floor: "equivalent" at +-81.5 % overlaps
        # "15 % worse" and zero alike
        seqwr = "sysbench.fileio.seqwr.written_mib_per_s"
        rndwr = "sysbench.fileio.rndwr.written_mib_per_s"
        metrics = METRICS + [{"name": seqwr, "headline": True},
                             {"name": rndwr, "headline": True}]
        wide = row("docker", seqwr, 1, -0.015, -0.313, 0.412, "equivalent")
        found = kek.check(dict(report([wide]), metrics=metrics))
        self.assertEqual(kek.UNSETTLED, answer(
            found, "In the case of single request")["answer"])
        worse = row("docker", seqwr, 1, -0.12, -0.16, -0.08, "worse")
        found = kek.check(dict(report([worse]), metrics=metrics))
        self.assertEqual(kek.AGREES, answer(
            found, "In the case of single request")["answer"])
        # "almost native": only a CI inside KEK's -5..+2 % agrees
        for ci, said in (((-0.04, 0.01), kek.AGREES),
                         ((-0.36, 0.64), kek.UNSETTLED)):
            found = kek.check(dict(report([row(
                "docker", rndwr, 2, 0.0, ci[0], ci[1], "equivalent")]),
                metrics=metrics))
            self.assertEqual(said, answer(
                found, "Beside that Docker")["answer"], ci)

    def test_what_is_not_there_or_emulated_cannot_be_checked(self):
        cpu = "sysbench.cpu.events_per_s"
        tcg = [dict(p, acceleration="tcg", label="qemu-tcg")
               if p["label"] == "kvm" else p for p in PLATFORMS]
        found = kek.check(report([
            row("qemu-tcg", cpu, 1, -0.5, -0.6, -0.4, "worse")], tcg))
        item = answer(found, "At low concurrency KVM is 2-7% worse")
        self.assertEqual(kek.UNCHECKED, item["answer"])
        self.assertIn("qemu-tcg ran under tcg (emulation)", item["why"])
        self.assertIn("rcbench kek", item["why"])
        item = answer(found, "If No. of concurrent requests > 2")
        self.assertEqual(kek.UNCHECKED, item["answer"])
        self.assertEqual("no docker cell of sysbench.cpu at more than 2 at "
                         "once in these results", item["why"])

    def test_phases_compare_docker_with_kvm(self):
        ready = "build+network"
        found = kek.check(report([
            row("docker", ready, 1, mean=2.0), row("kvm", ready, 1,
                                                   mean=20.0)]))
        self.assertEqual(kek.AGREES, answer(
            found, "Docker instance becomes ready faster")["answer"])
        found = kek.check(report([
            row("docker", ready, 1, mean=2.0), row("kvm", ready, 1,
                                                   mean=2.05)]))
        self.assertEqual(kek.UNSETTLED, answer(
            found, "Docker instance becomes ready faster")["answer"])
        # KVM's build 20 % faster than Docker's at 32: agrees; 50 %: not
        found = kek.check(report([
            row("docker", "build", 32, mean=10.0),
            row("kvm", "build", 32, mean=8.0)]))
        self.assertEqual(kek.AGREES, answer(
            found, "At high concurrency KVM")["answer"])
        found = kek.check(report([
            row("docker", "build", 32, mean=10.0),
            row("kvm", "build", 32, mean=5.0)]))
        self.assertEqual(kek.DISAGREES, answer(
            found, "At high concurrency KVM")["answer"])

    def test_the_order_native_docker_kvm(self):
        cpu = "sysbench.cpu.events_per_s"
        found = kek.check(report([
            row("docker", cpu, 1, -0.02, -0.03, -0.01, "worse"),
            row("kvm", cpu, 1, -0.05, -0.06, -0.04, "worse")]))
        item = answer(found, "CPU and memory performance")
        self.assertEqual(kek.AGREES, item["answer"])
        self.assertEqual(["cpu at 1: native > docker yes > kvm yes"],
                         item["cells"])
        found = kek.check(report([
            row("docker", cpu, 1, 0.02, 0.01, 0.03, "better"),
            row("kvm", cpu, 1, -0.05, -0.06, -0.04, "worse")]))
        self.assertEqual(kek.DISAGREES, answer(
            found, "CPU and memory performance")["answer"])

    def test_every_conclusion_is_answered_in_the_table(self):
        text = kek.markdown(kek.check(report([])), "`x`")
        self.assertEqual(len(kek.CLAIMS) + 6, len(text.splitlines()))
        self.assertEqual(len(kek.CLAIMS), text.count(
            "**cannot be checked here**"))

    def test_the_command_writes_the_table_or_says_why_not(self):
        tmp = tempfile.mkdtemp(prefix="rcbench-kek-")
        self.addCleanup(shutil.rmtree, tmp, True)
        path = os.path.join(tmp, "comparison.json")
        with open(path, "w") as f:
            json.dump(report([row("docker", "sysbench.cpu.events_per_s", 4,
                                  -0.02, -0.03, -0.01, "worse")]), f)
        out = os.path.join(tmp, "kek.md")
        err = io.StringIO()
        with contextlib.redirect_stdout(io.StringIO()), \
                contextlib.redirect_stderr(err):
            self.assertEqual(0, cli.main(["kek", path, "--out", out]))
        with open(out) as f:
            self.assertIn("| If No. of concurrent requests > 2, Docker is "
                          "2% worse than native (cpu) | **agrees** |",
                          f.read())
        self.assertIn("1 agrees; 0 disagrees; 0 not settled; 12 cannot be "
                      "checked here", err.getvalue())
        with open(path, "w") as f:
            f.write("{}")
        with contextlib.redirect_stdout(io.StringIO()), \
                contextlib.redirect_stderr(io.StringIO()):
            self.assertEqual(0, cli.main(["kek", path]))
        with open(path, "w") as f:
            f.write("not json")
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            self.assertEqual(2, cli.main(["kek", path]))
        self.assertIn("not a comparison.json", err.getvalue())
