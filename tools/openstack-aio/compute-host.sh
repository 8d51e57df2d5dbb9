#!/bin/sh
# One compute host of the test cloud (hosts.sh): its sshd, in the host's
# network namespace, confined to the host's CPUs (a cpuset cgroup every
# login inherits), reading /proc/stat as lxcfs shows it there.
#   compute-host.sh NETNS CPUS LXCFS_DIR SSHD_CONFIG CGROUP [HOSTNAME]
# HOSTNAME: the host's own name (a UTS namespace); default: the machine's.
# Runs in the foreground (sshd -D): the test cloud's pid file is its.
set -eu
netns=$1 cpus=$2 lxcfs=$3 config=$4 cgroup=$5 name=${6:-}

# shellcheck source=cpuset.sh
. "$(dirname "$0")/cpuset.sh"
dir=$(cpuset_group "$cgroup" "$cpus")
echo $$ > "$dir/cgroup.procs"

# lxcfs answers a read of its stat with the CPUs of the reader's cpuset
# (started just before: its mount may take a moment).
i=0
until test -r "$lxcfs/proc/stat"; do
    i=$((i + 1))
    [ "$i" -le 100 ] || { echo "compute-host.sh: no lxcfs at $lxcfs" >&2; exit 1; }
    sleep 0.1
done
mkdir -p /run/sshd
# nsenter, not "ip netns exec": that one mounts a /sys of the namespace,
# which hides /sys/fs/cgroup (the instances' CPU is read there).
exec nsenter --net="/run/netns/$netns" unshare --mount --propagation private ${name:+--uts} \
    sh -c '[ -z "$2" ] || hostname "$2"
mount --bind "$0/proc/stat" /proc/stat && exec /usr/sbin/sshd -D -e -f "$1"' \
    "$lxcfs" "$config" "$name"
