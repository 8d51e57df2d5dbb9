"""Where a cloud's instances ran, per cell, and what each host measured.

Pure: reads the samples and counts report.results collected. A cell
(platform x concurrency) whose instances spread over compute hosts gets
a row per host as well as the pooled one; the pooled verdict is built
from within-host pairs only (each pair's instance and twin ran on one
host), so pooling them mixes no host's hardware into another's. A host
whose native level (its twins' values) differs from the other hosts'
is named.
"""

import collections

from rally_container_bench.report import disturbance
from rally_container_bench.report import equivalence
from rally_container_bench.validity import compute_hosts as host_access

NATIVE = "native"


def of_cells(collected):
    """[{platform, concurrency, hosts: {host: iterations}, pairing}]."""
    keys = sorted(set(collected.placement) | set(collected.pairing),
                  key=lambda k: (k[1], k[0]))
    return [{"platform": label, "concurrency": concurrency,
             "hosts": dict(sorted(collected.placement.get(
                 (label, concurrency), {}).items())),
             "pairing": sorted(collected.pairing.get(
                 (label, concurrency), {}))}
            for label, concurrency in keys]


#: the verdict of a cell measured on another host than native's
NOT_COMPARABLE = "not comparable"
STATED_IDENTICAL = host_access.STATED_IDENTICAL


def off_native_host(collected):
    """Cells whose tests ran unpaired on a host native did not run on.

    {(label, concurrency): {"hosts": [the cell's compute hosts, or
    "unknown"], "native_hosts": [...], "stated_identical": bool}}. A
    cloud cell without a native twin on its instance's host ("unpaired"
    in its pairing) is compared with native measured elsewhere (the
    Rally host): that measures the hosts, not the platform, unless
    native's results state the hosts identical.
    """
    found = {}
    native_env = collected.environments.get(NATIVE) or {}
    for (label, concurrency), pairing in sorted(collected.pairing.items()):
        if label == NATIVE or not any(
                how.startswith("unpaired") for how in pairing):
            continue
        native_hosts = set(collected.placement.get((NATIVE, concurrency))
                           or ()) or ({native_env["host"]}
                                      if native_env.get("host") else set())
        hosts = set(collected.placement.get((label, concurrency)) or ())
        if hosts and hosts <= native_hosts:
            continue
        found[(label, concurrency)] = {
            "hosts": sorted(hosts) or ["unknown"],
            "native_hosts": sorted(native_hosts) or ["unknown"],
            "stated_identical": bool(native_env.get(STATED_IDENTICAL))}
    return found


def across_hosts(effect, off_host):
    """(effect, note) of an unpaired cell against native on another host.

    Its difference and CI stay, labelled; its verdict goes, unless the
    task states the hosts identical.
    """
    if off_host is None:
        return effect, None
    where = ("native on %s, this cell on %s"
             % (", ".join(off_host["native_hosts"]),
                ", ".join(off_host["hosts"])))
    if off_host["stated_identical"]:
        return effect, "across hosts, stated identical (%s; %s: true)" % (
            where, STATED_IDENTICAL)
    if effect.verdict is not None:
        effect = effect._replace(verdict=NOT_COMPARABLE,
                                 needed=None, tost_p=None)
    return effect, ("against the Rally host's native, not this instance's "
                    "host (%s): no verdict. %s" % (where, PAIR_THEM))


PAIR_THEM = ("Pair each test with a native twin on the instance's compute "
             "host: give compute_hosts (rcbench decide --compute-hosts "
             "FILE; the guide's 'Running against your cloud', native twins "
             "on the compute hosts), or state that the Rally host is the "
             "same hardware (NativeHost.sysbench's %s: true; "
             "tasks/kvm_vs_docker.yaml: native_host_identical: true)"
             % STATED_IDENTICAL)


def off_host_warnings(off_host):
    cells = ["%s at %s (on %s)" % (label, step, ", ".join(found["hosts"]))
             for (label, step), found in sorted(off_host.items())
             if not found["stated_identical"]]
    if not cells:
        return []
    return ["not comparable: %s ran with no native twin on the instance's "
            "host, against native measured on another host: their "
            "differences are shown, with no verdict. %s."
            % ("; ".join(cells), PAIR_THEM)]


def spread_cells(collected):
    """{(label, concurrency): [hosts]} of cells on more than one host."""
    return {key: sorted(hosts) for key, hosts in collected.placement.items()
            if len(hosts) > 1}


def by_host(samples, host):
    """(values, pairs) of one host's samples, keyed as the report's."""
    values = collections.defaultdict(list)
    mine = [s for s in samples if s.host == host]
    for sample in mine:
        values[(sample.metric, sample.platform, sample.concurrency)].append(
            sample.value)
    return values, disturbance.pairs(mine)


def host_rows(collected, metrics, row_of):
    """Rows per host of every spread cell's headline workload metrics.

    row_of(metric, label, concurrency, values, pairs) -> a report row
    (comparison._row with the report's margins).
    """
    rows = []
    spread = spread_cells(collected)
    hosts = sorted({h for found in spread.values() for h in found})
    split = {host: by_host(collected.samples, host) for host in hosts}
    for metric in metrics:
        # the headline number of each test: not one row per percentile
        if metric["kind"] != "workload" or not metric["headline"]:
            continue
        for (label, concurrency), on in sorted(spread.items()):
            for host in on:
                values, pairs = split[host]
                key = (metric["name"], label, concurrency)
                if not values.get(key):
                    continue
                row = row_of(metric, label, concurrency, values,
                             pairs.get(key))
                row.update(host=host, iterations=collected.placement[
                    (label, concurrency)][host])
                rows.append(row)
    return rows


def native_levels(samples, metrics, margin_of):
    """Hosts whose native twins measured a level apart from the others'.

    [{metric, concurrency, host, change, ci_low, ci_high, verdict}] for
    each headline workload metric with twins on two hosts or more, where
    the host's twins differ from the other hosts' beyond the margin
    (verdict worse or better).
    """
    twins = collections.defaultdict(lambda: collections.defaultdict(list))
    for sample in samples:
        if sample.twin_of and sample.host:
            # twins of one wave on one host share its moment there
            twins[(sample.metric, sample.concurrency)][sample.host].append(
                (sample.value, sample.moment and (sample.host,
                                                  sample.moment)))
    headline = {m["name"]: m for m in metrics if m["headline"]}
    found = []
    for (metric, concurrency), on in sorted(twins.items()):
        if metric not in headline or len(on) < 2:
            continue
        for host, measured in sorted(on.items()):
            others = [each for h, vs in on.items() if h != host
                      for each in vs]
            effect = equivalence.effect(
                [v for v, _ in measured], [v for v, _ in others],
                headline[metric]["higher_is_better"], margin_of(metric),
                moments=[m for _, m in measured],
                reference_moments=[m for _, m in others])
            if effect.verdict in ("worse", "better"):
                found.append({
                    "metric": metric, "concurrency": concurrency,
                    "host": host, "verdict": effect.verdict,
                    "change": effect.ratio - 1,
                    "ci_low": effect.ci_low - 1,
                    "ci_high": effect.ci_high - 1})
    return found
