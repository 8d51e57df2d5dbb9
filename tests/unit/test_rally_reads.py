"""rally_reads without a database: its config file, the SLA's reading.

Stand-in: the Rally API object (a task's detailed record as Rally's
task.get returns it); the reads against a real database run in
tests/functional/test_periodic.py and test_decide.py.
"""

import unittest

from rally_container_bench.decide import rally_reads


def reads_of(*workload_slas):
    task = {"subtasks": [{"workloads": [
        {"sla_results": {"sla": list(slas)}} for slas in workload_slas]}]}

    class Tasks:
        def get(self, task_id, detailed=False):
            return task

    class Api:
        task = Tasks()

    reads = rally_reads.RallyReads()
    reads._api = Api()
    return reads


class RallyReadsTestCase(unittest.TestCase):

    def test_the_config_file_comes_from_the_command_line(self):
        self.assertEqual("/etc/r.conf", rally_reads.RallyReads.of_argv(
            ["rally", "--config-file", "/etc/r.conf"]).config_file)
        self.assertIsNone(rally_reads.RallyReads.of_argv(
            ["rally"]).config_file)

    def test_sla_passes_only_with_criteria_all_met(self):
        ok, bad = {"success": True}, {"success": False}
        self.assertTrue(reads_of([ok], [ok, ok]).sla_passed("u"))
        self.assertFalse(reads_of([ok], [bad]).sla_passed("u"))
        # as rally task sla-check: no criteria at all is not a pass
        self.assertFalse(reads_of([], []).sla_passed("u"))

    def test_an_unreadable_task_has_status_unknown(self):
        reads = rally_reads.RallyReads()

        class Broken:
            class task:
                @staticmethod
                def get(task_id, detailed=False):
                    raise LookupError(task_id)
        reads._api = Broken()
        self.assertEqual("unknown", reads.status("u"))

    def test_an_export_error_hides_the_secrets(self):
        reads = rally_reads.RallyReads(
            hide=lambda text: text.replace("hunter2", "***"))

        class Failing:
            class task:
                @staticmethod
                def get(task_id, detailed=False):
                    return {"uuid": task_id, "subtasks": []}

                @staticmethod
                def export(**kwargs):
                    raise RuntimeError("login hunter2 refused")
        reads._api = Failing()
        with self.assertRaises(rally_reads.RallyReadError) as caught:
            reads.export(["u"], "html-static", "/nonexistent/x.html")
        self.assertIn("***", str(caught.exception))
        self.assertNotIn("hunter2", str(caught.exception))

    def test_a_killed_tasks_unended_workload_is_left_out(self):
        ended = {"statistics": {"durations": {}}, "data": [{}]}
        task = {"subtasks": [
            {"status": "finished", "workloads": [ended]},
            # the workload a killed Rally was running: no results at all
            {"status": "running", "workloads": [{"statistics": {},
                                                 "data": []}]}]}
        self.assertEqual([{"status": "finished", "workloads": [ended]}],
                         rally_reads.ended_only(task)["subtasks"])
