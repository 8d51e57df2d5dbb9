"""The two host CPUs of a pair run at once, or why a step pairs in sequence.

A pair "at once" runs the instance's test and its native twin together,
each on its own CPU, released at one instant: the host's drift between
the two runs of a pair then cancels (duet benchmarking, Bulej et al.,
ICPE 2020). The two CPUs must not be SMT siblings (two threads of one
core share its units: each would slow the other), and each pair of a
wave of N needs two CPUs of its own: 2N CPUs on 2N cores.

Pure but for reading the host's topology (``host_cpus``).
"""

import os
import random

AT_ONCE = "at-once"
SEQUENTIAL = "sequential"
MODES = (AT_ONCE, SEQUENTIAL)
# How a record and the report name a pair's mode.
SAID = {AT_ONCE: "at once", SEQUENTIAL: "in sequence"}
# The kinds of test whose level does not depend on sharing the host with
# the twin at once, only its CPU: the ones a step may pair at once. A
# disk or a network is shared by both sides (their level drops).
KINDS_AT_ONCE = ("cpu", "memory")
# A VM's start is scheduled on its own clock, read over SSH before the
# pair: under QEMU TCG that read was off by more than 1 % of a 2.5 s
# memory run every time, and every one of 18 pairs at once was left out
# as skewed (README command 1 on a fresh machine, 2026-12-05).
VM_IN_SEQUENCE = ("a VM: its start at one instant with its twin rests on "
                  "its clock, read over SSH, which misses by more than the "
                  "1 % a pair's skew may take (18 of 18 pairs left out "
                  "under TCG)")
SIBLINGS = "/sys/devices/system/cpu/cpu%d/topology/thread_siblings_list"


def parse_cpu_list(text):
    """{cpus} of a kernel CPU list ("0-3,8,10-11")."""
    found = set()
    for part in text.strip().split(","):
        if not part:
            continue
        low, _, high = part.partition("-")
        found.update(range(int(low), int(high or low) + 1))
    return found


def host_cpus(read=None):
    """(usable CPUs, {cpu: its core's CPUs}) of this process on this host."""
    usable = sorted(os.sched_getaffinity(0))
    siblings = {}
    for cpu in usable:
        try:
            text = read(SIBLINGS % cpu) if read else _read(SIBLINGS % cpu)
            siblings[cpu] = parse_cpu_list(text)
        except (OSError, ValueError):
            siblings[cpu] = {cpu}
    return usable, siblings


# Prints the CPUs a login on a host may use (its cpuset's, as the kernel
# gives them to the login's shell) and each CPU's core: "cpu siblings".
HOST_CPUS_SCRIPT = r"""
sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' /proc/self/status
for f in /sys/devices/system/cpu/cpu[0-9]*/topology/thread_siblings_list; do
    [ -r "$f" ] || continue
    c=${f#/sys/devices/system/cpu/cpu}
    echo "${c%%/*} $(cat "$f")"
done
"""


def parse_host_cpus(text):
    """(usable CPUs, {cpu: its core's CPUs}) from HOST_CPUS_SCRIPT's output."""
    lines = text.strip().splitlines()
    if not lines:
        raise ValueError("no CPU list read")
    usable = sorted(parse_cpu_list(lines[0]))
    siblings = {}
    for line in lines[1:]:
        cpu, _, listed = line.partition(" ")
        if cpu.isdigit() and int(cpu) in usable:
            siblings[int(cpu)] = parse_cpu_list(listed)
    for cpu in usable:
        siblings.setdefault(cpu, {cpu})
    return usable, siblings


def one_core(usable, siblings, host):
    """Why a host of one core has no CPU for a twin at once, or None."""
    if len(one_per_core(usable, siblings)) >= 2:
        return None
    return ("compute host %s gives its instances and their twins one core "
            "(CPUs %s): no second CPU for a twin at once"
            % (host, ",".join(str(c) for c in usable)))


def twin_beside(instance_cpu, usable, siblings, taken, host):
    """(the twin's CPU, None) beside an instance pinned there, or (None, why).

    On a compute host the instance's CPU is the cloud's choice (a pinned
    flavor's), so the sides cannot alternate: the twin takes the first
    usable CPU on another core than the instance's that no instance of
    the host is pinned to or floats over (taken: their vCPUs' and
    emulator threads' CPUs).
    """
    why = one_core(usable, siblings, host)
    if why:
        return None, why
    mine = siblings.get(instance_cpu, {instance_cpu})
    for cpu in one_per_core(usable, siblings):
        if cpu not in mine and not (siblings.get(cpu, {cpu}) & taken):
            return cpu, None
    return None, (
        "every other core of compute host %s (CPUs %s) runs an instance's "
        "vCPUs or emulator threads (CPUs %s): no free CPU for a twin at "
        "once" % (host, ",".join(str(c) for c in usable),
                  ",".join(str(c) for c in sorted(taken))))


