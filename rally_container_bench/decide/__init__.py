"""rcbench decide: rounds of a task until every cell has a verdict or the
budget ends; running Rally's rounds and reading them back from outside.
"""
