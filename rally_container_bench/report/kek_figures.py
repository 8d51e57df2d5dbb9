"""KEK's figures (HEPiX 2015, seed 004): the ladder as KEK drew it.

- phases_figure: each phase against concurrency (build, network,
  build+network, delete, boot-and-delete), one panel per phase, a line
  per platform, mean with SD bars: KEK's own charts (the spread of the
  instances, not the uncertainty of the mean: the tables give the CI);
- difference_figure: each headline test against concurrency as its
  difference from native (%, right is better whatever the direction),
  a line per platform with its CI, the margin of equivalence as a band:
  KEK's "X % worse than native" read against the rungs of the ladder.

Inline SVG, or files beside the report (FILES) for the guide's pages.
"""

from matplotlib import ticker

from rally_container_bench.report import comparison
from rally_container_bench.report import forest
from rally_container_bench.report import placement
from rally_container_bench.report import plots
from rally_container_bench.report import results

PHASES = ("build", "network", results.BUILD_NETWORK, "delete",
          results.BOOT_AND_DELETE)
FILES = {"phases": "kek-phases.svg", "difference": "kek-difference.svg"}
CAPTIONS = {
    "phases": "KEK's phase charts: each phase against concurrency, mean "
              "+- SD of the instances",
    "difference": "Each test against concurrency: its difference from "
                  "native (%, right is better), with its CI and margin"}
_BAND = "#e8e8e8"


def _legend(panels):
    """One legend, beside the last panel: none over the data."""
    handles, labels = panels[0].get_legend_handles_labels()
    panels[-1].legend(handles, labels, fontsize=7, loc="upper left",
                      bbox_to_anchor=(1.02, 1.0))


def phase_series(report, name):
    """[(platform, [step], [mean], [SD])] of a phase, platforms in order."""
    found = []
    for platform in report["platforms"]:
        rows = [r for r in comparison.rows_for(
            report, metric=name, platform=platform["label"])
            if r["mean"] is not None]
        if rows:
            found.append((platform["label"], [r["concurrency"] for r in rows],
                          [r["mean"] for r in rows],
                          [r["sd"] or 0.0 for r in rows]))
    return found


def phases_figure(report):
    """SVG of KEK's phase charts (mean +- SD), or None without phases."""
    names = [m["name"] for m in report["metrics"] if m["kind"] == "phase"]
    shown = [name for name in PHASES if name in names]
    if not shown:
        return None
    palette = plots.colours(report)
    fig, panels = plots.new_grid(len(shown))
    for axes, name in zip(panels, shown):
        shown_means = []
        for label, steps, means, sds in phase_series(report, name):
            axes.errorbar(steps, means, yerr=sds, label=label, marker="o",
                          markersize=3, capsize=2, color=palette[label])
            shown_means += means
        plots.log_if_spread(axes, shown_means)
        plots.concurrency_axis(axes, report)
        axes.set_title("%s (s), mean +- SD" % name)
        axes.set_xlabel("concurrency")
    _legend(panels)
    fig.tight_layout()
    return plots.to_svg(fig)


def difference_rows(report, metric, label):
    """[(step, change %, CI low %, CI high %, margin)] of a platform.

    Right (up) is better whatever the metric's direction; a cell with no
    comparison against its own host's native is left out.
    """
    sign = 1 if metric["higher_is_better"] else -1
    found = []
    for row in comparison.rows_for(report, metric=metric["name"],
                                   platform=label):
        if row.get("change") is None or \
                row["verdict"] == placement.NOT_COMPARABLE:
            continue
        low, high = sorted((sign * row["change_ci_low"],
                            sign * row["change_ci_high"]))
        found.append((row["concurrency"], 100 * sign * row["change"],
                      100 * low, 100 * high, row["margin"]))
    return found


def difference_figure(report):
    """SVG of each headline test's change from native by concurrency.

    None where no cell has one.
    """
    metrics = [m for m in report["metrics"]
               if m["headline"] and m["kind"] == "workload"]
    labels = [p["label"] for p in report["platforms"]
              if p["label"] != comparison.NATIVE]
    drawn = [(m, {label: difference_rows(report, m, label)
                  for label in labels}) for m in metrics]
    drawn = [(m, found) for m, found in drawn if any(found.values())]
    if not drawn:
        return None
    palette = plots.colours(report)
    fig, panels = plots.new_grid(len(drawn))
    for axes, (metric, found) in zip(panels, drawn):
        margins = {row[4] for rows in found.values() for row in rows
                   if row[4]}
        if len(margins) == 1:
            margin = 100 * margins.pop()
            axes.axhspan(-margin, margin, color=_BAND, zorder=0,
                         label="margin +-%g %%" % margin)
        axes.axhline(0, color=palette[comparison.NATIVE], linewidth=0.8)
        for label, rows in found.items():
            if not rows:
                continue
            steps, changes, lows, highs, _ = zip(*rows)
            axes.errorbar(steps, changes, yerr=(
                [c - lo for c, lo in zip(changes, lows)],
                [hi - c for c, hi in zip(changes, highs)]),
                label=label, marker="o", markersize=3, capsize=2,
                color=palette[label])
        # a VM's -80 % beside containers' +-2 %: linear near native, log
        # beyond (as the forest plot keeps every cell visible)
        if any(abs(v) > forest.NEAR for rows in found.values()
               for row in rows for v in row[1:4]):
            axes.set_yscale("symlog", linthresh=forest.NEAR)
            axes.yaxis.set_major_formatter(
                ticker.FuncFormatter(lambda value, _: "%g" % value))
        plots.concurrency_axis(axes, report)
        axes.set_title("%s: %% from native (CI)"
                       % metric["name"].replace("sysbench.", ""), fontsize=8)
        axes.set_xlabel("concurrency")
    _legend(panels)
    fig.tight_layout()
    return plots.to_svg(fig)


def figures(report):
    """{kind: svg} of the figures this report has (FILES' kinds).

    None of a report of one step: no ladder to draw (its forest plot
    and tables say it all).
    """
    if len(report.get("concurrency", ())) < 2:
        return {}
    found = {"phases": phases_figure(report),
             "difference": difference_figure(report)}
    return {kind: svg for kind, svg in found.items() if svg}
