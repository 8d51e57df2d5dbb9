"""The answer as a picture: each platform's difference from native.

One forest plot per concurrency step: a row per platform and headline
workload metric, its change from native (in %, "better" to the right
whatever the metric's direction) with its CI as a bar, the margin of
equivalence as a band around zero, the point coloured by the verdict
(the same colours as the report's tables). Inline SVG (matplotlib, no
pyplot state), the report's first figure.
"""

from rally_container_bench.report import comparison
from rally_container_bench.report import placement
from rally_container_bench.report import plots

VERDICT_COLOURS = {"equivalent": "#3d85c6", "worse": "#cc0000",
                   "better": "#38761d", "inconclusive": "#bf9000",
                   None: "#999999"}


def rows_of(report, step):
    """[(label, change, low, high, margin, verdict)] of a step, in %.

    Headline workload rows with a verdict; a metric where lower is
    better is turned around, so right is better for every row.
    """
    headline = {m["name"]: m for m in report["metrics"]
                if m["headline"] and m["kind"] == "workload"}
    found = []
    for row in comparison.rows_for(report, concurrency=step):
        metric = headline.get(row["metric"])
        if metric is None or row["platform"] == comparison.NATIVE \
                or row.get("change") is None \
                or row["verdict"] == placement.NOT_COMPARABLE:
            continue  # no verdict, or none against another host's native
        sign = 1 if metric["higher_is_better"] else -1
        low, high = sorted((sign * row["change_ci_low"],
                            sign * row["change_ci_high"]))
        found.append(("%s: %s" % (row["platform"], _short(row["metric"])),
                      100 * sign * row["change"], 100 * low, 100 * high,
                      100 * (row["margin"] or 0), row["verdict"]))
    return found


def _short(metric):
    """sysbench.memory.read.mib_per_s -> memory.read."""
    parts = metric.split(".")
    return ".".join(parts[1:-1]) or metric


def figure(report, step):
    """SVG of the step's forest plot, or None when nothing has a verdict."""
    rows = rows_of(report, step)
    if not rows:
        return None
    fig, axes = plots.new_figure(width=7.0, height=0.5 + 0.32 * len(rows))
    ys = list(range(len(rows)))[::-1]
    margins = {r[4] for r in rows}
    for margin in sorted(margins, reverse=True):
        axes.axvspan(-margin, margin, color="#cfe2f3", alpha=0.5,
                     label="margin ±%g %%" % margin)
    axes.axvline(0, color="#222222", linewidth=0.8)
    for y, (label, change, low, high, _, verdict) in zip(ys, rows):
        colour = VERDICT_COLOURS.get(verdict, VERDICT_COLOURS[None])
        axes.plot([low, high], [y, y], color=colour, linewidth=2)
        axes.plot([change], [y], marker="o", color=colour)
    axes.set_yticks(ys, labels=[r[0] for r in rows])
    axes.set_xlabel("difference from native, %  (right: better; bar: CI)")
    axes.set_title("Concurrency %s: each platform against native" % step)
    axes.grid(True, axis="x", alpha=0.3)
    axes.legend(fontsize=8, loc="lower right")
    return plots.to_svg(fig)


def figures(report):
    """[(step, svg)] of every step with a verdict."""
    found = []
    for step in report["concurrency"]:
        svg = figure(report, step)
        if svg:
            found.append((step, svg))
    return found
