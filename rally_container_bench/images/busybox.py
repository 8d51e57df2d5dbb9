"""The tiny lifecycle image: busybox-static, built offline.

The ptcr lifecycle method times create/start/stop/rm/run of busybox containers
whose command is a shell loop; no registry is reachable here, so the image is
made from Debian's busybox-static package (downloaded with apt, unpacked, never
installed on the host). One build gives every form an engine loads:

  rootfs/      the tree: runc/crun bundles and LXC use it read-only
  image.tar    a docker-archive (manifest.json + config + one layer), which
               ``docker load``, ``podman load`` and ``ctr images import`` read
  initramfs.cpio   the tree as a VM's initramfs (the loop script is its init)

Everything lives in <cache>/busybox-<hash>/; the hash covers the package
version and the image's command, so a rebuild happens only when they change.
"""

import functools
import glob
import hashlib
import io
import json
import os
import shutil
import subprocess
import tarfile
import tempfile
import time

from rally_container_bench.images import docker_archive
from rally_container_bench import opts

BUILDER_VERSION = "3"
# The ptcr method's start_cmd: a shell that stays busy printing, never exits.
LOOP = "while true; do echo hello world; sleep 1; done"
COMMAND = ("/bin/sh", "-c", LOOP)
# The same loop as a file, for engines whose command is one word
# (lxc.init.cmd splits on spaces; a VM's init).
LOOP_SCRIPT = "/bin/rcbench-loop"
ENV = ("PATH=/usr/sbin:/usr/bin:/sbin:/bin",)
DIRS = ("bin", "dev", "etc", "proc", "sys", "tmp", "run", "root")


class BusyboxImageError(Exception):
    """The busybox image could not be built; the message says why."""


class BusyboxImage(object):
    def __init__(self, directory, ident):
        self.id = ident
        self.dir = directory
        self.rootfs = os.path.join(directory, "rootfs")
        self.archive = os.path.join(directory, "image.tar")
        self.initramfs = os.path.join(directory, "initramfs.cpio")
        self.manifest = os.path.join(directory, "manifest.json")

    @classmethod
    def in_cache(cls, cache_dir, version=None):
        version = version or package_version()
        ident = hashlib.sha256(json.dumps(
            [BUILDER_VERSION, version, COMMAND, ENV]).encode()).hexdigest()
        directory = os.path.join(opts.resolved_dir(cache_dir),
                                 "busybox-" + ident[:12])
        return cls(directory, ident[:12])

    @property
    def tag(self):
        """Its name in Docker, Podman and containerd."""
        return "localhost/rcbench-busybox:" + self.id

    def is_built(self):
        return os.path.exists(self.manifest)

    def describe(self):
        with open(self.manifest) as f:
            return json.load(f)


@functools.lru_cache(maxsize=None)
def package_version():
    """busybox-static's candidate version in apt (the one to download).

    Asked once per process: apt-cache takes up to a second, and every
    workload's validation looks the image up.
    """
    out = subprocess.run(["apt-cache", "policy", "busybox-static"],
                         capture_output=True, text=True).stdout
    for line in out.splitlines():
        if line.strip().startswith("Candidate:"):
            version = line.split(":", 1)[1].strip()
            if version and version != "(none)":
                return version
    raise BusyboxImageError("apt knows no busybox-static package (apt-get "
                            "update?)")


def build(cache_dir, force=False, log=print):
    """Build the busybox image unless cached; return a BusyboxImage."""
    image = BusyboxImage.in_cache(cache_dir)
    if image.is_built() and not force:
        return image
    started = time.monotonic()
    staged = BusyboxImage(image.dir + ".partial", image.id)
    shutil.rmtree(staged.dir, ignore_errors=True)
    os.makedirs(staged.rootfs)
    with tempfile.TemporaryDirectory() as tmp:
        binary = _unpacked_busybox(tmp)
        _make_rootfs(binary, staged.rootfs)
    write_docker_archive(staged.rootfs, staged.archive, image.tag)
    with open(staged.initramfs, "wb") as f:
        f.write(newc_archive(staged.rootfs))
    with open(staged.manifest, "w") as f:
        json.dump({"id": image.id, "tag": image.tag,
                   "busybox_static": package_version(),
                   "command": list(COMMAND)}, f, indent=2)
    shutil.rmtree(image.dir, ignore_errors=True)
    os.rename(staged.dir, image.dir)
    log("busybox image %s built in %.1f s: %s"
        % (image.id, time.monotonic() - started, image.dir))
    return image


