"""rcbench_round: this workload is round r of R of an interleaved run.

Task files that split each platform x step into R rounds (each round runs
every platform once, in a seeded shuffled order) mark every workload with
its round and the seed. Nothing is set up: the comparison report reads it
back from the results to show the round-to-round spread and to flag a
platform whose effect changes sign between rounds. ``looks``: a
sequential run (``rcbench decide``) looks at its cells after each round,
at most this many times: the report's verdicts then take alpha / looks
(report/sequential.py). ``cell``: the task's name of what the workload
measures (a local engine, or a cloud's kvm, nova-lxc, zun, ...), by
which rcbench decide finds the cell's platform in the results.
"""

from rally.task import context


@context.configure(name="rcbench_round", platform="default", order=120)
class Round(context.Context):
    """Round r of R (seed S) of an interleaved run; for the report."""

    CONFIG_SCHEMA = {
        "type": "object", "additionalProperties": False,
        "required": ["round", "rounds"],
        "properties": {"round": {"type": "integer", "minimum": 1},
                       "rounds": {"type": "integer", "minimum": 1},
                       "seed": {"type": "integer"},
                       "looks": {"type": "integer", "minimum": 1},
                       "cell": {"type": "string"}}}

    def setup(self):
        # the scenarios read its seed (a pair at once's sides alternate
        # from it: validity.cpu_pairs.sides)
        self.context["rcbench_round"] = dict(self.config)

    def cleanup(self):
        pass
