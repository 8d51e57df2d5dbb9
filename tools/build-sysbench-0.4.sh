#!/bin/bash
# Build sysbench 0.4.12 (the version of the KEK 2015 study) from the source
# tarball in third_party/, once, into the cache; print the binary's path.
#   tools/build-sysbench-0.4.sh            -> builds if missing, prints path
# Needs: gcc make autoconf automake libtool (tools/install-deps.sh).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
tarball="$top/third_party/sysbench-0.4.12-src.tar.gz"
cache="${RCBENCH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/rally-container-bench}"
sum=$(sha256sum "$tarball" | cut -c1-16)
prefix="$cache/sysbench-0.4.12-$sum"
binary="$prefix/bin/sysbench"
if [ -x "$binary" ] && "$binary" --version 2>/dev/null | grep -q '^sysbench 0.4.12'; then
    echo "$binary"
    exit 0
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
tar -xzf "$tarball" -C "$work"
cd "$work"/sysbench-0.4.12
echo "building sysbench 0.4.12 into $prefix (about 1 min) ..." >&2
{ ./autogen.sh && ./configure --without-mysql --prefix="$prefix" \
    && make -j"$(nproc)" && make install; } > "$work/build.log" 2>&1 || {
    tail -n 30 "$work/build.log" >&2
    echo "sysbench 0.4.12 build failed" >&2
    exit 1
}
echo "$binary"
