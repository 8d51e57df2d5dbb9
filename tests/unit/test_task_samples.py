"""Every scenario has a sample (yaml + json, same content); every sample and
every task under tasks/ (with each of its args files) passes Rally's task
syntax validation, which runs this package's validators."""

import os
import unittest
from unittest import mock

import yaml

from rally import api
from rally import plugins as rally_plugins
from rally.task import engine
from rally.task import scenario
from rally.task import task_cfg

from rally_container_bench.task import lifecycle_validators
from rally_container_bench.task import validators

TOP = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
SAMPLES = os.path.join(TOP, "samples", "tasks")
TASKS = os.path.join(TOP, "tasks")
ARGS = os.path.join(TASKS, "args")
# Which args files each task under tasks/ is meant for.
TASK_ARGS = {
    "kvm_vs_docker.yaml": ["kek2015.yaml", "aio-quick.yaml",
                           "aio-decide.yaml", "aio-site-image.yaml",
                           "aio-gvisor.yaml", "kek2015-test-cloud.yaml"],
    "local_kvm_vs_containers.yaml": ["kek2015.yaml", "local-quick.yaml",
                                     "local-quick-fileio.yaml",
                                     "native-quick.yaml",
                                     "periodic-local.yaml",
                                     "kek-ladder-local.yaml",
                                     "gvisor-local.yaml",
                                     "kek2015-reduced.yaml",
                                     "kek2015-local.yaml"],
    "native_baseline.yaml": ["kek2015.yaml", "local-quick.yaml",
                             "native-quick.yaml"],
    "local_lifecycle.yaml": ["lifecycle-quick.yaml"],
    "local_tuning.yaml": ["tuning-quick.yaml"],
}


def our_scenarios():
    return {cls.get_name() for cls in scenario.Scenario.get_all()
            if cls.__module__.startswith("rally_container_bench.")}


