"""KEK's conclusions, checked against a comparison (rcbench kek).

Every conclusion of KEK's HEPiX 2015 talk (the seed this project
re-enacts), in its words, with the cells that test it and the answer the
measured ones give:

- **agrees**: at every step it covers, the measured 95 % CI of the
  change (platform against its native twin) lies within the range KEK
  states, or the cell is decided "worse" ("better") where KEK's range is
  all below (above) zero and the CI overlaps it; for a phase (a platform
  against another, no native) the two means' CIs are apart in KEK's
  direction;
- **disagrees**: at some step the CI lies wholly outside KEK's range (or
  the phase's CIs are apart the other way);
- **not settled**: a CI overlaps KEK's range and beyond it, with no
  decided change in KEK's direction ("equivalent" at a margin wider than
  KEK's range is no answer: fileio's at +-81.5 % "agreed" with "15 %
  worse" until 2026-12-06); or the phase's CIs overlap;
- **cannot be checked here**, and why: no such cell or step in the
  results, or KVM's claims where the VM ran under emulation (QEMU TCG),
  with the command that checks it on a KVM host.

"Docker" is any platform whose containers Docker runs (docker, nova-docker,
Zun); "KVM" any VM platform (its acceleration says if it was KVM). Pure:
reads comparison.json.
"""

import collections
import re

from rally_container_bench.report import results

AGREES, DISAGREES, UNSETTLED, UNCHECKED = (
    "agrees", "disagrees", "not settled", "cannot be checked here")
DOCKER_DRIVERS = ("docker", "nova-docker", "zun")
CHECK_ELSEWHERE = (
    "on a KVM host: rcbench decide --task-args-file "
    "tasks/args/kek2015.yaml --out DIR (locally) or tasks/kvm_vs_docker."
    "yaml with --env (a cloud), then rcbench kek DIR/comparison.json")

# steps: "low" (1 and 2 at once), "high" (16 and more), "above2",
# "upto16", "single" (1) or "all"
# test: a regular expression of the metrics' names (its headline one);
# low, high: KEK's range of the change (against: of one platform's phase
# against the other's mean)
Claim = collections.namedtuple(
    "Claim", "words who test steps low high against", defaults=(None,))

CLAIMS = (
    Claim("At high concurrency KVM is around 20% better (build)", "vm",
          "build", "high", -0.30, -0.10, against="docker"),
    Claim("At low concurrency KVM is 2-7% worse than native (cpu)", "vm",
          r"sysbench\.cpu", "low", -0.07, -0.02),
    Claim("If No. of concurrent requests > 2, Docker is 2% worse than "
          "native (cpu)", "docker", r"sysbench\.cpu", "above2", -0.03,
          -0.01),
    Claim("At low concurrency KVM is 3-10% worse than native (memory)",
          "vm", r"sysbench\.memory", "low", -0.10, -0.03),
    Claim("Docker is 2-5% worse than native (concurrent requests: 1-16) "
          "(memory)", "docker", r"sysbench\.memory", "upto16", -0.05, -0.02),
    Claim("At low concurrency KVM sequential read is 60-70% worse than "
          "native", "vm", r"sysbench\.fileio\.seqrd", "low", -0.70, -0.60),
    Claim("KVM random read is several % worse than native", "vm",
          r"sysbench\.fileio\.rndrd", "all", -0.10, -0.02),
    Claim("Docker achieves native performance (fileio read)", "docker",
          r"sysbench\.fileio\.(seq|rnd)rd", "all", -0.02, 0.02),
    Claim("At low concurrency KVM is 70-80% worse than native (fileio "
          "write)", "vm", r"sysbench\.fileio\.(seq|rnd)wr", "low", -0.80,
          -0.70),
    Claim("In the case of single request, Docker sequential write is 15% "
          "worse than native", "docker", r"sysbench\.fileio\.seqwr", "single",
          -0.20, -0.10),
    Claim("Beside that Docker achieves almost native performance (fileio "
          "write)", "docker", r"sysbench\.fileio\.rndwr", "all", -0.05, 0.02),
    Claim("Docker instance becomes ready faster than KVM (building + "
          "networking)", "docker", r"build\+network", "all", None, -0.0,
          against="vm"),
    Claim("CPU and memory performance: Native > Docker > KVM", "docker",
          r"sysbench\.(cpu|memory)", "all", None, None,
          against="vm"),
)


