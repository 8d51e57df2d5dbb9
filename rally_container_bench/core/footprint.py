"""Memory an idle instance costs, read from /proc as PSS.

As the ptcr lifecycle method and kata's footprint figures read it.

PSS (proportional set size) splits every shared page among the processes
that map it, so summing PSS over processes never counts a page twice: the
fair number for "what do N instances cost". An instance's processes are
found from one pid the engine reports (its workload's init, or the VMM):
climb parents while they are neither PID 1 nor an engine daemon nor this
process's own ancestors, then take that process's whole subtree. What is
not the workload in it is the runtime's overhead: containerd-shim, conmon,
the lxc monitor, CRI's pause; for a VM the whole QEMU process.
"""

import collections
import os

PROC = "/proc"

Footprint = collections.namedtuple(
    "Footprint", "instance_kib overhead_kib processes")


def processes(proc=PROC):
    """{pid: (ppid, comm)} of every process visible now."""
    found = {}
    for entry in os.listdir(proc):
        if not entry.isdigit():
            continue
        try:
            with open(os.path.join(proc, entry, "stat")) as f:
                stat = f.read()
        except OSError:
            continue  # gone meanwhile
        comm = stat[stat.index("(") + 1:stat.rindex(")")]
        ppid = int(stat[stat.rindex(")") + 2:].split()[1])
        found[int(entry)] = (ppid, comm)
    return found


def subtree(pid, table):
    """pid and all its descendants in table ({pid: (ppid, comm)})."""
    children = collections.defaultdict(list)
    for child, (parent, _) in table.items():
        children[parent].append(child)
    found, todo = set(), [pid]
    while todo:
        current = todo.pop()
        if current not in found:
            found.add(current)
            todo.extend(children[current])
    return found


def ancestors(pid, table):
    """Parents of pid, nearest first (as far as table knows them)."""
    chain = []
    while pid in table and table[pid][0] not in (0, pid):
        pid = table[pid][0]
        chain.append(pid)
    return chain


def top_of_instance(pid, table, stop_at):
    """The highest ancestor of pid that still belongs to the instance."""
    top = pid
    for parent in ancestors(pid, table):
        if parent <= 1 or parent in stop_at:
            break
        top = parent
    return top


def pss_kib(pid, proc=PROC):
    """Pss of one process in KiB (0 when it is gone or unreadable)."""
    try:
        with open(os.path.join(proc, str(pid), "smaps_rollup")) as f:
            for line in f:
                if line.startswith("Pss:"):
                    return int(line.split()[1])
    except (OSError, ValueError):
        pass
    return 0


def not_instance_pids(daemon_pids, table):
    """Pids an instance's climb stops at: daemons and this process's line."""
    stop = set(daemon_pids) | {os.getpid()}
    stop.update(ancestors(os.getpid(), table))
    return stop


def of_instance(workload_pid, table, stop_at, workload_separate=True,
                proc=PROC):
    """Footprint of the instance whose workload (or VMM) is workload_pid.

    workload_separate=False: the pid is the VMM itself (a VM's guest
    cannot be told apart from the host), so all of it is overhead.
    """
    top = top_of_instance(workload_pid, table, stop_at)
    members = subtree(top, table)
    workload = subtree(workload_pid, table) if workload_separate else set()
    pss = {pid: pss_kib(pid, proc) for pid in members}
    return Footprint(sum(pss.values()),
                     sum(v for pid, v in pss.items() if pid not in workload),
                     sorted("%s(%d)" % (table[pid][1], pid)
                            for pid in members if pid not in workload))


def mem_available_kib(proc=PROC):
    """The host's MemAvailable (/proc/meminfo), KiB.

    Its drop while N instances start, over N, is the other footprint
    (gVisor's guide measures so): it needs no process attribution, and
    counts what PSS cannot see (kernel memory of the instances' page
    tables, sockets, cgroups), and whatever else the host did meanwhile.
    """
    with open(os.path.join(proc, "meminfo")) as f:
        for line in f:
            if line.startswith("MemAvailable:"):
                return int(line.split()[1])
    raise ValueError("no MemAvailable in %s/meminfo" % proc)


def of_daemons(daemon_pids, proc=PROC):
    """PSS (KiB) of the engine daemons themselves."""
    return sum(pss_kib(pid, proc) for pid in set(daemon_pids))
