"""CRI mode: pod sandbox + container through containerd's CRI plugin.

What kubelet asks of a runtime, spoken directly over CRI v1 gRPC (see
cri_api for why not crictl), against rcbench's own containerd. One pod per
instance, as for a one-container pod:

  create  RunPodSandbox + CreateContainer      start   StartContainer
  stop    StopContainer (timeout 0)            remove  RemoveContainer +
                                                       StopPodSandbox +
                                                       RemovePodSandbox
  run     RunPodSandbox + CreateContainer + StartContainer (crictl run's
          three requests: not one call)

Pods use the host's network (no CNI is configured): CRI's pod network
needs a CNI plugin that hands out an address. The sandbox ("pause")
image is the busybox image (containerd's sandbox_image).
"""

import json
import shutil
import threading

from rally_container_bench.core import base
from rally_container_bench.core import labels
from rally_container_bench.core import lifecycle
from rally_container_bench.engines.containerd import cri_api
from rally_container_bench.engines.containerd import ctr as containerd

POD_NAMESPACE = "rcbench"
NODE = 2  # runtime.v1.NamespaceMode.NODE
TIMEOUT = 120


class CriContainerd(lifecycle.LifecycleDriver):
    name = "cri-containerd"
    run_is_one_call = False

    def __init__(self, image, conf):
        super().__init__(image, conf)
        self._local = threading.local()
        self._ids = {}  # name -> (pod id, container id)
        self._ids_lock = threading.Lock()

    def _api(self):
        if getattr(self._local, "api", None) is None:
            import grpc
            pb, stubs = cri_api.modules(self.conf.image_cache_dir)
            channel = grpc.insecure_channel(
                "unix://" + containerd.socket_path(self.conf))
            self._local.api = (pb, stubs.RuntimeServiceStub(channel),
                               stubs.ImageServiceStub(channel))
        return self._local.api

    def _call(self, what, method, request):
        import grpc
        try:
            return method(request, timeout=TIMEOUT)
        except grpc.RpcError as e:
            raise base.DriverError("CRI %s failed: %s" % (what, e.details()))

    def prepare(self):
        pb, runtime, images = self._api()
        self._call("Version", runtime.Version, pb.VersionRequest())
        status = self._call("ImageStatus", images.ImageStatus,
                            pb.ImageStatusRequest(
                                image=pb.ImageSpec(image=self.image.tag)))
        if not status.image.id:
            # CRI's images live in containerd's namespace k8s.io.
            lifecycle.checked([
                "ctr", "--address", containerd.socket_path(self.conf),
                "--namespace", "k8s.io", "images", "import",
                self.image.archive])

    def _pod_config(self, name):
        pb = self._api()[0]
        return pb.PodSandboxConfig(
            metadata=pb.PodSandboxMetadata(name=name, uid=name,
                                           namespace=POD_NAMESPACE),
            labels=labels.label(labels.LIFECYCLE),
            linux=pb.LinuxPodSandboxConfig(
                security_context=pb.LinuxSandboxSecurityContext(
                    namespace_options=pb.NamespaceOption(network=NODE))))

    def create(self, name):
        pb, runtime, _ = self._api()
        pod_config = self._pod_config(name)
        pod = self._call("RunPodSandbox", runtime.RunPodSandbox,
                         pb.RunPodSandboxRequest(config=pod_config))
        with self._ids_lock:
            self._ids[name] = (pod.pod_sandbox_id, None)
        container = self._call(
            "CreateContainer", runtime.CreateContainer,
            pb.CreateContainerRequest(
                pod_sandbox_id=pod.pod_sandbox_id, sandbox_config=pod_config,
                config=pb.ContainerConfig(
                    metadata=pb.ContainerMetadata(name=name),
                    image=pb.ImageSpec(image=self.image.tag),
                    labels=labels.label(labels.LIFECYCLE))))
        with self._ids_lock:
            self._ids[name] = (pod.pod_sandbox_id, container.container_id)

    def _container(self, name):
        with self._ids_lock:
            pod_id, container_id = self._ids.get(name, (None, None))
        if container_id is None:
            raise base.DriverError("no CRI container %s here" % name)
        return pod_id, container_id

    def start(self, name):
        pb, runtime, _ = self._api()
        self._call("StartContainer", runtime.StartContainer,
                   pb.StartContainerRequest(
                       container_id=self._container(name)[1]))

    def stop(self, name):
        pb, runtime, _ = self._api()
        self._call("StopContainer", runtime.StopContainer,
                   pb.StopContainerRequest(
                       container_id=self._container(name)[1], timeout=0))

    def remove(self, name):
        pb, runtime, _ = self._api()
        pod_id, container_id = self._container(name)
        self._call("RemoveContainer", runtime.RemoveContainer,
                   pb.RemoveContainerRequest(container_id=container_id))
        self._remove_pod(pod_id)
        with self._ids_lock:
            self._ids.pop(name, None)

    def _remove_pod(self, pod_id):
        pb, runtime, _ = self._api()
        self._call("StopPodSandbox", runtime.StopPodSandbox,
                   pb.StopPodSandboxRequest(pod_sandbox_id=pod_id))
        self._call("RemovePodSandbox", runtime.RemovePodSandbox,
                   pb.RemovePodSandboxRequest(pod_sandbox_id=pod_id))

    def _pods(self):
        """{name: pod id} of ours, by the label and by the older one."""
        pb, runtime, _ = self._api()
        pods = {}
        for selector in [labels.label(labels.LIFECYCLE)] + [
                {key: "1"} for key in labels.OLD_KEYS]:
            listed = self._call("ListPodSandbox", runtime.ListPodSandbox,
                                pb.ListPodSandboxRequest(
                                    filter=pb.PodSandboxFilter(
                                        label_selector=selector)))
            pods.update((pod.metadata.name, pod.id) for pod in listed.items)
        return pods

    def discard(self, name):
        pod_id = self._pods().get(name)
        if pod_id is not None:
            self._remove_pod(pod_id)  # removes its containers too
        with self._ids_lock:
            self._ids.pop(name, None)

    def list_ours(self):
        return sorted(self._pods())

    def workload_pid(self, name):
        pb, runtime, _ = self._api()
        status = self._call("ContainerStatus", runtime.ContainerStatus,
                            pb.ContainerStatusRequest(
                                container_id=self._container(name)[1],
                                verbose=True))
        return int(json.loads(status.info["info"])["pid"])

    def daemon_pids(self):
        pid = lifecycle.pid_from_file(containerd.daemon_pid_file(self.conf))
        return [pid] if pid else []

    def describe(self):
        pb, runtime, _ = self._api()
        version = self._call("Version", runtime.Version, pb.VersionRequest())
        return dict(super().describe(), runtime="runc",
                    engine_version="%s %s, CRI %s" % (
                        version.runtime_name, version.runtime_version,
                        version.runtime_api_version),
                    network="host (CRI without CNI)")

    @classmethod
    def check(cls, conf):
        usable, why = containerd.Containerd.check(conf)
        if not usable:
            return usable, why
        try:
            cri_api.modules(conf.image_cache_dir)
        except (cri_api.CriApiError, ImportError) as e:
            return False, str(e)
        if shutil.which("ctr") is None:
            return False, "ctr is not installed (apt: containerd)"
        return True, "containerd's CRI plugin over gRPC (%s)" % \
            containerd.socket_path(conf)