class TaskFilesTestCase(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        rally_plugins.load()
        cls.rapi = api.API(skip_db_check=True)

    def render(self, path, **args):
        with open(path) as f:
            template = f.read()
        rendered = self.rapi.task.render_template(
            task_template=template, template_dir=os.path.dirname(path),
            **args)
        return yaml.safe_load(rendered)

    def validate(self, path, **args):
        config = task_cfg.TaskConfig(self.render(path, **args))
        # Stand-ins: syntax validation needs no task record or DB. The
        # host capacity check is left out: these files are meant for hosts
        # of any size (kek2015's fileio at concurrency 32 needs 256 GiB of
        # disk); test_validators checks it against this host for real.
        # So is the engine check: unit tests start no engine daemon.
        eng = engine.TaskEngine(config, mock.MagicMock(), mock.Mock())
        # Likewise the guest image built here, which rcbench_guest uploads.
        with mock.patch.object(validators.HostCapacityValidator,
                               "validate", return_value=None), \
                mock.patch.object(validators.EngineReadyValidator,
                                  "validate", return_value=None), \
                mock.patch.object(lifecycle_validators.LifecycleReadyValidator,
                                  "validate", return_value=None), \
                mock.patch.object(validators.registry, "guest_image"):
            eng.validate(only_syntax=True)
        return config

    def sample_files(self, suffix):
        for dirname, _, filenames in os.walk(SAMPLES):
            for name in sorted(filenames):
                if name.endswith(suffix):
                    yield os.path.join(dirname, name)

    def test_samples_pass_syntax_validation(self):
        covered = set()
        for path in self.sample_files(".yaml"):
            with self.subTest(sample=path):
                config = self.validate(path)
                for subtask in config.subtasks:
                    for workload in subtask["workloads"]:
                        covered.add(workload["name"])
                        self.assertTrue(workload.get("sla"),
                                        "%s: a workload without sla" % path)
        missing = our_scenarios() - covered
        self.assertEqual(set(), missing, "scenarios without a sample")

    def test_yaml_and_json_samples_are_pairs(self):
        for path in self.sample_files(".yaml"):
            twin = path[:-len(".yaml")] + ".json"
            with self.subTest(sample=path):
                self.assertTrue(os.path.exists(twin), "no " + twin)
                self.assertEqual(self.render(path), self.render(twin))
        for path in self.sample_files(".json"):
            self.assertTrue(os.path.exists(path[:-5] + ".yaml"), path)

    def test_sample_file_names_use_dashes(self):
        for path in list(self.sample_files(".yaml")) + list(
                self.sample_files(".json")):
            self.assertNotIn("_", os.path.basename(path), path)

    def test_tasks_pass_with_defaults_and_their_args_files(self):
        tasks = sorted(name for name in os.listdir(TASKS)
                       if name.endswith(".yaml"))
        self.assertEqual(sorted(TASK_ARGS), tasks,
                         "every task file needs its args files listed")
        used = {name for names in TASK_ARGS.values() for name in names}
        self.assertEqual(set(os.listdir(ARGS)), used,
                         "an args file no task uses")
        for task in tasks:
            with self.subTest(task=task, args=None):
                self.validate(os.path.join(TASKS, task))
            for args_file in TASK_ARGS[task]:
                with open(os.path.join(ARGS, args_file)) as f:
                    args = yaml.safe_load(f)
                with self.subTest(task=task, args=args_file):
                    config = self.validate(os.path.join(TASKS, task), **args)
                    # one subtask per concurrency step (and platform),
                    # but the steps a platform's cap leaves out (in the
                    # tasks that take caps)
                    steps = len(args.get("concurrency", [1]))
                    with open(os.path.join(TASKS, task)) as f:
                        caps = "max_concurrency" in f.read()
                    capped = sum(
                        1 for cap in args.get("max_concurrency", {}).values()
                        for step in args.get("concurrency", [1])
                        if step > cap) if caps else 0
                    self.assertTrue(config.subtasks)
                    self.assertEqual(
                        0, (len(config.subtasks) + capped) % steps)

    def test_the_fileio_args_are_the_quickstarts_with_fileio(self):
        def load(name):
            with open(os.path.join(ARGS, name)) as f:
                return yaml.safe_load(f)

        quick, fileio = load("local-quick.yaml"), load(
            "local-quick-fileio.yaml")
        self.assertEqual(
            quick.pop("tests") + [{"preset": "quick-fileio-rndrd",
                                   "time": 1}],
            fileio.pop("tests"))
        self.assertEqual("auto", fileio["decide"]["margins"].pop("disk"))
        self.assertGreater(fileio["decide"].pop("budget_s"),
                           quick["decide"].pop("budget_s"))
        self.assertEqual(quick, fileio)

    def test_cloud_task_targets(self):
        path = os.path.join(TASKS, "kvm_vs_docker.yaml")
        config = self.render(path, container="nova-docker",
                             container_image="my-docker-guest",
                             flavor="m1.small", concurrency=[4])
        workloads = {s["title"]: s["workloads"] for s in config["subtasks"]}
        container = workloads["container (nova-docker), concurrency 4"]
        args = container[0]["scenario"]["NovaInstances.boot_and_delete"]
        self.assertEqual({"name": "my-docker-guest"}, args["image"])
        self.assertEqual("docker", args["hypervisor_type"])
        self.assertEqual({"name": "m1.small"}, args["flavor"])
        self.assertEqual({"upload": False},
                         container[0]["contexts"]["rcbench_guest"])
        # An existing flavor: no flavors context (it needs admin).
        self.assertNotIn("flavors", container[0]["contexts"])
        kvm = workloads["kvm, concurrency 4"][0]
        # one image per task: the plain workload keeps it, the task's
        # last workload booting the form removes it
        self.assertEqual(
            {"hypervisor_type": "kvm", "shared": True, "last": False},
            kvm["contexts"]["rcbench_guest"])
        self.assertTrue(workloads["kvm, concurrency 4"][1]["contexts"][
            "rcbench_guest"]["last"])
        self.assertEqual({"flavor": {"name": "m1.small"}},
                         kvm["contexts"]["rcbench_nova_warmup"])
        native = workloads["native, concurrency 4"][0]["scenario"]
        self.assertNotIn("host", native["NativeHost.sysbench"])

    def test_cloud_task_tuned_kvm_flavor(self):
        path = os.path.join(TASKS, "kvm_vs_docker.yaml")
        specs = {"hw:cpu_policy": "dedicated", "quota:cpu_shares": "2048"}
        config = self.render(path, platforms=["kvm", "kvm-tuned"],
                             concurrency=[1], network="provider",
                             boot_and_delete=False,
                             kvm_flavor_extra_specs=specs)
        workloads = {s["title"]: s["workloads"][0]
                     for s in config["subtasks"]}
        plain = workloads["kvm, concurrency 1"]
        tuned = workloads["kvm-tuned, concurrency 1"]
        args = tuned["scenario"]["NovaInstances.boot_sysbench_delete"]
        (tuned_flavor,) = tuned["contexts"]["flavors"]
        self.assertEqual(({"name": tuned_flavor["name"]}, "provider"),
                         (args["flavor"], args["network"]))
        self.assertRegex(tuned_flavor["name"],
                         r"^rcbench-kek-tuned-[0-9a-f]{6}$")
        self.assertEqual(specs, tuned_flavor["extra_specs"])
        (flavor,) = plain["contexts"]["flavors"]
        self.assertRegex(flavor["name"], r"^rcbench-kek-[0-9a-f]{6}$")
        self.assertNotIn("extra_specs", flavor)
        # One suffix per task (both flavors), another in the next task:
        # two tasks at once on one cloud do not collide (Nova: HTTP 409).
        self.assertEqual(flavor["name"][-6:], tuned_flavor["name"][-6:])
        # Each flavor the task makes is marked with the task's uuid, so
        # rcbench cleanup --env finds it after a killed Rally.
        for workload, made in ((plain, flavor), (tuned, tuned_flavor)):
            self.assertEqual({"names": [made["name"]]},
                             workload["contexts"]["rcbench_flavor_owner"])
        names = {self.render(path, platforms=["kvm"], concurrency=[1])[
            "subtasks"][0]["workloads"][0]["contexts"]["flavors"][0]["name"]
            for _ in range(3)}
        self.assertEqual(3, len(names))
        # An existing tuned flavor: used as it is, none made.
        config = self.render(path, platforms=["kvm-tuned"], concurrency=[1],
                             kvm_tuned_flavor="m1.pinned")
        tuned = config["subtasks"][0]["workloads"][0]
        self.assertNotIn("flavors", tuned["contexts"])
        self.assertNotIn("rcbench_flavor_owner", tuned["contexts"])
        self.assertEqual({"name": "m1.pinned"}, tuned["scenario"][
            "NovaInstances.boot_and_delete"]["flavor"])

    def test_cloud_task_kvm_on_a_volume(self):
        path = os.path.join(TASKS, "kvm_vs_docker.yaml")
        config = self.render(path, platforms=["kvm", "kvm-volume"],
                             concurrency=[1], flavor_disk=20,
                             volume_type="ceph")
        workloads = {s["title"]: [w["scenario"] for w in s["workloads"]]
                     for s in config["subtasks"]}
        # kvm-volume boots as kvm does: no second boot_and_delete.
        (volume,) = workloads["kvm-volume, concurrency 1"]
        args = volume["NovaInstances.boot_volume_sysbench_delete"]
        self.assertEqual((20, "ceph"), (args["volume_size"],
                                        args["volume_type"]))
        plain = workloads["kvm, concurrency 1"]
        self.assertEqual(["NovaInstances.boot_and_delete",
                          "NovaInstances.boot_sysbench_delete"],
                         [list(w)[0] for w in plain])
        self.assertNotIn("volume_size",
                         plain[1]["NovaInstances.boot_sysbench_delete"])
        config = self.render(path, platforms=["kvm-volume"],
                             concurrency=[1], volume_size=3)
        args = config["subtasks"][0]["workloads"][0]["scenario"][
            "NovaInstances.boot_volume_sysbench_delete"]
        self.assertEqual(3, args["volume_size"])
        self.assertNotIn("volume_type", args)

    def test_cloud_task_native_baseline_over_ssh(self):
        path = os.path.join(TASKS, "kvm_vs_docker.yaml")
        config = self.render(path, platforms=["native"], concurrency=[1],
                             native_host="compute-1",
                             native_key_file="/root/.ssh/compute")
        args = config["subtasks"][0]["workloads"][0]["scenario"][
            "NativeHost.sysbench"]
        self.assertEqual(("compute-1", "root", "/root/.ssh/compute"),
                         (args["host"], args["user"], args["key_file"]))

    def test_bad_args_fail_validation(self):
        path = os.path.join(TASKS, "native_baseline.yaml")
        with self.assertRaisesRegex(Exception, "unknown sysbench preset"):
            self.validate(path, tests=["quick-cpu", "no-such-preset"])

    def test_runner_values_out_of_range_fail_validation(self):
        path = os.path.join(TASKS, "local_kvm_vs_containers.yaml")
        for args, word in (({"times": 0}, "times"),
                           ({"times": -3}, "times"),
                           ({"concurrency": [0]}, "concurrency"),
                           ({"times": "four"}, "times")):
            with self.subTest(args=args):
                with self.assertRaisesRegex(Exception, word):
                    self.validate(path, **args)


class RoundsAndLadderTestCase(unittest.TestCase):
    """Interleaved rounds, the synchronised start and per-platform caps."""

    @classmethod
    def setUpClass(cls):
        cls.rapi = api.API(skip_db_check=True)

    def render(self, name, **args):
        return TaskFilesTestCase.render(self, os.path.join(TASKS, name),
                                        **args)

    def titles(self, config):
        return [s["title"] for s in config["subtasks"]]

    def test_rounds_run_every_platform_once_in_a_seeded_order(self):
        platforms = ["native", "docker", "lxc", "kvm"]
        config = self.render("local_kvm_vs_containers.yaml",
                             platforms=platforms, concurrency=[2], times=4,
                             rounds=2, seed=7)
        titles = self.titles(config)
        self.assertEqual(8, len(titles))
        orders = [[t.split(",")[0] for t in titles[:4]],
                  [t.split(",")[0] for t in titles[4:]]]
        for order in orders:
            self.assertEqual(sorted(platforms), sorted(order))
        self.assertNotEqual(orders[0], orders[1])
        again = self.render("local_kvm_vs_containers.yaml",
                            platforms=platforms, concurrency=[2], times=4,
                            rounds=2, seed=7)
        self.assertEqual(titles, self.titles(again))
        other = self.render("local_kvm_vs_containers.yaml",
                            platforms=platforms, concurrency=[2], times=4,
                            rounds=2, seed=8)
        self.assertNotEqual(titles, self.titles(other))
        workload = config["subtasks"][5]["workloads"][0]
        self.assertEqual({"round": 2, "rounds": 2, "seed": 7,
                          "cell": titles[5].split(",")[0]},
                         workload["contexts"]["rcbench_round"])
        self.assertEqual(2, workload["runner"]["constant"]["times"])
        self.assertIn("rcbench_start_barrier", workload["contexts"])
        self.assertIn("round 2 of 2", workload["description"])

    def test_no_barrier_for_one_at_once_or_when_not_asked(self):
        config = self.render("local_kvm_vs_containers.yaml",
                             platforms=["docker"], concurrency=[1, 2])
        contexts = [s["workloads"][0]["contexts"] for s in config["subtasks"]]
        self.assertEqual([False, True], ["rcbench_start_barrier" in c
                                         for c in contexts])
        config = self.render("local_kvm_vs_containers.yaml",
                             platforms=["docker"], concurrency=[2],
                             sync_start=False)
        self.assertNotIn("rcbench_start_barrier",
                         config["subtasks"][0]["workloads"][0]["contexts"])

    def test_max_concurrency_leaves_out_a_platforms_higher_steps(self):
        config = self.render("local_kvm_vs_containers.yaml",
                             platforms=["docker", "kvm"],
                             concurrency=[1, 2, 4], times=4,
                             max_concurrency={"kvm": 2})
        self.assertEqual(["docker, concurrency 1", "docker, concurrency 2",
                          "docker, concurrency 4", "kvm, concurrency 1",
                          "kvm, concurrency 2"], sorted(self.titles(config)))

    def test_aio_quick_decides_spread_and_caps_the_vms(self):
        with open(os.path.join(ARGS, "aio-quick.yaml")) as f:
            args = yaml.safe_load(f)
        # rcbench decide's cells: the VM at 1, the containers at 1 and 2
        from rally_container_bench.decide import plan as planner
        self.assertEqual({("kvm", 1), ("nova-lxc", 2), ("zun", 2)},
                         set(planner.cells_of(args)))
        self.assertEqual({"budget_s", "max_rounds", "pairs_per_round",
                          "margins", "pairing"}, set(args["decide"]))
        # at once asked: each compute host decides (one CPU: in sequence)
        self.assertEqual("at-once", args["decide"]["pairing"])
        config = self.render("kvm_vs_docker.yaml", **args)
        found = {}
        for subtask in config["subtasks"]:
            for workload in subtask["workloads"]:
                name, scenario_args = next(iter(workload["scenario"].items()))
                found.setdefault(subtask["title"], []).append(name)
                if name.startswith("NovaInstances"):
                    self.assertTrue(scenario_args["spread"])
        self.assertIn("kvm, concurrency 1", found)
        self.assertNotIn("kvm, concurrency 2", found)
        self.assertEqual(["ZunContainers.run_sysbench_delete"],
                         found["container (zun), concurrency 2"])
        self.assertNotIn("container (zun), concurrency 1", found)
        # Zun reuses a host's image, loaded by one warm-up container first,
        # with the workload's own container fields.
        zun = [w for s in config["subtasks"] for w in s["workloads"]
               if next(iter(w["scenario"])).startswith("ZunContainers")]
        for workload in zun:
            scenario_args = next(iter(workload["scenario"].values()))
            warmup = workload["contexts"]["rcbench_zun_warmup"]
            self.assertEqual("auto", warmup["image_pull_policy"])
            self.assertEqual(
                {k: v for k, v in scenario_args.items()
                 if k not in ("tests", "via")}, warmup)
            self.assertEqual("runc", warmup["runtime"])
        # "zun": Zun's own pull policy, and no warm-up
        config = self.render("kvm_vs_docker.yaml", **dict(
            args, zun_image_pull_policy="zun"))
        for subtask in config["subtasks"]:
            for workload in subtask["workloads"]:
                self.assertNotIn("image_pull_policy",
                                 next(iter(workload["scenario"].values())))
                self.assertNotIn("rcbench_zun_warmup",
                                 workload.get("contexts", {}))

    def test_zun_runtimes_side_by_side(self):
        with open(os.path.join(ARGS, "aio-quick.yaml")) as f:
            args = yaml.safe_load(f)
        config = self.render("kvm_vs_docker.yaml", **dict(
            args, platforms=["native", "container"], container="zun",
            zun_runtime=["runc", "runsc"]))
        runtimes = {}
        for subtask in config["subtasks"]:
            for workload in subtask["workloads"]:
                name, scenario_args = next(iter(workload["scenario"].items()))
                if name.startswith("ZunContainers"):
                    runtimes.setdefault(subtask["title"], set()).add(
                        scenario_args["runtime"])
                    self.assertEqual(
                        scenario_args["runtime"],
                        workload["contexts"]["rcbench_zun_warmup"]["runtime"])
        self.assertEqual({"container (zun, runc), concurrency 2": {"runc"},
                          "container (zun, runsc), concurrency 2": {"runsc"}},
                         runtimes)

    def test_the_cloud_task_raises_nova_quotas_and_takes_rounds(self):
        config = self.render("kvm_vs_docker.yaml",
                             platforms=["native", "kvm"], concurrency=[16],
                             times=32, rounds=2, network="provider")
        self.assertEqual(4, len(config["subtasks"]))
        kvm = next(s["workloads"][-1] for s in config["subtasks"]
                   if s["title"].startswith("kvm"))
        self.assertEqual({"instances": -1, "cores": -1, "ram": -1},
                         kvm["contexts"]["quotas"]["nova"])
        self.assertEqual(16, kvm["runner"]["constant"]["times"])
        self.assertIn("rcbench_start_barrier", kvm["contexts"])

    def cloud_workloads(self, **args):
        config = self.render("kvm_vs_docker.yaml", **args)
        return [(subtask["title"], next(iter(w["scenario"].items())),
                 w["contexts"]) for subtask in config["subtasks"]
                for w in subtask["workloads"]]

    def test_the_cloud_task_pairs_on_the_compute_hosts(self):
        hosts = {"user": "root", "hosts": {"c2": {"address": "192.0.2.2"}}}
        found = self.cloud_workloads(
            platforms=["native", "kvm", "container"],
            container=["nova-lxc", "zun"], concurrency=[2],
            compute_hosts=hosts, boot_and_delete=False)
        # native is each instance's twin on its own host: no workload of
        # its own on the Rally host
        self.assertNotIn("NativeHost.sysbench", [n for _, (n, _), _ in found])
        for _, (name, args), _ in found:
            self.assertEqual(hosts, args["compute_hosts"], name)
        # without the map: native alone, tests unpaired
        found = self.cloud_workloads(platforms=["native", "kvm"],
                                     concurrency=[2])
        names = [n for _, (n, _), _ in found]
        self.assertIn("NativeHost.sysbench", names)
        self.assertFalse(any("compute_hosts" in a for _, (_, a), _ in found))

    def test_the_cloud_task_runs_a_plan(self):
        # as rcbench decide writes them: a sixth field, the step's
        # pairing (none on a cloud)
        plan = [["nova-lxc", 2, ["quick-cpu"], 4, 1, None],
                ["kvm", 1, ["quick-memory-read"], 1, 3, None],
                ["zun", 2, ["quick-cpu", "quick-memory-read"], 2, 1, None]]
        found = self.cloud_workloads(
            platforms=["native", "kvm", "container"],
            container=["nova-lxc", "zun"], compute_hosts={}, plan=plan,
            round_number=2, looks=3)
        self.assertEqual(
            [("container (nova-lxc), concurrency 2, round 2 of 3",
              "NovaInstances.boot_sysbench_delete", ["quick-cpu"], None),
             ("kvm, concurrency 1, round 2 of 3",
              "NovaInstances.boot_sysbench_delete",
              ["quick-memory-read"], 3),
             ("container (zun), concurrency 2, round 2 of 3",
              "ZunContainers.run_sysbench_delete",
              ["quick-cpu", "quick-memory-read"], None)],
            [(title, name, args["tests"], args.get("repeat"))
             for title, (name, args), _ in found])
        self.assertEqual(
            [{"round": 2, "rounds": 3, "looks": 3, "seed": 1, "cell": cell}
             for cell in ("nova-lxc", "kvm", "zun")],
            [contexts["rcbench_round"] for _, _, contexts in found])
        # each form's only workload is its last: it removes the image
        self.assertEqual([True, True, True],
                         [c["rcbench_guest"]["last"] for _, _, c in found])

    def test_a_cloud_plan_runs_the_a_a_on_each_kind_of_host(self):
        hosts = {"user": "root", "hosts": {"c1": {"address": "192.0.2.1"}}}
        plan = [["native-aa-on-qemu", 2, ["quick-cpu"], 4, 1, None],
                ["native-aa-on-lxc", 1, ["quick-cpu"], 2, 2, None],
                ["native-aa-on-zun", 1, ["quick-cpu"], 2, 1, None]]
        found = self.cloud_workloads(
            platforms=["kvm", "container"], container=["nova-lxc", "zun"],
            compute_hosts=hosts, plan=plan, kvm_hypervisor_type="qemu",
            container_availability_zone="lxc-zone")
        self.assertEqual(
            [("native against its twin (qemu hosts), concurrency 2",
              "ComputeHosts.against_twin",
              {"service": "nova", "hypervisor_type": "qemu",
               "tests": ["quick-cpu"], "compute_hosts": hosts}),
             ("native against its twin (lxc hosts), concurrency 1",
              "ComputeHosts.against_twin",
              {"service": "nova", "hypervisor_type": "lxc",
               "availability_zone": "lxc-zone", "tests": ["quick-cpu"],
               "compute_hosts": hosts, "repeat": 2}),
             ("native against its twin (zun hosts), concurrency 1",
              "ComputeHosts.against_twin",
              {"service": "zun", "tests": ["quick-cpu"],
               "compute_hosts": hosts})],
            [(title, name, args) for title, (name, args), _ in found])
        self.assertEqual(["native-aa-on-qemu", "native-aa-on-lxc",
                          "native-aa-on-zun"],
                         [c["rcbench_round"]["cell"] for _, _, c in found])

    def test_a_cloud_plan_passes_each_paired_cell_its_pairing(self):
        # rcbench decide's sixth field: at once asked on a cloud goes to
        # every scenario with a twin on the compute host, the A/A too
        hosts = {"user": "root", "hosts": {"c1": {"address": "192.0.2.1"}}}
        at_once = {"cpu": "at-once", "memory": "at-once"}
        plan = [[cell, 1, ["quick-cpu"], 2, 1, at_once]
                for cell in ("kvm", "zun", "native-aa-on-lxc", "kvm-volume")]
        found = self.cloud_workloads(
            platforms=["kvm", "kvm-volume", "container"],
            container=["nova-lxc", "zun"], compute_hosts=hosts, plan=plan)
        self.assertEqual(
            [("NovaInstances.boot_sysbench_delete", at_once),
             ("ZunContainers.run_sysbench_delete", at_once),
             ("ComputeHosts.against_twin", at_once),
             # a volume's fileio has no twin at once
             ("NovaInstances.boot_volume_sysbench_delete", None)],
            [(name, args.get("pairing")) for _, (name, args), _ in found])
        # and none without compute_hosts: no twin to pair with
        found = self.cloud_workloads(platforms=["kvm"], plan=plan[:1])
        self.assertNotIn("pairing", found[0][1][1])

    def test_a_local_plan_passes_each_cell_its_pairing(self):
        at_once = {"cpu": "at-once", "memory": "sequential"}
        config = self.render("local_kvm_vs_containers.yaml", paired=True,
                             plan=[["docker", 1, ["quick-cpu"], 2, 1,
                                    at_once],
                                   ["native-aa-at-once", 1, ["quick-cpu"],
                                    2, 1, "at-once"],
                                   ["native-slowed", 1, ["quick-cpu"], 2, 1,
                                    at_once],
                                   ["docker", 2, ["quick-cpu"], 4, 1, None]])
        args = [next(iter(w["scenario"].values()))
                for sub in config["subtasks"] for w in sub["workloads"]]
        self.assertEqual([at_once, "at-once", None, None],
                         [a.get("pairing") for a in args])
        # the known effect pairs in sequence (known_effect's docstring)
        self.assertEqual(10, args[2]["neighbour_nice"])

    def test_an_unknown_cell_of_a_plan_fails_validation(self):
        config = self.render("kvm_vs_docker.yaml",
                             plan=[["nova-xen", 1, ["quick-cpu"], 1, 1]])
        self.assertIn("unknown platform nova-xen", next(iter(
            config["subtasks"][0]["workloads"][0]["scenario"])))

    def test_one_image_per_task_and_form(self):
        found = self.cloud_workloads(
            platforms=["kvm", "container"], container=["nova-lxc", "zun"],
            concurrency=[1, 2], boot_and_delete=True)
        lasts = {}
        for title, (name, _), contexts in found:
            guest = contexts["rcbench_guest"]
            self.assertTrue(guest["shared"], title)
            lasts.setdefault(guest["hypervisor_type"], []).append(
                guest["last"])
        # the last workload of each form, and only it
        self.assertEqual({"kvm": [False] * 3 + [True],
                          "lxc": [False] * 3 + [True],
                          "docker": [False] * 3 + [True]}, lasts)
        found = self.cloud_workloads(platforms=["kvm"], concurrency=[1],
                                     shared_image=False)
        self.assertEqual({"hypervisor_type": "kvm"}, found[0][2][
            "rcbench_guest"])
        self.assertNotIn("rcbench_nova_warmup", found[0][2])
