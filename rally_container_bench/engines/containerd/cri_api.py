"""Python stubs of Kubernetes' CRI API, made offline-friendly at first use.

crictl (sigs.k8s.io/cri-tools) is not packaged for Debian bookworm and the
Go module proxy this project may use does not serve it, so the CRI mode
speaks CRI itself: api.proto of k8s.io/cri-api (from the Go module proxy,
where that module is served) compiled with grpcio-tools into the cache.
The gogoproto options in api.proto only steer Go code generation; they are
dropped before compiling (pure: ``strip_gogo``).
"""

import importlib
import io
import os
import sys
import urllib.request
import zipfile

from rally_container_bench import opts

MODULE = "k8s.io/cri-api"
VERSION = "v0.27.1"  # CRI v1, which containerd 1.6 serves
PROTO = "pkg/apis/runtime/v1/api.proto"


class CriApiError(Exception):
    """The CRI stubs could not be made; the message says why."""


def strip_gogo(text):
    """api.proto without the gogoproto import and options."""
    kept = []
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith('import "github.com/gogo/') or \
                stripped.startswith("option (gogoproto."):
            continue
        kept.append(line)
    return "\n".join(kept) + "\n"


def stub_dir(cache_dir):
    return os.path.join(opts.resolved_dir(cache_dir), "cri-api-" + VERSION)


def _proxy():
    proxy = os.environ.get("GOPROXY", "https://proxy.golang.org")
    first = proxy.split(",")[0].split("|")[0]
    return "https://proxy.golang.org" if first in ("direct", "off") else first


def fetch_proto():
    url = "%s/%s/@v/%s.zip" % (_proxy().rstrip("/"), MODULE, VERSION)
    try:
        with urllib.request.urlopen(url, timeout=60) as response:
            archive = zipfile.ZipFile(io.BytesIO(response.read()))
    except Exception as e:
        raise CriApiError("cannot fetch %s: %s" % (url, e))
    member = "%s@%s/%s" % (MODULE, VERSION, PROTO)
    return archive.read(member).decode()


def build(cache_dir):
    """Compile the stubs into the cache unless they are there."""
    directory = stub_dir(cache_dir)
    if os.path.exists(os.path.join(directory, "api_pb2_grpc.py")):
        return directory
    try:
        from grpc_tools import protoc
    except ImportError:
        raise CriApiError("grpcio-tools is not installed (pip install "
                          "grpcio-tools)")
    partial = directory + ".partial"
    os.makedirs(partial, exist_ok=True)
    with open(os.path.join(partial, "api.proto"), "w") as f:
        f.write(strip_gogo(fetch_proto()))
    include = os.path.join(os.path.dirname(protoc.__file__), "_proto")
    status = protoc.main(["protoc", "-I", partial, "-I", include,
                          "--python_out", partial,
                          "--grpc_python_out", partial,
                          os.path.join(partial, "api.proto")])
    if status != 0:
        raise CriApiError("protoc failed on api.proto (exit %d)" % status)
    os.replace(partial, directory)
    return directory


def modules(cache_dir):
    """(api_pb2, api_pb2_grpc), imported from the cache."""
    directory = stub_dir(cache_dir)
    if not os.path.exists(os.path.join(directory, "api_pb2_grpc.py")):
        raise CriApiError("the CRI stubs are not built (rcbench images "
                          "build makes them)")
    if directory not in sys.path:
        sys.path.insert(0, directory)
    return (importlib.import_module("api_pb2"),
            importlib.import_module("api_pb2_grpc"))
