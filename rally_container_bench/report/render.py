"""The comparison written out: HTML (one offline file), CSV, JSON, Markdown."""

import csv
import io
import json
import os
import re

import jinja2
import markupsafe

from rally_container_bench.core import provenance
from rally_container_bench.report import comparison
from rally_container_bench.report import disturbance
from rally_container_bench.report import forest
from rally_container_bench.report import instrument
from rally_container_bench.report import kek_figures
from rally_container_bench.report import plots
from rally_container_bench.report import results
from rally_container_bench.report import sequential

FILE_NAMES = {"html": "comparison.html", "csv": "comparison.csv",
              "json": "comparison.json", "md": "comparison.md"}
VERDICT_TEXT = {"better": "better than native beyond the margin",
                "worse": "worse than native beyond the margin",
                "equivalent": "equivalent to native within the margin",
                "inconclusive": "inconclusive: neither shown equivalent nor "
                                "beyond the margin",
                "not comparable": "not comparable: native was measured on "
                                  "another host (no twin on the "
                                  "instance's host)",
                None: "not tested"}


def number(value, digits=3):
    """A value with `digits` significant digits; "–" for none."""
    if value is None:
        return "–"
    if value == 0:
        return "0"
    if abs(value) >= 10 ** digits:
        return "%.0f" % value  # 5520, not 5.52e+03
    return "%.*g" % (digits, value)


def percent(ratio):
    return "–" if ratio is None else "%+.1f %%" % ((ratio - 1) * 100)


def ratio_cell(row):
    """The difference from native and its verdict.

    "-3.2 % [-4.0, -2.4] worse", "+0.6 % [+0.3, +0.8] equivalent ±2 %",
    "+4.2 % [-1.0, +9.6] inconclusive (n ≈ 16)"; without a verdict (too
    few iterations) the ratio of the means alone.
    """
    if row is not None and not row["n"] and row.get("left_out"):
        return "– (%d disturbed run(s) left out, none kept)" % row["left_out"]
    if row is None or (row["ratio_to_native"] is None
                       and row.get("change") is None):
        return "–"
    if row.get("verdict") is None:
        return percent(row["ratio_to_native"]) + _failed(row)
    text = "%+.1f %% [%+.1f, %+.1f] %s" % (
        100 * row["change"], 100 * row["change_ci_low"],
        100 * row["change_ci_high"], row["verdict"])
    if row["verdict"] == "equivalent":
        text += " ±%g %%" % (100 * row["margin"])
    elif row["verdict"] == "inconclusive":
        text += (" (n ≈ %d)" % row["iterations_needed"]
                 if row.get("iterations_needed") else " (n > 10000)")
    elif row["verdict"] == "not comparable":
        text += ": no twin on %s" % ", ".join(row["off_host"]["hosts"])
    if row.get("off_host") and row["off_host"]["stated_identical"]:
        text += " (across hosts, stated identical)"
    if row.get("round_flip"):
        text += " ↕"
    if row.get("pairing") and row["pairing"] != results.IN_SEQUENCE:
        text += " (%s)" % row["pairing"]
    return text + _failed(row)


def two_lines(text):
    """A cell's value on the first line, its interval [a, b] on the second.

    So that the tables of seven platforms fit the page (HTML only).
    """
    found = re.match(r"^(.*?) (\[[^\]]*\])(.*)$", text or "")
    if not found:
        return markupsafe.escape(text)
    head, interval, rest = found.groups()
    return markupsafe.Markup("%s%s<br>%s") % (head, rest, interval)


def round_changes(row):
    """"1: +1.2 %, 2: -0.8 %" (each round against native of that round)."""
    changes = row.get("round_changes") or {}
    return ", ".join("%s: %+.1f %%" % (number, 100 * change)
                     for number, change in sorted(changes.items()))


def mean_cell(row):
    """"12.3 [11.9, 12.8]" (mean and 95 % CI)."""
    if row is None or row["mean"] is None:
        return "–" if row is None or not row["failed"] else (
            "all %d failed" % row["failed"])
    text = number(row["mean"])
    if row["ci_low"] is not None:
        text += " [%s, %s]" % (number(row["ci_low"]), number(row["ci_high"]))
    return text + _failed(row)


def _failed(row):
    return " (%d failed)" % row["failed"] if row["failed"] else ""


def _workload_cell(row):
    """Native's own level, every other platform's difference from it."""
    if row is not None and row["platform"] == comparison.NATIVE:
        return mean_cell(row)
    return ratio_cell(row)


def _sample_sizes(rows):
    sizes = sorted({row["n"] for row in rows})
    text = "n per cell: %s" % (
        sizes[0] if len(sizes) == 1 else "%s to %s" % (sizes[0], sizes[-1]))
    if any(row["failed"] for row in rows):
        text += "; cells marked with failed iterations leave them out"
    return text


def step_margins(report, step):
    """The margins a step's heading names: that step's own.

    Every margin in a report made before they were kept per step.
    """
    methods = report["methods"]
    return (methods.get("margin_at") or {}).get(str(step),
                                                methods["margin"])