def _in_steps(kind, step):
    return {"low": step <= 2, "high": step >= 16, "above2": step > 2,
            "upto16": step <= 16, "single": step == 1}.get(kind, True)


def _matches(pattern, metric):
    """Whether metric is of the test pattern (a regular expression)."""
    return re.fullmatch(pattern + r"(\..*)?", metric) is not None


def roles(report):
    """{label: "vm" | "docker" | None, "kvm": [labels run under KVM]}."""
    found = {}
    for platform in report.get("platforms", []):
        if platform["driver"] == "native" or platform["label"].startswith(
                "native"):
            continue
        if platform.get("acceleration") in results.VM_ACCELERATIONS:
            found[platform["label"]] = "vm"
        elif platform["driver"] in DOCKER_DRIVERS or (
                platform["driver"] == "nova"
                and platform.get("runtime") == "docker"):
            found[platform["label"]] = "docker"
    return found


def _accelerations(report):
    return {p["label"]: p.get("acceleration")
            for p in report.get("platforms", [])}


def _headline(report):
    return {m["name"] for m in report.get("metrics", []) if m["headline"]}


def _cells(report, claim, role):
    """The rows of the claim's test for platforms of role, in its steps."""
    who = roles(report)
    headline = _headline(report)
    return [r for r in report.get("rows", [])
            if who.get(r["platform"]) == role
            and r["metric"] in headline and _matches(claim.test, r["metric"])
            and _in_steps(claim.steps, r["concurrency"])]


def _answer_vs_native(rows, low, high):
    answers, said = [], []
    for r in rows:
        where = "%s %s at %d" % (r["platform"], _short(r["metric"]),
                                 r["concurrency"])
        if r["change_ci_low"] is None:
            answers.append(UNSETTLED)
            said.append("%s: too few pairs for an interval" % where)
            continue
        a, b = r["change_ci_low"], r["change_ci_high"]
        text = "%s %+.1f %% [%+.1f, %+.1f] %s" % (
            where, 100 * r["change"], 100 * a, 100 * b,
            r["verdict"] or "undecided")
        said.append(text)
        if b < low or a > high:
            answers.append(DISAGREES)
        elif low <= a and b <= high or _decided_toward(r["verdict"], low,
                                                       high):
            answers.append(AGREES)
        else:
            answers.append(UNSETTLED)
    return answers, said


def _decided_toward(verdict, low, high):
    """A decided change on the side of zero all of KEK's range is on."""
    return verdict == "worse" and high < 0 or verdict == "better" and low > 0


def _short(metric):
    """sysbench.memory.read.mib_per_s -> memory.read."""
    return ".".join(metric.split(".")[1:-1]) or metric


def _phase_apart(mine, theirs):
    """-1: mine faster (CIs apart), 1: slower, 0: overlapping."""
    if mine["ci_high"] is None or theirs["ci_low"] is None:
        return 0
    if mine["ci_high"] < theirs["ci_low"]:
        return -1
    if mine["ci_low"] > theirs["ci_high"]:
        return 1
    return 0


def _answer_phase(report, claim):
    """A phase of claim.who against claim.against's, step by step."""
    mine = _cells(report, claim, claim.who)
    theirs = collections.defaultdict(list)
    for row in _cells(report, claim, claim.against):
        theirs[row["concurrency"]].append(row)
    answers, said = [], []
    for row in mine:
        for other in theirs.get(row["concurrency"], []):
            apart = _phase_apart(row, other)
            change = row["mean"] / other["mean"] - 1 if other["mean"] else 0
            said.append("%s %s %.2f s vs %s %.2f s at %d (%+.0f %%)" % (
                row["platform"], claim.test, row["mean"], other["platform"],
                other["mean"], row["concurrency"], 100 * change))
            if apart == 0:
                answers.append(UNSETTLED)
            elif apart > 0:
                answers.append(DISAGREES)
            elif claim.low is not None and not (
                    claim.low <= change <= claim.high):
                answers.append(DISAGREES)
            else:
                answers.append(AGREES)
    return answers, said


