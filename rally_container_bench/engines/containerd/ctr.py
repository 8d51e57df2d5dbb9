"""containerd through ctr, the way its own CLI drives it.

rcbench runs a containerd of its own (``rcbench engines start containerd``:
own socket, root and state dirs, so Docker's containerd is never touched)
and keeps its instances in the containerd namespace "rcbench". stop kills
the task and deletes it (the shim exits, as after ``docker stop``); remove
deletes the container and its snapshot.
"""

import os
import shutil

from rally_container_bench.core import base
from rally_container_bench.core import labels
from rally_container_bench.core import lifecycle
from rally_container_bench import opts

ROOT = "/var/lib/rcbench-containerd"
NAMESPACE = "rcbench"
LABEL = "%s=%s" % (labels.KEY, labels.LIFECYCLE)


def socket_path(conf):
    """The gRPC socket of rcbench's own containerd."""
    return os.path.join(conf.containerd_state_dir, "containerd.sock")


def not_running(conf):
    """Why rcbench's containerd does not answer (no socket), or None."""
    socket = socket_path(conf)
    if os.path.exists(socket):
        return None
    return ("rcbench's containerd is not running at %s (rcbench engines "
            "start containerd)" % socket)


def config_toml(conf, sandbox_image, cni_conf_dir):
    """containerd's config: its own paths; CRI's sandbox is our image.

    restrict_oom_score_adj: CRI gives a pod sandbox oom_score_adj -998,
    which hosts that forbid lowering it (sandboxed CI machines: "failed
    to update /proc/self/oom_score_adj: Permission denied") refuse; with
    it, no process gets a lower value than containerd's own.
    """
    return """version = 2
root = "{root}"
state = "{state}"
[grpc]
  address = "{socket}"
[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "{sandbox}"
  restrict_oom_score_adj = true
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "/usr/lib/cni"
    conf_dir = "{cni}"
""".format(root=ROOT, state=conf.containerd_state_dir,
           socket=socket_path(conf), sandbox=sandbox_image, cni=cni_conf_dir)


def daemon_pid_file(conf):
    return os.path.join(opts.resolved_dir(conf.daemon_state_dir),
                        "containerd.pid")


class Containerd(lifecycle.LifecycleDriver):
    name = "containerd"

    def _argv(self, *args):
        return ["ctr", "--address", socket_path(self.conf), "--namespace",
                NAMESPACE] + list(args)

    def _ctr(self, *args, timeout=None):
        return base.run_cli(self._argv(*args),
                            timeout or self.conf.engine_call_timeout)

    def _checked(self, *args):
        return base.output_of(self._ctr(*args), "ctr " + " ".join(
            args[:2]))

    def prepare(self):
        if self.image.tag not in self._checked("images", "ls", "-q").split():
            self._checked("images", "import", self.image.archive)

    def create(self, name):
        self._checked("containers", "create", "--label", LABEL,
                      self.image.tag, name)

    def start(self, name):
        lifecycle.detached(
            self._argv("tasks", "start", "--detach", "--null-io", name),
            "ctr tasks start " + name)

    def _task_status(self, name):
        for line in self._checked("tasks", "ls").splitlines()[1:]:
            fields = line.split()
            if fields and fields[0] == name:
                return fields[1], fields[2]  # pid, status
        return None, None

    def stop(self, name):
        self._checked("tasks", "kill", "--signal", "SIGKILL", name)
        base.wait_until(
            lambda: self._task_status(name)[1] == "STOPPED",
            self.conf.delete_timeout, 0.005, "ctr task %s stopped" % name)
        self._checked("tasks", "delete", name)

    def remove(self, name):
        self._checked("containers", "delete", name)

    def run(self, name):
        lifecycle.detached(
            self._argv("run", "--detach", "--null-io", "--label", LABEL,
                       self.image.tag, name), "ctr run " + name)

    def discard(self, name):
        self._ctr("tasks", "delete", "--force", name)
        proc = self._ctr("containers", "delete", name)
        if proc.returncode != 0 and "not found" not in proc.stderr:
            raise base.DriverError("ctr containers delete %s failed: %s"
                                   % (name, proc.stderr.strip()))

    def list_ours(self):
        # ctr waits 10 s to dial a socket that is not there: every local
        # workload's cleanup context asks each store twice (seen: 20 s of
        # a 29 s workload where containerd was not started)
        why = not_running(self.conf)
        if why:
            raise base.DriverError(why)
        return self._checked("containers", "ls", "-q").split()

    def workload_pid(self, name):
        pid, status = self._task_status(name)
        if status != "RUNNING":
            raise base.DriverError("ctr task %s is %s" % (name, status))
        return int(pid)

    def daemon_pids(self):
        pid = lifecycle.pid_from_file(daemon_pid_file(self.conf))
        return [pid] if pid else []

    def describe(self):
        version = self._checked("version").split("Server:")[-1]
        number = next((line.split(":", 1)[1].strip()
                       for line in version.splitlines()
                       if line.strip().startswith("Version:")), "?")
        return dict(super().describe(), runtime="runc",
                    engine_version="containerd " + number)

    @classmethod
    def check(cls, conf):
        for tool in ("containerd", "ctr"):
            if shutil.which(tool) is None:
                return False, "%s is not installed (apt: containerd)" % tool
        why = not_running(conf)
        if why:
            return False, why
        return True, "containerd (own instance at %s), ctr" % socket_path(
            conf)
