"""The answer as a picture: each platform's difference from native.

One forest plot per concurrency step: a row per platform and headline
workload metric, its change from native (in %, "better" to the right
whatever the metric's direction) with its CI as a bar, the row's own
margin of equivalence as a band on that row, the point coloured by the
verdict (the same colours as the report's tables). The rows are grouped
by test, in the same order in every step's picture.

Every row stays visible: the axis spans the cells within NEAR % of
native, at a scale where 1 % is wide enough to read a ±2 % verdict; a
cell beyond it (a VM under TCG at -80 %) is an arrow at the edge, and
every row's value and verdict are written beside the plot, outside the
axes: no legend over the data. Inline SVG (matplotlib, no pyplot state),
the report's first figure.
"""

import collections

from rally_container_bench.report import comparison
from rally_container_bench.report import placement
from rally_container_bench.report import plots

VERDICT_COLOURS = {"equivalent": "#3d85c6", "worse": "#cc0000",
                   "better": "#38761d", "inconclusive": "#bf9000",
                   None: "#999999"}
BAND = "#cfe2f3"
# cells whose CI lies within this many % of native are drawn at scale
NEAR = 15.0
# the axis is never narrower than this either side of zero (%)
MIN_SPAN = 3.0

Row = collections.namedtuple(
    "Row", "label change low high margin verdict")


def rows_of(report, step):
    """[Row] of a step, in %: grouped by test, platforms in report order.

    Headline workload rows with a verdict; a metric where lower is
    better is turned around, so right is better for every row.
    """
    headline = {m["name"]: m for m in report["metrics"]
                if m["headline"] and m["kind"] == "workload"}
    metric_order = [m["name"] for m in report["metrics"]]
    platform_order = [p["label"] for p in report.get("platforms", ())]
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
        order = (metric_order.index(row["metric"]),
                 platform_order.index(row["platform"])
                 if row["platform"] in platform_order else len(
                     platform_order), row["platform"])
        found.append((order, Row(
            "%s: %s" % (row["platform"], _short(row["metric"])),
            100 * sign * row["change"], 100 * low, 100 * high,
            100 * (row["margin"] or 0), row["verdict"])))
    return [row for _, row in sorted(found)]


def _short(metric):
    """sysbench.memory.read.mib_per_s -> memory.read."""
    parts = metric.split(".")
    return ".".join(parts[1:-1]) or metric


def span(rows):
    """The axis' half width (%): the near rows' CIs and margins, padded."""
    near = [max(abs(r.low), abs(r.high), r.margin) for r in rows
            if max(abs(r.low), abs(r.high)) <= NEAR]
    widest = max(near + [r.margin for r in rows] + [MIN_SPAN / 1.15])
    return min(NEAR, 1.15 * widest)


def said(row):
    """What the text column says of a row: its value and verdict."""
    verdict = row.verdict or "no verdict"
    if row.verdict == "equivalent":
        verdict += " ±%g %%" % row.margin
    return "%+.1f %% [%+.1f, %+.1f] %s" % (
        row.change, row.low, row.high, verdict)


def draw(report, step):
    """(figure, axes, [point and bar artists], [text artists]) or None."""
    rows = rows_of(report, step)
    if not rows:
        return None
    limit = span(rows)
    fig, axes = plots.new_figure(width=10.0, height=0.8 + 0.3 * len(rows))
    fig.subplots_adjust(left=0.2, right=0.66)
    ys = list(range(len(rows)))[::-1]
    data, texts = [], []
    for y, row in zip(ys, rows):
        colour = VERDICT_COLOURS.get(row.verdict, VERDICT_COLOURS[None])
        if row.margin:
            axes.fill_betweenx([y - 0.38, y + 0.38], -row.margin,
                               row.margin, color=BAND, linewidth=0)
        low, high = max(row.low, -limit), min(row.high, limit)
        if low <= high:
            data += axes.plot([low, high], [y, y], color=colour,
                              linewidth=2)
        if -limit <= row.change <= limit:
            data += axes.plot([row.change], [y], marker="o", color=colour)
        else:  # beyond the axis: an arrow at its edge, the value in words
            edge = limit if row.change > 0 else -limit
            data += axes.plot([edge], [y], marker=">" if edge > 0 else "<",
                              markersize=9, color=colour, clip_on=False)
        # outside the axes (x in the axes' fraction): over no data
        texts.append(axes.text(1.02, y, said(row), va="center", fontsize=8,
                               color=colour,
                               transform=axes.get_yaxis_transform()))
    axes.axvline(0, color="#222222", linewidth=0.8)
    axes.set_xlim(-limit, limit)
    axes.set_ylim(-0.6, len(rows) - 0.4)
    axes.set_yticks(ys, labels=[r.label for r in rows])
    axes.set_xlabel("difference from native, %  (right: better; bar: CI; "
                    "shade: the row's margin)")
    axes.set_title("Concurrency %s: each platform against native" % step)
    axes.grid(True, axis="x", alpha=0.3)
    return fig, axes, data, texts


def figure(report, step):
    """SVG of the step's forest plot, or None when nothing has a verdict."""
    drawn = draw(report, step)
    return None if drawn is None else plots.to_svg(drawn[0])


def figures(report):
    """[(step, svg)] of every step with a verdict."""
    found = []
    for step in report["concurrency"]:
        svg = figure(report, step)
        if svg:
            found.append((step, svg))
    return found