def _answer_order(report, claim):
    """Native > Docker > KVM: Docker below native, KVM below Docker."""
    docker = _cells(report, claim, "docker")
    vms = collections.defaultdict(list)
    for row in _cells(report, claim, "vm"):
        vms[(row["metric"], row["concurrency"])].append(row)
    answers, said = [], []
    for row in docker:
        if row["change_ci_high"] is None:
            continue
        below_native = row["change_ci_high"] < 0
        for vm in vms.get((row["metric"], row["concurrency"]), []):
            if vm["change_ci_low"] is None:
                continue
            above_vm = row["change_ci_low"] > vm["change_ci_high"]
            said.append("%s at %d: native > %s %s > %s %s" % (
                row["metric"].split(".")[1], row["concurrency"],
                row["platform"], "yes" if below_native else "no",
                vm["platform"], "yes" if above_vm else "no"))
            answers.append(AGREES if below_native and above_vm
                           else DISAGREES if row["change_ci_low"] > 0
                           or row["change_ci_high"] < vm["change_ci_low"]
                           else UNSETTLED)
    return answers, said


def check_claim(report, claim):
    """{"words", "answer", "cells": [what was measured], "why"}."""
    accel = _accelerations(report)
    mine = _cells(report, claim, claim.who)
    theirs = _cells(report, claim, claim.against) if claim.against else []
    missing = [role for role, rows in ((claim.who, mine),
                                       (claim.against, theirs))
               if role and not rows]
    if missing:
        return {"words": claim.words, "answer": UNCHECKED, "cells": [],
                "why": "no %s cell of %s at %s in these results" % (
                    " or ".join(missing), _test_said(claim.test),
                    _steps_said(claim.steps))}
    involved = mine + theirs
    who = roles(report)
    vms = {r["platform"] for r in involved if who.get(r["platform"]) == "vm"}
    emulated = sorted(v for v in vms if accel.get(v) != "kvm")
    if "vm" in (claim.who, claim.against) and emulated:
        return {"words": claim.words, "answer": UNCHECKED, "cells": [],
                "why": "KEK's VMs ran under KVM; here %s ran under %s "
                       "(emulation): check it %s" % (
                           ", ".join(emulated), ", ".join(sorted(
                               {accel.get(v) or "?" for v in emulated})),
                           CHECK_ELSEWHERE)}
    if claim.against and claim.test.startswith("sysbench"):
        answers, said = _answer_order(report, claim)
    elif claim.against:
        answers, said = _answer_phase(report, claim)
    else:
        answers, said = _answer_vs_native(involved, claim.low, claim.high)
    if not answers:
        return {"words": claim.words, "answer": UNCHECKED, "cells": said,
                "why": "no cell with an interval yet"}
    answer = DISAGREES if DISAGREES in answers else (
        AGREES if set(answers) == {AGREES} else UNSETTLED)
    return {"words": claim.words, "answer": answer, "cells": said,
            "why": None}


def _test_said(pattern):
    """sysbench\\.fileio\\.(seq|rnd)rd -> sysbench.fileio.seqrd or rndrd."""
    return re.sub(r"\((\w+)\|(\w+)\)(\w*)", r"\1\3 or \2\3",
                  pattern.replace("\\", ""))


def _steps_said(kind):
    return {"low": "1-2 at once", "high": "16 or more at once",
            "above2": "more than 2 at once", "upto16": "1-16 at once",
            "single": "1 at once"}.get(kind, "any concurrency")


def check(report):
    return [check_claim(report, claim) for claim in CLAIMS]


RULE = ("An answer *agrees* where, at every step it covers, the measured "
        "95 % CI of the change lies within the range KEK states, or the "
        "cell is decided worse (better) where KEK's range is all below "
        "(above) zero and the CI overlaps it (a phase: the two means' CIs "
        "apart in KEK's direction); *disagrees* where at a step the CI "
        "lies wholly outside; *not settled* where it overlaps the range "
        "and beyond with no decided change in KEK's direction.")


def table(found):
    """The check as Markdown table lines."""
    lines = ["| KEK said | answer | measured |", "|---|---|---|"]
    for item in found:
        measured = "; ".join(item["cells"]) or item["why"] or ""
        if item["why"] and item["cells"]:
            measured += " (%s)" % item["why"]
        lines.append("| %s | **%s** | %s |" % (
            item["words"], item["answer"], measured.replace("|", "/")))
    return lines


def markdown(found, source):
    return "\n".join(["# KEK's conclusions, checked", "",
                      "KEK's HEPiX 2015 talk against %s. %s" % (source, RULE),
                      ""] + table(found)) + "\n"
