"""CRI mode: pod sandbox + container through containerd's CRI plugin.

What kubelet asks of a runtime, timed as Kubernetes operators and the
iSulad benchmark time CRI: with crictl (sigs.k8s.io/cri-tools, built by
tools/install-deps.sh with ``go install``), against rcbench's own
containerd. One pod per instance, as for a one-container pod:

  create  crictl runp + crictl create          start   crictl start
  stop    crictl stop --timeout 0              remove  crictl rm +
                                                       crictl stopp +
                                                       crictl rmp
  run     create + start: the same requests (RunPodSandbox,
          CreateContainer, StartContainer) as separate calls

Each call is one crictl process (a Go binary: 20-30 ms more per request
than a direct gRPC client, measured here), as
an operator's crictl is. Pods use the host's network (no CNI is
configured): CRI's pod network needs a CNI plugin that hands out an
address. The sandbox ("pause") image is the busybox image (containerd's
sandbox_image).
"""

import json
import os
import shutil
import threading

from rally_container_bench.core import base
from rally_container_bench.core import labels
from rally_container_bench.core import lifecycle
from rally_container_bench.engines.containerd import ctr as containerd
from rally_container_bench import opts

POD_NAMESPACE = "rcbench"
NODE = 2  # runtime.v1.NamespaceMode.NODE
TIMEOUT = 120
CRICTL = "crictl"
INSTALL_HINT = ("crictl is not installed (tools/install-deps.sh builds it: "
                "go install sigs.k8s.io/cri-tools/cmd/crictl@v1.37.0)")


def pod_config(name):
    """crictl's pod sandbox config (CRI v1's JSON names)."""
    return {"metadata": {"name": name, "uid": name,
                         "namespace": POD_NAMESPACE},
            "labels": labels.label(labels.LIFECYCLE),
            "linux": {"security_context": {
                "namespace_options": {"network": NODE}}}}


def parse_version(text):
    """crictl version's "Key:  value" lines -> {Key: value}."""
    fields = {}
    for line in text.splitlines():
        key, colon, value = line.partition(":")
        if colon:
            fields[key.strip()] = value.strip()
    return fields


def container_config(name, image_tag):
    return {"metadata": {"name": name}, "image": {"image": image_tag},
            "labels": labels.label(labels.LIFECYCLE)}


class CriContainerd(lifecycle.LifecycleDriver):
    name = "cri-containerd"
    run_is_one_call = False

    def __init__(self, image, conf):
        super().__init__(image, conf)
        self._ids = {}  # name -> (pod id, container id)
        self._ids_lock = threading.Lock()

    def _crictl(self, request, *args):
        """crictl's stdout; DriverError naming the CRI request."""
        endpoint = "unix://" + containerd.socket_path(self.conf)
        # --config /dev/null: no /etc/crictl.yaml of the host applies.
        argv = [CRICTL, "--config", os.devnull, "--runtime-endpoint",
                endpoint, "--image-endpoint", endpoint, "--timeout",
                "%ds" % TIMEOUT] + list(args)
        proc = base.run_cli(argv, TIMEOUT + 10)
        if proc.returncode != 0:
            raise base.DriverError("CRI %s failed (crictl %s): %s" % (
                request, args[0], proc.stderr.strip()[-1500:]))
        return proc.stdout

    def _config_paths(self, name):
        """(pod, container) config files of an instance, for crictl."""
        directory = opts.cache_path(self.conf, "crictl")
        return tuple(os.path.join(directory, "%s.%s.json" % (name, kind))
                     for kind in ("pod", "container"))

    def _write_configs(self, name):
        """The instance's config files, written; their paths.

        Written by create: two small files, microseconds beside a crictl
        process's start.
        """
        pod, container = self._config_paths(name)
        os.makedirs(os.path.dirname(pod), exist_ok=True)
        with open(pod, "w") as f:
            json.dump(pod_config(name), f)
        with open(container, "w") as f:
            json.dump(container_config(name, self.image.tag), f)
        return pod, container

    def prepare(self):
        self._crictl("Version", "version")
        listed = self._crictl("ListImages", "images", "--quiet",
                              self.image.tag)
        if not listed.strip():
            # CRI's images live in containerd's namespace k8s.io.
            lifecycle.checked([
                "ctr", "--address", containerd.socket_path(self.conf),
                "--namespace", "k8s.io", "images", "import",
                self.image.archive])

    def create(self, name):
        pod_file, container_file = self._write_configs(name)
        pod = self._crictl("RunPodSandbox", "runp", pod_file).strip()
        with self._ids_lock:
            self._ids[name] = (pod, None)
        container = self._crictl("CreateContainer", "create", pod,
                                 container_file, pod_file).strip()
        with self._ids_lock:
            self._ids[name] = (pod, container)

    def _container(self, name):
        with self._ids_lock:
            pod_id, container_id = self._ids.get(name, (None, None))
        if container_id is None:
            raise base.DriverError("no CRI container %s here" % name)
        return pod_id, container_id

    def start(self, name):
        self._crictl("StartContainer", "start", self._container(name)[1])

    def stop(self, name):
        self._crictl("StopContainer", "stop", "--timeout", "0",
                     self._container(name)[1])

    def remove(self, name):
        pod_id, container_id = self._container(name)
        self._crictl("RemoveContainer", "rm", container_id)
        self._remove_pod(pod_id)
        self._forget(name)

    def _remove_pod(self, pod_id):
        self._crictl("StopPodSandbox", "stopp", pod_id)
        self._crictl("RemovePodSandbox", "rmp", pod_id)

    def _forget(self, name):
        with self._ids_lock:
            self._ids.pop(name, None)
        for path in self._config_paths(name):
            if os.path.exists(path):
                os.remove(path)

    def _pods(self):
        """{name: pod id} of ours, by the label and by the older one."""
        pods = {}
        for key, value in [(labels.KEY, labels.LIFECYCLE)] + [
                (key, "1") for key in labels.OLD_KEYS]:
            listed = json.loads(self._crictl(
                "ListPodSandbox", "pods", "--label",
                "%s=%s" % (key, value), "--output", "json"))
            pods.update((pod["metadata"]["name"], pod["id"])
                        for pod in listed.get("items") or [])
        return pods

    def discard(self, name):
        pod_id = self._pods().get(name)
        if pod_id is not None:
            self._remove_pod(pod_id)  # removes its containers too
        self._forget(name)

    def list_ours(self):
        return sorted(self._pods())

    def workload_pid(self, name):
        status = json.loads(self._crictl(
            "ContainerStatus", "inspect", "--output", "json",
            self._container(name)[1]))
        return int(status["info"]["pid"])

    def daemon_pids(self):
        pid = lifecycle.pid_from_file(containerd.daemon_pid_file(self.conf))
        return [pid] if pid else []

    def describe(self):
        version = parse_version(self._crictl("Version", "version"))
        proc = base.run_cli([CRICTL, "--version"], 30)
        client = proc.stdout.strip().replace(" version ", " ") \
            if proc.returncode == 0 else "crictl (no version)"
        return dict(super().describe(), runtime="runc",
                    engine_version="%s %s, CRI %s, %s" % (
                        version.get("RuntimeName"),
                        version.get("RuntimeVersion"),
                        version.get("RuntimeApiVersion"), client),
                    network="host (CRI without CNI)")

    @classmethod
    def check(cls, conf):
        usable, why = containerd.Containerd.check(conf)
        if not usable:
            return usable, why
        if shutil.which(CRICTL) is None:
            return False, INSTALL_HINT
        return True, "containerd's CRI plugin through crictl (%s)" % \
            containerd.socket_path(conf)
