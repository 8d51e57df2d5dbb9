"""The kinds of metric, their equivalence margins, and a cell's pairing.

A margin is given per kind (cpu, memory, disk, ...); a cell whose pairs
ran at once (validity.cpu_pairs) may have one of its own ("cpu at once"):
its pairs' floor is another than those in sequence; and so may the
cells of one concurrency step ("cpu at 1"): one instance beside its
twin pairs steadier than two that share the host's CPUs (rcbench
decide chooses each from that step's own pairs).
"""

import fnmatch

from rally_container_bench.report import equivalence
from rally_container_bench.report import results
from rally_container_bench.report import sequential

# Kinds of metric a margin can be given for (margins={kind: fraction}).
KINDS = (("cpu", "sysbench.cpu.*"), ("memory", "sysbench.memory*"),
         ("disk", "sysbench.fileio*"), ("disk", "fio.*"),
         ("network", "iperf3.*"), ("network", "http.*"),
         ("footprint", "footprint.*"))


def kind_of(metric):
    """cpu, memory, disk, network, footprint or phase."""
    for kind, pattern in KINDS:
        if fnmatch.fnmatchcase(metric, pattern):
            return kind
    return "phase"


def margin_of(metric, margins, mode=None, step=None):
    """The equivalence margin of a metric: its kind's, else the default.

    A cell paired at once (mode results.AT_ONCE) takes its kind's margin
    at once ("cpu at once") where one is given: its pairs' floor is
    another than those in sequence; a cell of step its kind's margin at
    that step ("cpu at 1") where one is given.
    """
    margins = margins or {}
    kind = kind_of(metric)
    key = margin_key(kind, mode, step)
    if key in margins:
        return margins[key]
    return margins.get(kind,
                       margins.get("default", equivalence.DEFAULT_MARGIN))


def margin_key(kind, mode, step=None):
    """The margins' key of a kind's cells: paired in mode, or at step.

    "cpu at once" for mode results.AT_ONCE, else "cpu at 1" for step 1,
    else the kind's own ("cpu").
    """
    if mode == results.AT_ONCE:
        return "%s %s" % (kind, mode)
    return kind if step is None else "%s at %d" % (kind, step)


def kind_of_key(key):
    """The kind of a margins' key ("cpu at 1", "cpu at once": cpu)."""
    return key.split(" ")[0]


def is_at_once_key(key):
    """Whether a margins' key is of cells paired at once ("cpu at once")."""
    return key == margin_key(kind_of_key(key), results.AT_ONCE)


def step_of_key(key):
    """The step of a margins' key: "cpu at 1": 1; "cpu at once": None."""
    words = key.split(" ")
    if len(words) == 3 and words[1] == "at" and words[2].isdigit():
        return int(words[2])
    return None


def mode_of(collected, key):
    """How a cell's kept pairs were made: at once, in sequence, or both."""
    modes = collected.modes.get(key)
    if not modes:
        return None
    if len(modes) == 1:
        return next(iter(modes))
    return "mixed: " + ", ".join("%s %d" % m for m in sorted(modes.items()))


def equivalence_methods(margins, looks=None, floors=None, steps=()):
    """The methods' words, each kind's margin in them.

    floors: {kind: the A/A's pair SD} of the kinds whose floor is a
    device's (fileio: the disk's), said beside their margin. steps: the
    report's; "margin_at" gives each step's own margins ({"1": text}),
    what a heading of that step says (KEK's campaign listed 16 margins
    of four steps in each).
    """
    margins = dict(margins or {})
    floors = floors or {}
    default = margins.pop("default", equivalence.DEFAULT_MARGIN)
    everywhere = _margins_text(default, margins, sorted(margins), floors)
    at_step = {str(step): _margins_text(default, margins, _keys_at(
        margins, step), floors, step) for step in steps}
    return {
        "margin": everywhere,
        "margin_at": at_step,
        "sequential": sequential.METHOD % (looks, equivalence.ALPHA / looks)
        if looks else None,
        "paired": "where a platform's tests were paired with native twins "
                  "(the same test on this host beside it): the mean of "
                  "the within-pair log ratios, one-sample t, and the pairs "
                  "that would settle it",
        "verdict": "ratio of geometric means with Welch's t on the logs; "
                   "equivalent: two one-sided tests (TOST) within the "
                   "margin at alpha %.3g each (the 95 %% CI inside it); "
                   "worse / better: significant (two-sided, alpha %.2g) and "
                   "the estimate beyond the margin; otherwise inconclusive, "
                   "with the iterations per platform that would settle it "
                   "at the observed spread (power %.1f)"
                   % (equivalence.EQUIVALENCE_ALPHA, equivalence.ALPHA,
                      equivalence.POWER)}


def _keys_at(margins, step):
    """The margins' keys that hold at a step: its own, else its kind's."""
    kinds = sorted({kind_of_key(key) for key in margins})
    keys = []
    for kind in kinds:
        own = margin_key(kind, None, step)
        if own in margins:
            keys.append(own)
        elif kind in margins:
            keys.append(kind)
        at_once = margin_key(kind, results.AT_ONCE)
        if at_once in margins:
            keys.append(at_once)
    return keys


def _margins_text(default, margins, keys, floors, step=None):
    """"+-2 % (cpu +-1 %, disk +-14 %, disk floor ...)" of the keys.

    At a step, its own keys are named by their kind ("cpu", not "cpu at
    1"). A device's floor is said once, after its kind's last margin.
    """
    said = []
    for at, key in enumerate(keys):
        kind = kind_of_key(key)
        name = kind if step is not None and step_of_key(key) == step \
            else key
        last = at + 1 == len(keys) or kind_of_key(keys[at + 1]) != kind
        floor = floors.get(kind) if last else None
        said.append("%s +-%g %%%s" % (
            name, 100 * margins[key], "" if floor is None else
            ", disk floor %.2g %%, measured (A/A pair SD)" % (100 * floor)))
    text = "+-%g %%" % (100 * default)
    return text + " (%s)" % ", ".join(said) if said else text