def headline(report):
    """[(concurrency, kind, metrics, platforms, {(metric, platform): row})]."""
    tables = []
    labels = [p["label"] for p in report["platforms"]]
    for step in report["concurrency"]:
        for kind in ("workload", "phase"):
            metrics = [m for m in report["metrics"]
                       if m["headline"] and m["kind"] == kind]
            cells = {}
            for metric in metrics:
                for row in comparison.rows_for(report, metric["name"],
                                               concurrency=step):
                    cells[(metric["name"], row["platform"])] = row
            platforms = [label for label in labels
                         if any(k[1] == label for k in cells)]
            # e.g. footprints: measured at concurrency 1 only
            metrics = [m for m in metrics
                       if any(k[0] == m["name"] for k in cells)]
            if metrics and platforms:
                tables.append((step, kind, metrics, platforms, cells))
    return tables


def findings(report):
    """What qualifies every verdict: disturbance, noise, sequential looks."""
    lines = disturbance.findings(report.get("disturbance") or {})
    if report.get("noise"):
        lines.append("Noise per test (SD of the within-pair ratios, of a "
                     "wave's mean ratio where N ran at once; median over "
                     "cells): %s." % ", ".join(
                         "%s %.2f %% (%d cells)" % (
                             n["kind"], 100 * n["pair_sd"], n["cells"])
                         for n in report["noise"]))
    if report["methods"].get("sequential"):
        lines.append(sequential.decided_line(report))
    return lines


def to_csv(report):
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    columns = comparison.CSV_COLUMNS + comparison.EXTRA_COLUMNS
    writer.writerow(columns)
    for row in report["rows"]:
        writer.writerow([round_changes(row) if c == "round_changes" else
                         "" if row[c] is None else row[c] for c in columns])
    return buffer.getvalue()


def to_json(report):
    return json.dumps(report, indent=2, sort_keys=True) + "\n"


def to_markdown(report, figures=(), kek=()):
    """The report in Markdown.

    figures: the steps whose forest plot is beside it (forest-c<N>.svg),
    shown first; kek: the kinds of KEK's figures beside it
    (kek_figures.FILES).
    """
    lines = ["# %s" % report["title"], "",
             "Rally tasks: %s. Generated %s by rally-container-bench."
             % (", ".join(t["uuid"] or "?" for t in report["tasks"]),
                report["generated_at"]), ""] + [
        "%s %s." % (title, text) for title, text in made_by(report)] + [""]
    for step in figures:
        lines += ["![Concurrency %s: each platform against native]"
                  "(forest-c%s.svg)" % (step, step), ""]
    for kind in kek:
        lines += ["![%s](%s)" % (kek_figures.CAPTIONS[kind],
                                 kek_figures.FILES[kind]), ""]
    lines.extend(instrument.markdown(report.get("instrument")))
    lines.append("Platforms: " + "; ".join(
        "**%s** (%s)" % (p["label"], ", ".join(
            "%s %s" % (k, v) for k, v in p["environment"]
            if k in ("driver", "runtime", "acceleration", "engine version")))
        for p in report["platforms"]) + ".")
    lines.append("")
    for line in findings(report):
        lines.extend([line, ""])
    for step, kind, metrics, platforms, cells in headline(report):
        if kind == "workload":
            lines.append("## Concurrency %s: workloads vs native "
                         "(difference, CI, verdict against the "
                         "margin %s)" % (step, step_margins(report, step)))
            cell = _workload_cell
        else:
            lines.append("## Concurrency %s: instance phases "
                         "(mean, 95 %% CI)" % step)
            cell = mean_cell
        lines.append("")
        lines.append("| metric | " + " | ".join(platforms) + " |")
        lines.append("|---|" + "---|" * len(platforms))
        for metric in metrics:
            lines.append("| %s (%s) | %s |" % (
                metric["name"], metric["unit"], " | ".join(
                    cell(cells.get((metric["name"], p))) for p in platforms)))
        lines.append("")
        lines.append(_sample_sizes(cells.values()))
        lines.append("")
    lines.extend(_steps_markdown(report))
    lines.extend(_placement_markdown(report))
    for warning in report["warnings"]:
        lines.append("> Warning: %s" % warning)
    lines.append("")
    for note in report.get("notes", []):
        lines += ["Note: %s" % note, ""]
    for key in ("paired", "sequential"):
        if report["methods"].get(key):
            lines.append("Methods, %s: %s." % (key, report["methods"][key]))
    lines.append("Methods: verdicts: %s; margin %s. Mean CI: %s; ratio of "
                 "means CI: %s; test: %s. %s."
                 % (report["methods"]["verdict"], report["methods"]["margin"],
                    report["methods"]["mean_ci"],
                    report["methods"]["ratio_ci"],
                    report["methods"]["p_value"],
                    report["methods"]["min_n"]))
    return "\n".join(lines) + "\n"


def concurrency_cell(step):
    """"1.98 (min 1.91), beside 0 %" of a step's least concurrent test."""
    tests = step["tests"]
    if not tests:
        return "–"
    effective = min(t["effective"] for t in tests.values())
    beside = max(t["beside"] for t in tests.values())
    return "%.2f of %d, beside phases %.0f %%" % (
        effective, step["concurrency"], 100 * beside)


