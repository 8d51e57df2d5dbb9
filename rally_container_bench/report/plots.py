"""The report's figures as inline SVG (matplotlib, no pyplot state).

- phase_figure: KEK's phase figures, time vs concurrency per platform,
  error bars = 95 % CI of the mean (none where n < 3);
- metric_figure: KEK's instance figures, one bar per platform at each
  concurrency with its CI, and the native level as a dashed line.
"""

import io

import matplotlib
from matplotlib import figure

from rally_container_bench.report import comparison

_STYLE = {
    "svg.hashsalt": "rally-container-bench",  # same input, same SVG
    "svg.fonttype": "none",  # text stays text: smaller, searchable
    "font.size": 9,
    "font.family": "sans-serif",
}
_NATIVE_COLOUR = "#222222"
LOG_SCALE_SPREAD = 30  # max/min of the means beyond which y is log


def colours(report):
    """A stable colour per platform label (tab10 in order of appearance)."""
    palette = matplotlib.colormaps["tab10"].colors
    labels = [p["label"] for p in report["platforms"]
              if p["label"] != comparison.NATIVE]
    found = {label: matplotlib.colors.to_hex(palette[i % len(palette)])
             for i, label in enumerate(labels)}
    found[comparison.NATIVE] = _NATIVE_COLOUR
    return found


def _error(row):
    if row["ci_low"] is None:
        return (0.0, 0.0)
    return (row["mean"] - row["ci_low"], row["ci_high"] - row["mean"])


def to_svg(fig):
    buffer = io.StringIO()
    with matplotlib.rc_context(_STYLE):
        fig.savefig(buffer, format="svg", bbox_inches="tight",
                    metadata={"Date": None})
    text = buffer.getvalue()
    return text[text.index("<svg"):]


def new_figure(width=6.4, height=3.2):
    with matplotlib.rc_context(_STYLE):
        fig = figure.Figure(figsize=(width, height))
        return fig, fig.add_subplot()


def new_grid(count, width=3.4, height=2.6):
    """(figure, [axes]) of count panels, three to a row."""
    columns = min(count, 3)
    rows = -(-count // columns)
    with matplotlib.rc_context(_STYLE):
        fig = figure.Figure(figsize=(width * columns, height * rows))
        return fig, [fig.add_subplot(rows, columns, i + 1)
                     for i in range(count)]


def log_if_spread(axes, means):
    """A log y axis where the means span more than LOG_SCALE_SPREAD.

    A VM's 35 s beside containers' 0.3 s: every line readable.
    """
    means = [m for m in means if m > 0]
    if means and max(means) / min(means) > LOG_SCALE_SPREAD:
        axes.set_yscale("log")


def concurrency_axis(axes, report):
    """x: the report's steps on a log2 scale, each one a tick."""
    axes.set_xscale("log", base=2)
    axes.set_xticks(report["concurrency"],
                    labels=[str(c) for c in report["concurrency"]])
    axes.grid(True, which="both", alpha=0.3)


def _title(metric):
    better = "higher" if metric["higher_is_better"] else "lower"
    return "%s (%s), %s is better" % (metric["name"], metric["unit"], better)


def phase_figure(report, metric):
    """SVG of metric (a phase) vs concurrency, one line per platform."""
    palette = colours(report)
    fig, axes = new_figure()
    means = []
    for platform in report["platforms"]:
        rows = [r for r in comparison.rows_for(
            report, metric=metric["name"], platform=platform["label"])
            if r["mean"] is not None]
        if not rows:
            continue
        errors = list(zip(*[_error(r) for r in rows]))
        axes.errorbar([r["concurrency"] for r in rows],
                      [r["mean"] for r in rows], yerr=errors,
                      label=platform["label"], marker="o", capsize=3,
                      color=palette[platform["label"]])
        means.extend(r["mean"] for r in rows)
    log_if_spread(axes, means)
    concurrency_axis(axes, report)
    axes.set_xlabel("concurrency (instances at once)")
    axes.set_ylabel("%s (%s)" % (metric["name"], metric["unit"]))
    axes.set_title(_title(metric))
    axes.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    return to_svg(fig)


def metric_figure(report, metric):
    """SVG bars of metric per platform at each concurrency, native marked."""
    palette = colours(report)
    platforms = [p["label"] for p in report["platforms"]
                 if p["label"] != comparison.NATIVE]
    steps = report["concurrency"]
    width = 0.8 / max(len(platforms), 1)
    fig, axes = new_figure(width=max(6.4, 1.2 * len(steps) + 4))
    for i, label in enumerate(platforms):
        xs, ys, errors = [], [], []
        for x, step in enumerate(steps):
            rows = comparison.rows_for(report, metric["name"], label, step)
            if rows and rows[0]["mean"] is not None:
                xs.append(x - 0.4 + width * (i + 0.5))
                ys.append(rows[0]["mean"])
                errors.append(_error(rows[0]))
        if xs:
            axes.bar(xs, ys, width=width * 0.9, label=label,
                     color=palette[label], yerr=list(zip(*errors)),
                     capsize=2)
    native_label = "native"
    for x, step in enumerate(steps):
        rows = comparison.rows_for(report, metric["name"],
                                   comparison.NATIVE, step)
        if rows and rows[0]["mean"] is not None:
            axes.hlines(rows[0]["mean"], x - 0.45, x + 0.45,
                        colors=_NATIVE_COLOUR, linestyles="dashed",
                        label=native_label)
            native_label = None  # one legend entry
    axes.set_xticks(range(len(steps)),
                    labels=["concurrency %s" % s for s in steps])
    axes.set_ylabel(metric["unit"])
    axes.set_title(_title(metric))
    axes.grid(True, axis="y", alpha=0.3)
    axes.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    return to_svg(fig)
