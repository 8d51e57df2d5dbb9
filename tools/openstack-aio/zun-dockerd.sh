#!/bin/sh
# The Zun host's Docker Engine (zun.sh): a dockerd of its own, apart from
# rcbench's (the local engines'), whose containers run in a cpuset cgroup
# confined to the Zun host's CPUs, as Nova's cpu_shared_set confines the
# servers of aio-lxc. So a container and its native twin (run through the
# Zun host's sshd, confined to the same CPUs) share a CPU, and that host's
# /proc/stat (lxcfs) is the busy time of its CPUs alone.
#   zun-dockerd.sh CPUS CGROUP SOCKET ROOT CONFIG BRIDGE
# ROOT: its data root. Its exec root is /var/run/docker, as a stock
# dockerd's, but a directory of its own (SOCKET without ".sock") mounted
# there in a mount namespace of its own: kuryr-libnetwork refuses a join
# whose sandbox is not under /var/run/docker/netns ("does not match
# '^(/var/run/docker/netns/[0-9a-f]{12})$'"), and rcbench's dockerd has
# that directory on the machine.
# Runs in the foreground: the test cloud's pid file is dockerd's.
set -eu
cpus=$1 cgroup=$2 socket=$3 root=$4 config=$5 bridge=$6
exec_root=${socket%.sock}

# shellcheck source=cpuset.sh
. "$(dirname "$0")/cpuset.sh"
cpuset_group "$cgroup" "$cpus" >/dev/null
mkdir -p "$root" "$exec_root" /var/run/docker
# A default bridge of its own, without addresses outside, and no iptables
# rules: Zun attaches every container to a Neutron network through
# kuryr-libnetwork. Not "--bridge none": a dockerd started so deletes
# docker0, which is rcbench's dockerd's (every local docker container then
# failed: "could not find bridge docker0").
ip link show "$bridge" >/dev/null 2>&1 || ip link add "$bridge" type bridge
ip addr replace 10.119.0.1/24 dev "$bridge"
ip link set "$bridge" up
exec unshare --mount --propagation private sh -c '
mount --bind "$0" /var/run/docker
exec dockerd --host "unix://$1" --data-root "$2" --config-file "$3" \
    --pidfile "$0/dockerd.pid" --cgroup-parent "/$4" \
    --bridge "$5" --iptables=false' \
    "$exec_root" "$socket" "$root" "$config" "$cgroup" "$bridge"
