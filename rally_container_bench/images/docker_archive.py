"""docker-archive files (what ``docker save`` writes), made without Docker.

One layer, one config, one tag: ``docker load``, ``podman load``, ``ctr
images import``, Glance images of container_format ``docker`` (Zun's and
nova-docker's form) all read it. The layer is any uncompressed tar of a
root filesystem; it is streamed, never held in memory whole.
"""

import hashlib
import io
import json
import tarfile

_CHUNK = 1 << 20


def image_config(diff_id, command, env, created_by):
    """The image config document (OCI / Docker image spec)."""
    return {"architecture": "amd64", "os": "linux",
            "created": "1970-01-01T00:00:00Z",
            "config": {"Cmd": list(command), "Env": list(env),
                       "WorkingDir": "/"},
            "rootfs": {"type": "layers", "diff_ids": [diff_id]},
            "history": [{"created": "1970-01-01T00:00:00Z",
                         "created_by": created_by}]}


def _digest(fileobj):
    sha = hashlib.sha256()
    size = 0
    for chunk in iter(lambda: fileobj.read(_CHUNK), b""):
        sha.update(chunk)
        size += len(chunk)
    fileobj.seek(0)
    return sha.hexdigest(), size


def metadata_members(layer_id, tag, command, env, created_by):
    """{name: bytes} of the archive's small members, the layer apart."""
    config = json.dumps(image_config("sha256:" + layer_id, command, env,
                                     created_by), sort_keys=True).encode()
    config_name = hashlib.sha256(config).hexdigest() + ".json"
    manifest = [{"Config": config_name, "RepoTags": [tag],
                 "Layers": [layer_id + "/layer.tar"]}]
    return {config_name: config,
            "manifest.json": json.dumps(manifest).encode()}


def write(path, layer, tag, command, env, created_by):
    """Write a docker-archive to path; layer is a binary file object."""
    layer_id, size = _digest(layer)
    members = metadata_members(layer_id, tag, command, env, created_by)
    with tarfile.open(path, "w") as t:
        info = tarfile.TarInfo(layer_id + "/layer.tar")
        info.size = size
        t.addfile(info, layer)
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            t.addfile(info, io.BytesIO(data))
