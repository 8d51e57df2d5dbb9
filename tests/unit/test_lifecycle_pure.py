"""The pure parts of the lifecycle: process trees and PSS from a /proc
tree, the OCI config, the busybox image's archive forms, the CRI proto
clean-up, and footprint tables in the report."""

import hashlib
import io
import json
import os
import tarfile
import tempfile
import unittest

from rally_container_bench.core import base
from rally_container_bench.core import footprint
from rally_container_bench.core import labels
from rally_container_bench.engines.containerd import cri
from rally_container_bench.engines.oci import bundle as oci_spec
from rally_container_bench.engines import registry
from rally_container_bench.images import busybox
from rally_container_bench.report import comparison
from rally_container_bench.report import results


def fake_proc(root, processes):
    """A /proc-like tree: {pid: (ppid, comm, pss_kib)}."""
    for pid, (ppid, comm, pss) in processes.items():
        directory = os.path.join(root, str(pid))
        os.makedirs(directory)
        with open(os.path.join(directory, "stat"), "w") as f:
            # comm may hold spaces and parentheses: the parser must cope
            f.write("%d (%s) S %d 1 1 0 -1\n" % (pid, comm, ppid))
        with open(os.path.join(directory, "smaps_rollup"), "w") as f:
            f.write("00400000-7fff [rollup]\nRss: %d kB\nPss: %d kB\n"
                    % (pss * 2, pss))
    os.makedirs(os.path.join(root, "self"))


# init(1) - shim(10) - sh(11) - sleep(12); dockerd(5) - containerd(6);
# a second instance: shim(20) - sh(21); a runc container with no shim:
# sh(30) - sleep(31), reparented to init; a CRI pod: shim(40) with
# pause(41) and the workload sh(42).
TREE = {1: (0, "init", 5), 5: (1, "dockerd", 40000), 6: (5, "containerd",
        20000), 10: (1, "containerd-shim", 9000), 11: (10, "sh", 500),
        12: (11, "sleep", 100), 20: (1, "containerd-shim", 8000),
        21: (20, "sh", 400), 30: (1, "sh (x)", 700), 31: (30, "sleep", 90),
        40: (1, "containerd-shim", 7000), 41: (40, "pause", 300),
        42: (40, "sh", 450)}


class FootprintTestCase(unittest.TestCase):

    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self._tmp.cleanup)
        self.proc = self._tmp.name
        fake_proc(self.proc, TREE)
        self.table = footprint.processes(self.proc)

    def test_process_table_from_stat(self):
        self.assertEqual((1, "sh (x)"), self.table[30])
        self.assertEqual((10, "sh"), self.table[11])
        self.assertEqual(len(TREE), len(self.table))

    def test_shim_is_overhead_and_workload_is_not(self):
        found = footprint.of_instance(11, self.table, {5, 6},
                                      proc=self.proc)
        self.assertEqual(9000 + 500 + 100, found.instance_kib)
        self.assertEqual(9000, found.overhead_kib)
        self.assertEqual(["containerd-shim(10)"], found.processes)

    def test_runtime_without_shim_has_no_overhead(self):
        found = footprint.of_instance(30, self.table, set(), proc=self.proc)
        self.assertEqual((790, 0), found[:2])

    def test_pod_sandbox_counts_as_overhead(self):
        found = footprint.of_instance(42, self.table, set(), proc=self.proc)
        self.assertEqual(7000 + 300 + 450, found.instance_kib)
        self.assertEqual(7300, found.overhead_kib)

    def test_vmm_is_all_overhead(self):
        found = footprint.of_instance(20, self.table, set(),
                                      workload_separate=False,
                                      proc=self.proc)
        self.assertEqual((8400, 8400), found[:2])

    def test_climb_stops_at_daemons(self):
        # a workload under the daemon itself never counts the daemon
        found = footprint.of_instance(6, self.table, {5}, proc=self.proc)
        self.assertEqual(20000, found.instance_kib)

    def test_daemons_and_missing_processes(self):
        self.assertEqual(60000, footprint.of_daemons([5, 6, 6],
                                                     proc=self.proc))
        self.assertEqual(0, footprint.pss_kib(99999, proc=self.proc))

    def test_reads_this_process_for_real(self):
        table = footprint.processes()
        self.assertIn(os.getpid(), table)
        self.assertGreater(footprint.pss_kib(os.getpid()), 1000)
        stop = footprint.not_instance_pids([], table)
        self.assertIn(os.getppid(), stop)


class OciSpecTestCase(unittest.TestCase):

    def test_config_runs_the_command_on_a_shared_readonly_root(self):
        config = oci_spec.config("/images/busybox", busybox.COMMAND,
                                 busybox.ENV)
        self.assertEqual(list(busybox.COMMAND), config["process"]["args"])
        self.assertEqual({"path": "/images/busybox", "readonly": True},
                         config["root"])
        self.assertFalse(config["process"]["terminal"])
        namespaces = {n["type"] for n in config["linux"]["namespaces"]}
        self.assertIn("network", namespaces)  # loopback only
        json.dumps(config)


