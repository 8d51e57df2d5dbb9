"""KEK's concurrency ladder: does every step run N at once, and fail nothing?

    python -m benchmarks.kek_ladder [--platforms native docker ...]
        [--concurrency 1 2 4 8 16 32] [--times 32 | --waves 1] [--args-file F]
    python -m benchmarks.kek_ladder --cloud [--platforms native container]
        [--container nova-lxc zun] ...

Local: tasks/local_kvm_vs_containers.yaml with tasks/args/kek-ladder-local
.yaml in the Rally env rcbench-local (made empty if missing); kvm's steps
beyond this host's memory are left out, with the reason. --cloud:
tasks/kvm_vs_docker.yaml against tools/openstack-aio (Rally env
rcbench-aio from /etc/rcbench-aio/rally-env.json). Prints per platform and
step: failed iterations, tests at once (the step's least concurrent test,
time-weighted, against N), the share of test time beside other instances'
build/network/delete, slowest-ready and create skew (waves of N), the
step's wall time; then the campaign's. --json FILE keeps Rally's results.
"""

import argparse
import collections
import json
import os
import subprocess
import sys
import tempfile
import time

import yaml

from rally_container_bench import opts
from rally_container_bench.report import overlap
from rally_container_bench.report import results
from rally_container_bench.task import validators

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.path.dirname(sys.executable)
AIO_SPEC = "/etc/rcbench-aio/rally-env.json"


def rally(*args, check=True):
    proc = subprocess.run([os.path.join(BIN, "rally")] + list(args),
                          capture_output=True, text=True, cwd=TOP,
                          env=dict(os.environ, COLUMNS="200"))
    if check and proc.returncode != 0:
        raise SystemExit("rally %s failed:\n%s"
                         % (" ".join(args), proc.stderr[-3000:]))
    return proc


def ensure_env(name, spec=None):
    if rally("env", "show", name, check=False).returncode == 0:
        return
    if spec:
        rally("env", "create", "--name", name, "--spec", spec, "--no-use")
    else:
        rally("env", "create", "--name", name, "--no-use")


def local_args(options):
    with open(options.args_file) as f:
        args = yaml.safe_load(f)
    if options.platforms:
        args["platforms"] = options.platforms
    if options.concurrency:
        args["concurrency"] = options.concurrency
    if options.times:
        args["times"] = options.times
    if options.waves:
        args["waves"] = options.waves
    if "kvm" in args["platforms"]:
        most, why = validators.vm_capacity(opts.register())
        left_out = [n for n in args["concurrency"] if n > most]
        if left_out:
            args.setdefault("max_concurrency", {})["kvm"] = most
            print("kvm: steps %s left out: at most %d VMs at once (%s)"
                  % (left_out, most, why), flush=True)
    return args


def cloud_args(options):
    args = {"platforms": options.platforms or ["native", "container"],
            "container": options.container, "zun_runtime": "runc",
            "network": "rcbench-provider", "kvm_hypervisor_type": "qemu",
            "concurrency": options.concurrency or [1, 2, 4, 8, 16, 32],
            "times": options.times or 32, "boot_and_delete": False,
            "flavor_ram": 512, "flavor_vcpus": 1, "flavor_disk": 5,
            "tests": [{"preset": "quick-cpu", "events": None, "time": 3},
                      {"preset": "quick-memory-read",
                       "memory_total_size": "100G", "time": 2}]}
    if options.waves:
        args["waves"] = options.waves
    return args


def run(task, args, env):
    with tempfile.NamedTemporaryFile("w", suffix=".yaml") as f:
        yaml.safe_dump(args, f)
        f.flush()
        started = time.monotonic()
        proc = rally("task", "start", task, "--task-args-file", f.name,
                     "--env", env, check=False)
        wall = time.monotonic() - started
    uuid = next((line.split()[-2].rstrip(":") for line in
                 proc.stdout.splitlines() if line.endswith(": started")),
                None)
    if uuid is None or ": finished" not in rally("task", "status",
                                                 uuid).stdout:
        raise SystemExit("the task did not run: %s\n%s"
                         % (uuid, (proc.stdout + proc.stderr)[-3000:]))
    with tempfile.NamedTemporaryFile(suffix=".json") as f:
        rally("task", "report", uuid, "--json", "--out", f.name)
        with open(f.name) as g:
            return uuid, json.load(g), wall


def step_walls(document):
    """{(platform label, N): seconds} of the workloads of each step."""
    walls = collections.Counter()
    for task in document["tasks"]:
        for subtask in task["subtasks"]:
            for workload in subtask["workloads"]:
                data = workload.get("data") or []
                label = next((results.platform_of(
                    results.environment_of(i), *next(iter(
                        workload["scenario"].items()))).label
                    for i in data if results.environment_of(i)), None)
                runner = next(iter(workload["runner"].values()))
                if label:
                    walls[(label, runner.get("concurrency", 1))] += \
                        workload.get("full_duration") or 0
    return walls


def table(document):
    collected = results.collect([document])
    walls = step_walls(document)
    lines = ["%-14s %4s %8s %14s %8s %10s %8s %8s" % (
        "platform", "N", "failed", "tests at once", "beside", "slowest",
        "skew", "wall")]
    for key in sorted(collected.iterations, key=lambda k: (k[0], k[1])):
        label, n = key
        tests = overlap.summary(collected.test_runs.get(key, []), n)
        waves = collected.waves.get(key, [])
        least = min((t["effective"] for t in tests.values()), default=None)
        beside = max((t["beside"] for t in tests.values()), default=None)
        lines.append("%-14s %4d %4d/%-3d %14s %8s %10s %8s %7.0fs" % (
            label[:14], n, collected.failed[key], collected.iterations[key],
            "-" if least is None else "%.2f (%.2fN)" % (least, least / n),
            "-" if beside is None else "%.1f%%" % (100 * beside),
            "%.1fs" % max(w.slowest_ready for w in waves) if waves else "-",
            "%.2fs" % max(w.skew for w in waves) if waves else "-",
            walls.get(key, 0)))
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cloud", action="store_true",
                        help="the all-in-one cloud (tools/openstack-aio)")
    parser.add_argument("--platforms", nargs="+")
    parser.add_argument("--container", nargs="+",
                        default=["nova-lxc", "zun"])
    parser.add_argument("--concurrency", nargs="+", type=int)
    parser.add_argument("--times", type=int)
    parser.add_argument("--waves", type=int,
                        help="instead of --times: this many waves of N at "
                             "each step N")
    parser.add_argument("--args-file", default=os.path.join(
        TOP, "tasks", "args", "kek-ladder-local.yaml"))
    parser.add_argument("--json", metavar="FILE",
                        help="write Rally's results there")
    options = parser.parse_args()
    if options.cloud:
        ensure_env("rcbench-aio", AIO_SPEC)
        uuid, document, wall = run("tasks/kvm_vs_docker.yaml",
                                   cloud_args(options), "rcbench-aio")
    else:
        ensure_env("rcbench-local")
        uuid, document, wall = run("tasks/local_kvm_vs_containers.yaml",
                                   local_args(options), "rcbench-local")
    if options.json:
        with open(options.json, "w") as f:
            json.dump(document, f)
    print("task %s" % uuid)
    print(table(document))
    print("campaign wall time: %.0f s" % wall)


if __name__ == "__main__":
    main()