def _read(path):
    with open(path) as f:
        return f.read()


def one_per_core(usable, siblings):
    """The usable CPUs, the first of each core only, in order."""
    seen, found = set(), []
    for cpu in usable:
        core = frozenset(siblings.get(cpu, {cpu}))
        if core not in seen:
            seen.add(core)
            found.append(cpu)
    return found


def pair_of(position, concurrency, usable, siblings):
    """((cpu, cpu) of the wave's position-th pair, None) or (None, why not).

    Each pair of a wave of concurrency gets two CPUs of cores of its own.
    """
    cores = one_per_core(usable, siblings)
    if len(cores) < 2 * concurrency:
        return None, (
            "%d at once need %d CPUs on separate cores for their pairs at "
            "once; this host gives %d (CPUs %s)" % (
                concurrency, 2 * concurrency, len(cores),
                ",".join(str(c) for c in usable)))
    return (cores[2 * position], cores[2 * position + 1]), None


def sides(pair, seed, wave):
    """(instance's CPU, twin's CPU): which side is on which alternates.

    Wave by wave, from a seeded start, so a CPU's own offset (one core
    reads 0.6 % faster than the other) cancels over the waves.
    """
    first = random.Random(seed).randrange(2)
    if (first + wave) % 2:
        return pair[1], pair[0]
    return pair


def kind_of(spec):
    """The kind of a test (cpu, memory; else its tool's name)."""
    if spec.tool == "sysbench":
        return spec.label.split(".")[0]
    return spec.tool


def mode_of(pairing, kind):
    """The mode a kind of test asks for: pairing is a mode or {kind: mode}.

    Only cpu and memory tests pair at once (KINDS_AT_ONCE).
    """
    if kind not in KINDS_AT_ONCE:
        return SEQUENTIAL
    if isinstance(pairing, dict):
        return pairing.get(kind, SEQUENTIAL)
    return pairing or SEQUENTIAL


def asked(pairing):
    """The pairing where it asks for pairs at once, else None.

    A mode or {kind: mode}; unset and sequential ask for none.
    """
    if isinstance(pairing, dict):
        # {cpu: sequential, memory: sequential}, as decide's calibration
        # chooses on a host where at once is no steadier, asks for none:
        # its pairs run on one CPU, not on the two of a pair at once
        return pairing if any(mode_of(pairing, k) == AT_ONCE
                              for k in KINDS_AT_ONCE) else None
    return None if pairing in (None, SEQUENTIAL) else pairing


def check_pairing(pairing):
    """None, or why a pairing value is wrong (a validator's message)."""
    if pairing is None:
        return None
    values = pairing.values() if isinstance(pairing, dict) else [pairing]
    bad = [v for v in values if v not in MODES]
    if bad:
        return ("pairing: %s is not a mode; give %s, or a mapping of test "
                "kinds (%s) to them" % (", ".join(map(str, bad)),
                                        " or ".join(MODES),
                                        ", ".join(KINDS_AT_ONCE)))
    if isinstance(pairing, dict):
        wrong = sorted(k for k, v in pairing.items()
                       if v == AT_ONCE and k not in KINDS_AT_ONCE)
        if wrong:
            return ("pairing: %s cannot pair at once (a disk or network is "
                    "shared by both sides); only %s" % (
                        ", ".join(wrong), ", ".join(KINDS_AT_ONCE)))
    return None


def skew_bound(seconds):
    """The start skew beyond which a pair at once is left out: 1 % of it."""
    return 0.01 * seconds


def pairing_said(pairing):
    """The environment's "pairing" of an iteration whose twins are local.

    One text per mode and reason (the report counts iterations by it);
    the CPUs are in its "pinning".
    """
    if pairing is None or pairing.asked is None:
        return SAID[SEQUENTIAL]
    if pairing.in_sequence_why:
        return "in sequence, at once asked: %s" % pairing.in_sequence_why
    kinds = ", ".join(k for k in KINDS_AT_ONCE
                      if mode_of(pairing.asked, k) == AT_ONCE)
    if not kinds:
        # decide's calibration chose in sequence for every kind
        return SAID[SEQUENTIAL]
    return "at once (%s): instance and twin on CPUs of their own, " \
        "released together; the rest in sequence" % kinds
