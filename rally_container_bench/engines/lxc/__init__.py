"""LXC: one container config (config.py) for the instance view
(instance.py) and the lifecycle view (lifecycle.py)."""
