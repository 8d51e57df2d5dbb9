"""dockerd, where no init system starts it (rcbench engines start docker).

Started with the host's daemon.json plus the OCI runtimes of
engines.oci.runtimes registered, so docker-<runtime> engines find them.
"""

import json
import os
import signal

from rally_container_bench.core import base
from rally_container_bench.core import daemon
from rally_container_bench.engines.oci import runtimes
from rally_container_bench import opts


def _docker_answers(conf):
    def answers():
        import docker
        try:
            return docker.DockerClient(base_url=conf.docker_url,
                                       timeout=5).ping()
        except Exception:
            return False
    return answers


def _dockerd_config(conf):
    """The dockerd config rcbench starts dockerd with (host-wide state)."""
    return os.path.join(opts.resolved_dir(conf.daemon_state_dir),
                        "dockerd.json")


def _write_dockerd_config(conf, host_config="/etc/docker/daemon.json"):
    """The host's daemon.json plus our runtimes (engines.oci.runtimes)."""
    def write():
        try:
            with open(host_config) as f:
                text = f.read()
        except FileNotFoundError:
            text = None
        try:
            config = runtimes.dockerd_config(conf, text)
        except ValueError as e:
            raise base.DriverError(
                "%s is not valid JSON (%s): dockerd would refuse it too; "
                "fix it before rcbench engines start docker"
                % (host_config, e))
        path = _dockerd_config(conf)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            json.dump(config, f, indent=1)
    return write


def daemons(conf):
    """[dockerd], with its pid files host-wide."""
    docker_socket = conf.docker_url.replace("unix://", "", 1)
    docker_pid = os.path.join(os.path.dirname(docker_socket), "docker.pid")
    return [daemon.Daemon("dockerd", [
        "dockerd", "--host", conf.docker_url, "--pidfile", docker_pid,
        "--config-file", _dockerd_config(conf),
    ], conf.daemon_state_dir, _docker_answers(conf),
        prepare=_write_dockerd_config(conf),
        own_pidfiles=(docker_pid,
                      "/var/run/docker/containerd/containerd.pid"),
        # into a file: "goroutine stacks written to PATH" in its log
        dump_signal=signal.SIGUSR1)]
