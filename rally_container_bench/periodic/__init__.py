"""The periodic job: a run, the gate against a baseline, trends, the
history in a shared Rally database, the decided job.
"""
