"""Podman: the instance view (instance.py, the podman CLI) and the
lifecycle view (lifecycle.py), both with a runtime from engines/oci."""
