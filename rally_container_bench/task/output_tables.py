"""The titles of the tables an iteration adds to Rally's results.

Defined once: the scenarios write them (task/scenarios/), the report reads
them (report/results.py), and results written by older versions carry the
same titles. Pure, no Rally import.
"""

ENVIRONMENT = "environment"
START_BARRIER = "start barrier"
VALIDITY = "validity"
# The waits for a quiet host before a disturbed test is measured again.
QUIET_WAIT = "quiet wait"
# A validity row's verdicts where each run of a pair was beside more
# foreign load than the limit, alike for both: the pair was used.
USED_ALIKE = "used: foreign load alike in the pair"
# The guest's boot time read inside at its first login.
GUEST = "guest"
# The lifecycle scenarios' memory chart; before metric records
# (metrics.RECORDS_TITLE) also its rows were read from it, and still are.
FOOTPRINT = "footprint"
# A native twin's workload table: this prefix, then the workload's title.
NATIVE_TWIN_PREFIX = "native twin: "


def workload(tool, label):
    """A test's table: "sysbench cpu", "fio randread"."""
    return "%s %s" % (tool, label)


def split_workload(title):
    """(tool, label) of a workload table's title; label "" if none."""
    tool, _, label = title.partition(" ")
    return tool, label
