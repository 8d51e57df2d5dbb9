"""The host itself: the native baseline every platform is compared to.

Commands run as child processes of the Rally worker, without a shell (the
argv goes to exec as it is, so no value is ever interpreted by a shell).
They stay in Rally's process group on purpose: a Ctrl-C on ``rally task
start`` then reaches them too (in a group of their own they would run on
after Rally stopped). A timeout kills the child, sysbench threads included.
Where Rally yields the CPU (``rcbench decide``'s harness_yields, which
sets TWINS_APART) each runs in a session of its own instead,
so at the priority of a session of its own, not at Rally's; the worker
kills it on Ctrl-C (the KeyboardInterrupt below), as on a timeout.
"""

import os
import platform
import subprocess
import time

from rally_container_bench.core import base

# set in Rally's environment where it yields the CPU (rally_runs)
TWINS_APART = "RCBENCH_TWINS_APART"
# The instrument check's platforms (task/scenarios/instrument.py): native
# against its own twin, and under a known effect.
AA = "native-aa"
SLOWED = "native-slowed"
# The A/A with every pair at once, beside the A/A in sequence: rcbench
# decide measures both before choosing a mode (decide/pairing.py).
AA_AT_ONCE = "native-aa-at-once"
# A cloud's A/A: native against its twin on a compute host of one kind
# (task/scenarios/cloud_instrument.py), native-aa-on-qemu and the like.
AA_ON = "native-aa-on-"


def aa_on(host_kind):
    return AA_ON + host_kind


def is_aa(platform):
    """Whether a platform is an A/A cell of sequential pairs."""
    return platform == AA or platform.startswith(AA_ON)


class NativeExecutor(base.Executor):
    """Commands on this host; with cpu, confined to that CPU (taskset).

    kind: the platform its runs are reported as (native; the instrument
    check's cells: report/instrument.py). neighbour: an
    engines.native.known_effect.Neighbour beside each command, on its CPU.
    """

    on_host = True

    def __init__(self, cpu=None, kind="native", neighbour=None):
        self.cpu = cpu
        self.kind = kind
        self.neighbour = neighbour

    def run(self, argv, timeout, cwd=None):
        started = time.monotonic()
        words = [str(word) for word in argv]
        if self.neighbour is not None:
            words = self.neighbour.wrap(words)
        if self.cpu is not None:
            words = ["taskset", "-c", str(self.cpu)] + words
        try:
            proc = subprocess.Popen(
                words, cwd=cwd,
                stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                stderr=subprocess.PIPE, text=True,
                start_new_session=os.environ.get(TWINS_APART) == "1")
        except OSError as e:
            raise base.DriverError("cannot start %s: %s" % (argv[0], e))
        try:
            stdout, stderr = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            _kill(proc)
            raise base.CommandTimeout("%s did not finish within %s s"
                                      % (argv[0], timeout))
        except BaseException:
            _kill(proc)
            raise
        return base.CommandResult(
            command=" ".join(str(word) for word in argv),
            exit_code=proc.returncode, stdout=stdout, stderr=stderr,
            duration_s=time.monotonic() - started)

    def describe(self):
        facts = dict(host_facts(), driver=self.kind)
        if self.neighbour is not None:
            facts["known_effect"] = self.neighbour.describe()
            facts["known_withheld"] = self.neighbour.withheld
        return facts


def host_facts():
    """The machine Rally runs on, for every result's environment."""
    uname = platform.uname()
    return {"host": uname.node, "host_kernel": uname.release,
            "host_cpu_model": _cpu_model(), "host_cpus": os.cpu_count()}


def _kill(proc):
    proc.kill()
    proc.communicate()


def _cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or None
