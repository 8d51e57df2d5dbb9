#!/bin/bash
# The unit tests on Python 3.13, Debian 13's: in a Debian trixie tree built
# with mmdebstrap from Debian's archive (cached, as the guest image is),
# with the constraints' versions installed by uv. What a Rally host on
# Debian 13 runs; tox -e py313 (README command 2) and CI run it. Root
# (mmdebstrap, chroot); the tree's mounts live in a mount namespace of
# their own and go with it.
#   bash tools/py313.sh [stestr run arguments]
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
venv="${RCBENCH_VENV:-$top/.venv}"
cache="${RCBENCH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/rally-container-bench}"
suite=trixie
mirror="${RCBENCH_DEBIAN_MIRROR:-http://deb.debian.org/debian}"
# what the unit tests find on a host: the workloads' tools, dockerd and
# lxc-start for the validators' checks, git for the commit of a result;
# apt's lists stay (the busybox image's version is apt's)
packages=(python3 git sysbench fio iperf3 wrk nginx-light docker.io lxc)
key=$(echo "$suite $mirror ${packages[*]}" | sha256sum | cut -c1-12)
tree="$cache/python3.13-$suite-$key"

[ "$(id -u)" = 0 ] || { echo "py313: needs root (mmdebstrap, chroot)" >&2; exit 2; }
if [ ! -x "$tree/usr/bin/python3.13" ]; then
    echo "py313: building the Debian $suite tree (~30 s, once): $tree" >&2
    rm -rf "$tree.partial"
    mmdebstrap --quiet --variant=minbase --dpkgopt=force-unsafe-io \
        --skip=cleanup/apt/lists --include="$(IFS=,; echo "${packages[*]}")" \
        "$suite" "$tree.partial" "$mirror"
    mv "$tree.partial" "$tree"
fi
# the venv, in the tree, made again when what it holds changes
stamp=$(cat "$top/setup.cfg" "$top/test-requirements.txt" \
    "$top/upper-constraints.txt" | sha256sum | cut -c1-12)
uv=$(command -v uv || echo "$venv/bin/uv")
[ -x "$uv" ] || { echo "py313: no uv (tools/install-deps.sh installs it)" >&2; exit 2; }
mkdir -p "$tree/src" "$tree/root/.cache/uv" "$tree/opt/uv" "${XDG_CACHE_HOME:-$HOME/.cache}/uv"
cp "$uv" "$tree/opt/uv/uv"
# the host's CA bundle (a proxy's own CA, as pip's PIP_CERT) and resolver
cp /etc/ssl/certs/ca-certificates.crt "$tree/etc/host-ca.crt"
cp /etc/resolv.conf "$tree/etc/resolv.conf"
args=$(printf '%q ' "$@")
exec unshare --mount --fork /bin/bash -s "$tree" "$top" "$stamp" "$args" <<'INSIDE'
set -euo pipefail
tree=$1 top=$2 stamp=$3 args=$4
mount --make-rprivate /
mount --bind /proc "$tree/proc"
mount --rbind /dev "$tree/dev"
mount --bind "$top" "$tree/src"
mount --bind "${XDG_CACHE_HOME:-$HOME/.cache}/uv" "$tree/root/.cache/uv"
exec chroot "$tree" /usr/bin/env -i HOME=/root LANG=C.UTF-8 \
    PATH=/opt/venv/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin:/opt/uv \
    SSL_CERT_FILE=/etc/host-ca.crt UV_LINK_MODE=copy PYTHONHASHSEED=0 \
    PYTHONPYCACHEPREFIX=/tmp/pycache TZ=UTC STAMP="$stamp" ARGS="$args" \
    /bin/bash -c '
set -euo pipefail
cd /src
if [ "$(cat /opt/venv/.rcbench-stamp 2>/dev/null)" != "$STAMP" ]; then
    rm -rf /opt/venv
    uv venv -q -p /usr/bin/python3.13 /opt/venv
    uv pip install -q --python /opt/venv/bin/python -c upper-constraints.txt \
        -e . -r test-requirements.txt
    echo "$STAMP" > /opt/venv/.rcbench-stamp
fi
echo "py313: $(/opt/venv/bin/python --version) (Debian $(cat /etc/debian_version))"
# its own test repository, in the tree: not the host'"'"'s .stestr
eval "stestr --test-path=./tests/unit --top-dir=./ --here=/tmp run $ARGS"'
INSIDE
