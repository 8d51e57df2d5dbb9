"""What the harness adds to what it measures, per local container driver.

    python -m benchmarks.driver_overhead [--rounds 5] [--drivers docker,...]
                                         [--cpu-seconds 10]

1. Lifecycle overhead: create -> running -> delete -> gone through the
   driver vs the same operations with the engine's own CLI, rounds
   alternating; ratio of medians (goal <= 1.05). Docker and Podman only
   (LXC and QEMU: the driver's cycle alone).
2. Build-phase error: the build phase the driver measures (request ->
   running seen) minus the engine's own created -> started interval
   (Docker/Podman timestamps; none elsewhere); median and max (goal <=
   50 ms).
3. Harness CPU while sysbench runs inside an instance: CPU seconds this
   process used per wall second during a 10 s sysbench cpu run over SSH
   (goal <= 1% of a core).
"""

import argparse
import json
import resource
import statistics
import subprocess
import time

from rally_container_bench.engines import registry
from rally_container_bench import opts
from rally_container_bench.workloads.sysbench import run as sysbench_run
from rally_container_bench.workloads.sysbench import spec as spec_lib


def timed(fn):
    started = time.monotonic()
    fn()
    return time.monotonic() - started


def driver_cycle(driver, name):
    def cycle():
        instance = driver.create(name)
        driver.wait_running(instance, 120)
        driver.delete(instance)
        driver.wait_deleted(instance, 120)
    return timed(cycle)


def has_cli_cycle(driver):
    return driver.name == "docker" or driver.name.startswith("podman-")


def cli_cycle(driver, name):
    """The same lifecycle with the engine's CLI (what an operator types)."""
    run = ["run", "-d", "--name", name, "-p", "127.0.0.1::22",
           driver.image.tag]
    if driver.name == "docker":
        def cli(*args):
            subprocess.run(["docker"] + list(args), check=True,
                           capture_output=True)
        rm = ["rm", "-f", name]
    else:
        def cli(*args):
            # podman with the driver's runtime, flags and namespace: the
            # command an operator types on this host
            proc = driver.command(*args)
            if proc.returncode != 0:
                raise RuntimeError("podman %s: %s" % (args[0], proc.stderr))
        rm = ["rm", "-f", "-t", "0", name]

    def cycle():
        cli(*run)
        cli(*rm)
    return timed(cycle)


def harness_cpu(driver, name, seconds=10):
    instance = driver.create(name)
    try:
        driver.wait_running(instance, 120)
        driver.wait_reachable(instance, 120)
        executor = driver.executor(instance)
        version = sysbench_run.detect_version(executor, "sysbench", 30)
        spec = spec_lib.from_dict({"test": "cpu", "time": seconds})
        before = resource.getrusage(resource.RUSAGE_SELF)
        wall = time.monotonic()
        sysbench_run.run_test(executor, spec, version, "sysbench", "/root",
                              seconds + 60)
        wall = time.monotonic() - wall
        after = resource.getrusage(resource.RUSAGE_SELF)
    finally:
        driver.delete(instance)
        driver.wait_deleted(instance, 120)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime
                                                - before.ru_stime)
    return cpu / wall


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--drivers",
                        default="docker,podman-runc,podman-crun")
    parser.add_argument("--cpu-seconds", type=int, default=10,
                        help="length of the sysbench run of part 3")
    args = parser.parse_args()
    conf = opts.register()
    report = {}
    for name in args.drivers.split(","):
        driver = registry.prepared_instance(name, conf)
        ours, theirs = [], []
        for n in range(args.rounds):
            tag = "rcbench_bench_%s_%d" % (name.replace("-", ""), n)
            ours.append(driver_cycle(driver, tag))
            if has_cli_cycle(driver):
                theirs.append(cli_cycle(driver, tag + "c"))
        build = []
        for n in range(args.rounds):
            tag = "rcbench_bench_%s_b%d" % (name.replace("-", ""), n)
            started = time.monotonic()
            instance = driver.create(tag)
            driver.wait_running(instance, 120)
            measured = time.monotonic() - started
            driver.record_engine_times(instance)
            times = instance.engine_times
            if times.get("started") and times.get("created"):
                build.append(measured - (times["started"] - times["created"]))
            driver.delete(instance)
            driver.wait_deleted(instance, 120)
        cpu = harness_cpu(driver, "rcbench_bench_%s_cpu"
                          % name.replace("-", ""), args.cpu_seconds)
        report[name] = {
            "lifecycle_driver_median_s": round(statistics.median(ours), 4),
            "harness_cpu_share_of_one_core": round(cpu, 5),
        }
        if theirs:
            report[name].update(
                lifecycle_cli_median_s=round(statistics.median(theirs), 4),
                driver_over_cli=round(statistics.median(ours)
                                      / statistics.median(theirs), 4))
        else:
            report[name]["lifecycle_cli_median_s"] = (
                "n/a: no engine CLI cycle to compare for %s" % name)
        if build:
            report[name]["build_minus_engine_interval_ms"] = {
                "median": round(statistics.median(build) * 1000, 1),
                "max": round(max(build) * 1000, 1)}
        else:
            report[name]["build_minus_engine_interval_ms"] = (
                "n/a: %s reports no created/started times" % name)
        print(json.dumps({name: report[name]}, indent=2), flush=True)


if __name__ == "__main__":
    main()
