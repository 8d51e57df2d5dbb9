"""The one reader of a process's /proc/PID/stat line, this host's or a
compute host's (its text read over SSH): pure.

The command name, field 2, is in parentheses and may itself hold spaces
and parentheses: the fields are counted after its last closing
parenthesis, so ``fields(text)[0]`` is field 3, the state.
"""

# indexes into fields() (field number - 3, as proc(5) numbers them)
STATE, PPID, UTIME, CSTIME, STARTTIME = 0, 1, 11, 14, 19


def fields(text):
    """The fields after the command name; ValueError on other text."""
    head, sep, rest = text.rpartition(")")
    if not sep:
        raise ValueError("not a /proc/PID/stat line: %r" % text[:80])
    return rest.split()


def state(text):
    """R, S, D, Z, ...: Z (a zombie) and X (dead) are gone."""
    return fields(text)[STATE]


def ppid(text):
    return int(fields(text)[PPID])


def cpu_ticks(text):
    """CPU ticks of the process and its reaped children (utime..cstime)."""
    return sum(int(v) for v in fields(text)[UTIME:CSTIME + 1])


def start_ticks(text):
    """When the process started, in clock ticks after boot."""
    return int(fields(text)[STARTTIME])


def read_stat(pid, task=None):
    """This host's /proc/PID/stat (a thread's with task), or None if gone."""
    path = "/proc/%d/stat" % pid if task is None else \
        "/proc/%s/task/%s/stat" % (pid, task)
    try:
        with open(path) as f:
            return f.read()
    except OSError:
        return None