def _unpacked_busybox(tmp):
    proc = subprocess.run(["apt-get", "download", "busybox-static"],
                          cwd=tmp, capture_output=True, text=True)
    debs = glob.glob(os.path.join(tmp, "busybox-static_*.deb"))
    if proc.returncode != 0 or not debs:
        raise BusyboxImageError("apt-get download busybox-static failed: %s"
                                % proc.stderr.strip()[-800:])
    tree = os.path.join(tmp, "deb")
    subprocess.run(["dpkg-deb", "-x", debs[0], tree], check=True)
    return os.path.join(tree, "bin", "busybox")


def _make_rootfs(binary, rootfs):
    for name in DIRS:
        os.makedirs(os.path.join(rootfs, name), exist_ok=True)
    os.chmod(os.path.join(rootfs, "tmp"), 0o1777)
    target = os.path.join(rootfs, "bin", "busybox")
    shutil.copy2(binary, target)
    os.chmod(target, 0o755)
    applets = subprocess.run([target, "--list"], capture_output=True,
                             text=True, check=True).stdout.split()
    for applet in applets:
        link = os.path.join(rootfs, "bin", applet)
        if applet != "busybox" and not os.path.lexists(link):
            os.symlink("busybox", link)
    script = os.path.join(rootfs, LOOP_SCRIPT.lstrip("/"))
    with open(script, "w") as f:
        f.write("#!/bin/sh\n" + LOOP + "\n")
    os.chmod(script, 0o755)
    with open(os.path.join(rootfs, "etc", "passwd"), "w") as f:
        f.write("root:x:0:0:root:/root:/bin/sh\n")
    with open(os.path.join(rootfs, "etc", "group"), "w") as f:
        f.write("root:x:0:\n")


def layer_tar(rootfs):
    """The rootfs as an uncompressed, reproducible tar (bytes)."""
    buf = io.BytesIO()

    def normalize(info):
        info.uid = info.gid = 0
        info.uname = info.gname = "root"
        info.mtime = 0
        return info
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.PAX_FORMAT) as t:
        for name in sorted(os.listdir(rootfs)):
            t.add(os.path.join(rootfs, name), arcname=name,
                  filter=normalize)
    return buf.getvalue()


def write_docker_archive(rootfs, path, tag):
    docker_archive.write(path, io.BytesIO(layer_tar(rootfs)), tag, COMMAND,
                         ENV, "rally-container-bench: busybox-static")


def _newc_entry(name, mode, data=b"", ino=0):
    fields = [ino, mode, 0, 0, 1, 0, len(data), 0, 0, 0, 0,
              len(name) + 1, 0]
    header = b"070701" + b"".join(b"%08X" % v for v in fields)
    entry = header + name.encode() + b"\0"
    entry += b"\0" * (-len(entry) % 4)
    return entry + data + b"\0" * (-len(data) % 4)


def newc_archive(rootfs):
    """The tree as a cpio "newc" archive (the kernel's initramfs format)."""
    out, ino = [], 1
    for top, dirs, files in os.walk(rootfs):
        dirs.sort()
        for name in sorted(dirs) + sorted(files):
            path = os.path.join(top, name)
            arcname = os.path.relpath(path, rootfs)
            info = os.lstat(path)
            if os.path.islink(path):
                data = os.readlink(path).encode()
            elif os.path.isfile(path):
                with open(path, "rb") as f:
                    data = f.read()
            else:
                data = b""
            out.append(_newc_entry(arcname, info.st_mode, data, ino))
            ino += 1
    out.append(_newc_entry("TRAILER!!!", 0))
    return b"".join(out)
