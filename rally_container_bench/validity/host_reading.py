"""A compute host's Reading: the shell that reads it there, and its parser.

Pure but for the script's text: the same sections serve every reading
of a compute host (ComputeHost.read and a window's owned commands).
"""

from rally_container_bench.validity import cpu
from rally_container_bench.validity import cpu_pairs
from rally_container_bench.validity import hosts

SCRIPT = r"""
mode=$1; key=$2; done_file=$3; stat_at=$4; sources=$5; shift 5
stat() {
    echo "== stat"; grep -E '^(cpu[0-9]*|procs_running) ' /proc/stat
    echo "== cpus"; awk '/^Cpus_allowed_list/ { print $2 }' /proc/$$/status
}
reading() {
    echo "== reading"
    [ "$1" = last ] || stat
    every=
    for s in $sources; do
        case $s in
        pid:*|kernel-threads) every=1 ;;
        *) echo "== usage $s"; cat "$s" 2>/dev/null ;;
        esac
    done
    echo "== own"
    for p in $(grep -lzx "RCBENCH_OWN=$key" /proc/[0-9]*/environ 2>/dev/null)
    do
        cat "${p%/environ}/stat" 2>/dev/null
    done
    echo "== finished"
    awk '{ s += $1 } END { print s + 0 }' "$done_file" 2>/dev/null
    if [ -n "$every" ]; then
        echo "== processes"; cat /proc/[0-9]*/stat 2>/dev/null
    fi
    [ "$1" != last ] || stat
    echo "== end"
}
own_done() {
    IFS=' '
    read -r s < /proc/$$/stat
    set -- ${s##*) }
    echo $(( ${12} + ${13} + ${14} + ${15} )) >> "$done_file"
}
IFS='
'
if [ "$mode" != window ]; then
    # sweep-read: first, the files of runs that ended a day ago or more
    [ "$mode" = read ] || find "${done_file%/*}" -maxdepth 1 -type f \
        -name 'rcbench-own-*' -mtime +0 -delete 2>/dev/null
    reading "$stat_at"
    own_done
    exit 0
fi
reading last >&2
"$@"
rc=$?
reading first >&2
own_done
exit $rc
"""


def split_readings(text):
    """(text without its Readings, [each hosts.Reading's text])."""
    rest, readings, inside = [], [], None
    for line in text.splitlines():
        if line == "== reading":
            inside = []
            continue
        if inside is None:
            rest.append(line)
            continue
        inside.append(line)
        if line == "== end":
            readings.append("\n".join(inside))
            inside = None
    if inside is not None:
        readings.append("\n".join(inside))  # cut short: parse says so
    return "\n".join(rest) + ("\n" if rest else ""), readings


def parse_sections(text):
    """{section: text} of a command's "== name" sections."""
    found, name, lines = {}, None, []
    for line in text.splitlines():
        if line.startswith("== "):
            if name is not None:
                found[name] = "\n".join(lines)
            name, lines = line[3:], []
        else:
            lines.append(line)
    if name is not None:
        found[name] = "\n".join(lines)
    return found


def parse_reading(text, at, host, sources):
    """A hosts.Reading from the text _SCRIPT wrote. Pure.

    sources: {instance name: source}.
    """
    sections = parse_sections(text)
    if "end" not in sections:
        raise ValueError("the reading of %s ended early: %r"
                         % (host, text[-300:]))
    stat = sections.get("stat", "")
    try:
        cpu_times, busy, running = cpu.parse_stat(stat)
    except ValueError as e:
        # what came instead (an error of the host's shell, or nothing)
        raise ValueError("%s (its stat section: %r)" % (e, stat[-200:]))
    own = sum(ticks for _, ticks in cpu.parse_processes(
        sections.get("own", "")).values())
    own += sum(int(line) for line in sections.get("finished", "").split()
               if line.isdigit())
    processes = cpu.parse_processes(sections.get("processes", ""))
    instances = {}
    for name, source in sources.items():
        seconds = hosts.seconds_of(source,
                                   lambda path: sections["usage " + path],
                                   lambda: processes)
        if seconds is not None:
            instances[name] = seconds
    try:
        # the CPUs of this machine the host has (its shell's), where lxcfs
        # numbers its /proc/stat's from 0
        cpu_ids = frozenset(cpu_pairs.parse_cpu_list(sections.get("cpus",
                                                                  "")))
    except ValueError:
        cpu_ids = frozenset()
    return hosts.Reading(at, host, cpu_times, running, busy / cpu.TICKS,
                         own / cpu.TICKS, instances,
                         cpu_ids=cpu_ids or None)