class BusyboxArchiveTestCase(unittest.TestCase):

    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self._tmp.cleanup)
        self.rootfs = os.path.join(self._tmp.name, "rootfs")
        os.makedirs(os.path.join(self.rootfs, "bin"))
        with open(os.path.join(self.rootfs, "bin", "busybox"), "wb") as f:
            f.write(b"\x7fELF fake")
        os.symlink("busybox", os.path.join(self.rootfs, "bin", "sh"))

    def test_docker_archive_names_its_layer_and_config(self):
        layer = busybox.layer_tar(self.rootfs)
        path = os.path.join(self._tmp.name, "image.tar")
        busybox.write_docker_archive(self.rootfs, path, "localhost/x:1")
        with tarfile.open(path) as t:
            members = {m.name: t.extractfile(m).read() for m in t}
        (manifest,) = json.loads(members["manifest.json"])
        self.assertEqual(["localhost/x:1"], manifest["RepoTags"])
        config = json.loads(members[manifest["Config"]])
        self.assertEqual(list(busybox.COMMAND), config["config"]["Cmd"])
        (diff_id,) = config["rootfs"]["diff_ids"]
        self.assertEqual(layer, members[manifest["Layers"][0]])
        self.assertEqual("sha256:" + hashlib.sha256(layer).hexdigest(),
                         diff_id)
        self.assertTrue(manifest["Layers"][0].startswith(diff_id[7:]))

    def test_layer_is_reproducible_with_links(self):
        first = busybox.layer_tar(self.rootfs)
        self.assertEqual(first, busybox.layer_tar(self.rootfs))
        with tarfile.open(fileobj=io.BytesIO(first)) as t:
            sh = t.getmember("bin/sh")
            self.assertTrue(sh.issym())
            self.assertEqual(("busybox", 0, 0), (sh.linkname, sh.uid,
                                                 sh.mtime))

    def test_newc_archive_entries(self):
        data = busybox.newc_archive(self.rootfs)
        self.assertEqual(0, len(data) % 4)
        names, offset = [], 0
        while offset < len(data):
            header = data[offset:offset + 110]
            self.assertEqual(b"070701", header[:6])
            size = int(header[54:62], 16)
            name_size = int(header[94:102], 16)
            start = offset + 110
            names.append(data[start:start + name_size - 1].decode())
            start += name_size
            start += -start % 4
            offset = start + size + (-size % 4)
            if names[-1] == "TRAILER!!!":
                break
        self.assertEqual(["bin", "bin/busybox", "bin/sh", "TRAILER!!!"],
                         names)


class CrictlTestCase(unittest.TestCase):

    def test_pod_and_container_configs_in_cri_v1_json(self):
        pod = cri.pod_config("rcbench_lc_x")
        self.assertEqual({"name": "rcbench_lc_x", "uid": "rcbench_lc_x",
                          "namespace": "rcbench"}, pod["metadata"])
        self.assertEqual(cri.NODE, pod["linux"]["security_context"]
                         ["namespace_options"]["network"])
        self.assertEqual(labels.label(labels.LIFECYCLE), pod["labels"])
        container = cri.container_config("rcbench_lc_x", "localhost/b:1")
        self.assertEqual({"image": "localhost/b:1"}, container["image"])

    def test_version_lines(self):
        self.assertEqual(
            {"Version": "0.1.0", "RuntimeName": "containerd",
             "RuntimeVersion": "1.6.20~ds1", "RuntimeApiVersion": "v1"},
            cri.parse_version("Version:  0.1.0\nRuntimeName:  containerd\n"
                              "RuntimeVersion:  1.6.20~ds1\n"
                              "RuntimeApiVersion:  v1\n"))


class RegistryTestCase(unittest.TestCase):

    def test_unpackaged_runtimes_say_why(self):
        with self.assertRaisesRegex(base.DriverError, "not packaged"):
            registry.lifecycle_class("kata")
        with self.assertRaisesRegex(base.DriverError, "known: "):
            registry.lifecycle_class("rkt")

    def test_every_runtime_loads(self):
        for name in registry.LIFECYCLE_NAMES:
            self.assertEqual(name, registry.lifecycle_class(name).name)


def iteration(concurrency_actions, footprint_rows=None):
    output = {"additive": [], "complete": []}
    if footprint_rows:
        output["additive"].append({"title": "footprint",
                                   "data": footprint_rows})
    return {"error": [], "output": output, "atomic_actions": [
        {"name": name, "started_at": 0.0, "finished_at": value,
         "children": []} for name, value in concurrency_actions]}


class FootprintInReportTestCase(unittest.TestCase):

    def document(self):
        def workload(args, times, concurrency, iterations):
            return {"scenario": {"ContainerLifecycle.x": args},
                    "runner": {"constant": {"times": times,
                                            "concurrency": concurrency}},
                    "data": iterations}
        lifecycle = [iteration([("create", 0.1), ("start", 0.2)])] * 3
        footprints = [iteration([], [["instance@1 (KiB)", 2000.0],
                                     ["daemon@1 (KiB)", 0.0]])]
        return {"tasks": [{"uuid": "u", "subtasks": [{"workloads": [
            workload({"driver": "runc"}, 3, 1, lifecycle),
            workload({"driver": "runc"}, 3, 4, lifecycle),
            workload({"driver": "runc"}, 1, 1, footprints)]}]}]}

    def test_footprint_rows_are_metrics_lower_is_better(self):
        samples = results.collect([self.document()]).samples
        found = [s for s in samples if s.metric == "footprint.instance@1"]
        self.assertEqual([("KiB", False, 2000.0)],
                         [(s.unit, s.higher_is_better, s.value)
                          for s in found])

    def test_steps_without_samples_get_no_rows(self):
        report = comparison.build([self.document()])
        rows = comparison.rows_for(report, "footprint.instance@1")
        self.assertEqual([1], [r["concurrency"] for r in rows])
        self.assertEqual([1, 4], [r["concurrency"] for r in
                                  comparison.rows_for(report, "create")])
        headline = {m["name"] for m in report["metrics"] if m["headline"]}
        self.assertEqual({"create", "start", "footprint.instance@1"},
                         headline)