def _steps_markdown(report):
    steps = [s for s in report.get("steps", []) if s["concurrency"] > 1
             or s["slowest_ready"] is not None]
    if not steps:
        return []
    lines = ["## How each step ran", "",
             "| platform | N | synchronised start | tests at once (least "
             "concurrent test) | slowest ready (s) | create skew (s) | "
             "flags |", "|---|---|---|---|---|---|---|"]
    for step in steps:
        lines.append("| %s | %s | %s | %s | %s | %s | %s |" % (
            step["platform"], step["concurrency"],
            "yes" if step["synchronised"] else "no",
            concurrency_cell(step), number(step["slowest_ready"]),
            number(step["create_skew"]),
            "; ".join(step["flags"] + step.get("notes", [])) or "–"))
    lines.append("")
    return lines


def _placement_markdown(report):
    """Where a cloud's instances ran, how they paired, rows per host."""
    if not report.get("placement"):
        return []
    lines = ["## Placement: where the instances ran", "",
             "| platform | N | compute hosts (iterations) | pairing |",
             "|---|---|---|---|"]
    for cell in report["placement"]:
        lines.append("| %s | %s | %s | %s |" % (
            cell["platform"], cell["concurrency"], ", ".join(
                "%s (%d)" % item for item in cell["hosts"].items()) or "–",
            "; ".join(cell["pairing"]) or "–"))
    lines.append("")
    if report.get("host_rows"):
        lines += ["| metric | platform | N | host | pairs | against native "
                  "on that host |", "|---|---|---|---|---|---|"]
        for row in report["host_rows"]:
            lines.append("| %s | %s | %s | %s | %s | %s |" % (
                row["metric"], row["platform"], row["concurrency"],
                row["host"], row["pairs"] or "–", ratio_cell(row)))
        lines.append("")
    return lines


def _environment_table(report):
    present = {key for p in report["platforms"] for key, _ in p["environment"]}
    keys = [title for _, title in comparison.ENVIRONMENT_KEYS
            if title in present]
    return keys, [dict(p["environment"]) for p in report["platforms"]]


def made_by(report):
    """[(title, one line)] of what made the results and the report."""
    found = report.get("made_by") or {}
    return [(title, provenance.line(found[key])) for key, title in (
        ("results", "Results made by"), ("report", "Report computed by"))
        if found.get(key)]


def to_html(report, forest_figures=None, kek=None):
    """The report in HTML; forest_figures, kek: figures made already."""
    if kek is None:
        kek = kek_figures.figures(report)
    loader = jinja2.FileSystemLoader(os.path.dirname(__file__))
    env = jinja2.Environment(loader=loader, autoescape=True,
                             undefined=jinja2.StrictUndefined)
    env.filters.update(number=number, workload_cell=_workload_cell,
                       mean_cell=mean_cell, sample_sizes=_sample_sizes,
                       round_changes=round_changes, two_lines=two_lines,
                       concurrency_cell=concurrency_cell)
    phase_metrics = [m for m in report["metrics"]
                     if m["headline"] and m["kind"] == "phase"]
    workload_metrics = [m for m in report["metrics"]
                        if m["headline"] and m["kind"] == "workload"]
    keys, environments = _environment_table(report)
    return env.get_template("comparison.html").render(
        report=report, headline=headline(report), step_margins=step_margins,
        verdict_text=VERDICT_TEXT, colours=plots.colours(report),
        # one figure of KEK's for a ladder's phases, else one per phase
        phase_figures=[] if "phases" in kek else [
            (m, plots.phase_figure(report, m)) for m in phase_metrics],
        kek=kek, kek_captions=kek_figures.CAPTIONS,
        metric_figures=[(m, plots.metric_figure(report, m))
                        for m in workload_metrics],
        environment_keys=keys, environments=environments,
        made_by=made_by(report),
        findings=findings(report),
        forest=forest.figures(report) if forest_figures is None
        else forest_figures,
        instrument=instrument.lines(report.get("instrument")),
        instrument_about=instrument.about(report["instrument"])
        if report.get("instrument") else "",
        json_dumps=lambda value: json.dumps(value, sort_keys=True))


RENDERERS = {"html": to_html, "csv": to_csv, "json": to_json}


def files(report, directory):
    """{path: text} of every format in directory, and the forest plots."""
    figures = forest.figures(report)
    kek = kek_figures.figures(report)
    found = {os.path.join(directory, FILE_NAMES[kind]): render(report)
             for kind, render in RENDERERS.items() if kind != "html"}
    found[os.path.join(directory, FILE_NAMES["html"])] = to_html(
        report, figures, kek)
    for step, svg in figures:
        found[os.path.join(directory, "forest-c%s.svg" % step)] = svg
    for kind, svg in kek.items():
        found[os.path.join(directory, kek_figures.FILES[kind])] = svg
    found[os.path.join(directory, FILE_NAMES["md"])] = to_markdown(
        report, [step for step, _ in figures], list(kek))
    return found
