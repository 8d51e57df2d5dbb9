"""rally-container-bench: KVM instances vs container instances vs the host.

Rally loads every module below this package (entry point ``rally_plugins``
-> ``path``); plugins live under ``task/``.
"""
