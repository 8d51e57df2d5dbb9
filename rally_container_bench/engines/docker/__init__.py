"""Docker: the instance view through dockerd's API (instance.py), the
lifecycle view through the docker CLI (lifecycle.py), dockerd with the OCI
runtimes registered (daemon.py)."""
