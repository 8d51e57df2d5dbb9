#!/bin/bash
# Build crictl (sigs.k8s.io/cri-tools), the CRI client the cri-containerd
# lifecycle runtime times CRI with, from the Go module proxy with the Go on
# PATH, into /usr/local/bin (root) or the cache's bin/; print its path.
# Idempotent: an installed crictl of this version is kept. ~1.5 min.
#   tools/build-crictl.sh
# Without Go it says so and exits 0: only cri-containerd needs crictl
# (rcbench doctor then lists it unusable, with the reason).
set -euo pipefail
version=v1.37.0
if [ "$(id -u)" = 0 ]; then
    bin=/usr/local/bin
else
    bin="${RCBENCH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/rally-container-bench}/bin"
fi
if "$bin/crictl" --version 2>/dev/null | grep -qx "crictl version $version"; then
    echo "$bin/crictl"
    exit 0
fi
if ! command -v go >/dev/null; then
    echo "build-crictl: no go on PATH: cri-containerd stays unusable" >&2
    exit 0
fi
mkdir -p "$bin"
echo "build-crictl: go install sigs.k8s.io/cri-tools/cmd/crictl@$version" \
     "into $bin (~1.5 min) ..." >&2
# go install leaves the version "unknown"; crictl --version then says it.
GOBIN="$bin" go install \
    -ldflags "-X sigs.k8s.io/cri-tools/pkg/version.Version=$version" \
    "sigs.k8s.io/cri-tools/cmd/crictl@$version"
echo "$bin/crictl"
