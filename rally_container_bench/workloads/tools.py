"""The workload tools, one registry.

Scenarios, validators, the guest image and the report ask it about a tool
(its presets, its spec, how it runs, its metrics' direction, what it needs
installed, the port of its server) instead of comparing tool names. A new
tool is a common.Tool subclass, listed here.
"""

from rally_container_bench.workloads.fio import run as fio_run
from rally_container_bench.workloads.net import run as net_run
from rally_container_bench.workloads.sysbench import run as sysbench_run

TOOLS = {tool.name: tool for tool in (
    sysbench_run.Sysbench(), fio_run.Fio(), net_run.Iperf3(),
    net_run.Http())}
NAMES = tuple(TOOLS)


def get(name):
    """The Tool named ``name``; KeyError names the known ones."""
    try:
        return TOOLS[name]
    except KeyError:
        raise KeyError("no workload tool %r; known: %s"
                       % (name, ", ".join(NAMES)))


def of(spec):
    """The Tool that runs a test spec."""
    return TOOLS[spec.tool]


def all_tools():
    return tuple(TOOLS.values())


def preset_owner(name):
    """The Tool with preset ``name``, or whose name prefixes it, or None.

    A prefix ("fio-") names the tool that says which presets it has when
    it has no such one.
    """
    for tool in all_tools():
        if name in tool.presets:
            return tool
    for tool in all_tools():
        if name.startswith(tool.name + "-"):
            return tool
    return None


def server_ports():
    """The ports the tools' servers listen on inside an instance."""
    return tuple(sorted(t.port for t in all_tools() if t.port))


def versions_table_keys():
    """(environment key, title) of each tool's version, for reports."""
    return tuple((t.version_key, t.program) for t in all_tools())


def guest_packages():
    """The Debian packages the tools need inside an instance."""
    return tuple(sorted({package for t in all_tools()
                         for _, package in t.inside}))


def metric_prefixes():
    """Workload metrics are named <tool>.<test>.<metric>."""
    return tuple("%s." % name for name in NAMES)


def higher_is_better(tool_name, metric):
    return get(tool_name).higher_is_better(metric)


def spec_errors():
    return tuple({e for t in all_tools() for e in t.spec_errors})
