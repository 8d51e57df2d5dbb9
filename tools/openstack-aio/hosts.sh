# The test cloud's compute hosts at addresses of their own. Sourced by
# setup.sh and stop.sh (after common.sh).
#
# Each Nova compute service (aio-qemu, aio-qemu-2, aio-lxc, aio-lxc-2) and
# the Zun host get a "host" the Rally host logs in to, as an operator's
# Rally host logs in to real compute hosts: an sshd in a network namespace
# of its own (aio-<name>, on the management bridge rcb-mgmt0 at
# 10.118.0.1x), confined to the CPUs its compute service runs instances
# on (Nova's [compute] cpu_shared_set: the first host of a kind on CPU 0,
# the second on CPU 1; the Zun host's dockerd puts its containers in a
# cgroup of CPU 1, zun-dockerd.sh), and reading /proc/stat as lxcfs shows
# it to a process confined there: the busy time of that host's CPUs only.
# So a twin runs where its instance runs, and a load on one CPU is seen on
# the host of that CPU and not on the other: a reading taken on the Rally
# host (all CPUs) instead of the instance's host shows.
#
# /etc/rcbench-aio/compute-hosts.json is the task argument compute_hosts
# that reaches them (key: /etc/rcbench-aio/hosts/id_ed25519).
# shellcheck shell=bash

AIO_MGMT_BRIDGE=rcb-mgmt0
AIO_MGMT_CIDR=10.118.0.0/24
AIO_MGMT_GATEWAY=10.118.0.1
AIO_HOSTS_DIR=$AIO_ETC/hosts
AIO_LXCFS=/var/lib/rcbench-aio/lxcfs
AIO_CGROUP=rcbench-aio

# The CPU of a kind's second host and of the Zun host.
aio_last_cpu() { echo $(( $(nproc) - 1 )); }

# name address cpus: every host of the test cloud.
aio_hosts() {
    local i=0 name cpus last
    last=$(aio_last_cpu)
    for name in "${AIO_COMPUTES[@]}"; do
        # a kind's first host on CPU 0, its second on the last CPU
        cpus=0
        [[ $name == *-2 ]] && cpus=$last
        echo "aio-$name 10.118.0.$(( 11 + i )) $cpus"
        i=$(( i + 1 ))
    done
    if declare -F zun_enabled >/dev/null && zun_enabled; then
        # its containers on the same CPU (zun-dockerd.sh)
        echo "$AIO_ZUN_HOST 10.118.0.$(( 11 + i )) $last"
    fi
}

# The namespace of a host: aio-qemu-2 -> aio-qemu-2, the Zun host -> aio-zun.
aio_host_netns() {
    case $1 in aio-*) echo "$1" ;; *) echo aio-zun ;; esac
}

# lxcfs's mount, also a dead one: after a crash or a restart of the machine
# the FUSE mount stays listed, and any stat of it fails with "Transport
# endpoint is not connected" (mountpoint(1) then says it is none).
lxcfs_unmount() {
    grep -q " $AIO_LXCFS fuse" /proc/mounts || return 0
    fusermount -u "$AIO_LXCFS" 2>/dev/null || umount -l "$AIO_LXCFS"
}

# Keys, sshd configs and the compute_hosts argument (setup.sh, configure).
hosts_configure() {
    local name address cpus
    stat "$AIO_LXCFS" >/dev/null 2>&1 || lxcfs_unmount
    mkdir -p "$AIO_HOSTS_DIR" "$AIO_LXCFS"
    chmod 700 "$AIO_HOSTS_DIR"
    [ -s "$AIO_HOSTS_DIR/ssh_host_ed25519_key" ] \
        || ssh-keygen -q -t ed25519 -N "" -f "$AIO_HOSTS_DIR/ssh_host_ed25519_key"
    [ -s "$AIO_HOSTS_DIR/id_ed25519" ] \
        || ssh-keygen -q -t ed25519 -N "" -C rcbench-aio -f "$AIO_HOSTS_DIR/id_ed25519"
    install -m 600 "$AIO_HOSTS_DIR/id_ed25519.pub" "$AIO_HOSTS_DIR/authorized_keys"
    while read -r name address cpus; do
        cat > "$AIO_HOSTS_DIR/sshd-$name.conf" <<EOF
ListenAddress $address
HostKey $AIO_HOSTS_DIR/ssh_host_ed25519_key
AuthorizedKeysFile $AIO_HOSTS_DIR/authorized_keys
PermitRootLogin prohibit-password
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
PidFile none
StrictModes no
MaxSessions 100
MaxStartups 100:30:200
EOF
        # a login on the Zun host asks its Docker Engine (zun.sh), as one
        # on a real Zun host asks the only one there
        [[ $name == aio-* ]] \
            || echo "SetEnv DOCKER_HOST=$AIO_ZUN_DOCKER" >> "$AIO_HOSTS_DIR/sshd-$name.conf"
    done < <(aio_hosts)
    aio_hosts | python3 -c '
import json, sys
hosts = {name: {"address": address} for name, address, _ in
         (line.split() for line in sys.stdin)}
json.dump({"user": "root", "key_file": sys.argv[1], "hosts": hosts},
          open(sys.argv[2], "w"), indent=2, sort_keys=True)
' "$AIO_HOSTS_DIR/id_ed25519" "$AIO_ETC/compute-hosts.json"
}

# The management bridge, a namespace per host with its address on it.
hosts_network() {
    local name address cpus ns i=0
    ip link show "$AIO_MGMT_BRIDGE" >/dev/null 2>&1 \
        || ip link add "$AIO_MGMT_BRIDGE" type bridge
    ip addr replace "$AIO_MGMT_GATEWAY/${AIO_MGMT_CIDR#*/}" dev "$AIO_MGMT_BRIDGE"
    ip link set "$AIO_MGMT_BRIDGE" up
    while read -r name address cpus; do
        ns=$(aio_host_netns "$name")
        ip netns list | grep -qx "$ns\( .*\)\?" || ip netns add "$ns"
        if ! ip link show "rcbm$i" >/dev/null 2>&1; then
            ip link add "rcbm$i" type veth peer name eth0 netns "$ns"
            ip link set "rcbm$i" master "$AIO_MGMT_BRIDGE" up
        fi
        ip -n "$ns" link set lo up
        ip -n "$ns" link set eth0 up
        ip -n "$ns" addr replace "$address/${AIO_MGMT_CIDR#*/}" dev eth0
        i=$(( i + 1 ))
    done < <(aio_hosts)
}

# The daemons of the hosts, in aio_daemons' format: lxcfs, then an sshd
# per host (compute-host.sh confines it and gives it lxcfs's /proc/stat).
hosts_daemons() {
    local name address cpus
    echo "lxcfs root /usr/bin/lxcfs $AIO_LXCFS"
    while read -r name address cpus; do
        # a compute service's host has its name; the Zun host is this machine
        echo "host-$name root $AIO_HERE/compute-host.sh $(aio_host_netns "$name") $cpus $AIO_LXCFS $AIO_HOSTS_DIR/sshd-$name.conf $AIO_CGROUP/$name $([[ $name == aio-* ]] && echo "$name")"
    done < <(aio_hosts)
}

# Every host answers a login, its sysbench included.
hosts_up() {
    local name address cpus
    while read -r name address cpus; do
        ssh -n -o BatchMode=yes -o StrictHostKeyChecking=no \
            -o UserKnownHostsFile=/dev/null -o ConnectTimeout=5 \
            -i "$AIO_HOSTS_DIR/id_ed25519" "root@$address" sysbench --version \
            >/dev/null 2>&1 || return 1
    done < <(aio_hosts)
}

# After the daemons stopped: namespaces, veths, bridge, cgroups, lxcfs.
hosts_remove() {
    local name address cpus ns i=0 dir
    while read -r name address cpus; do
        ns=$(aio_host_netns "$name")
        ip link delete "rcbm$i" 2>/dev/null
        ip netns delete "$ns" 2>/dev/null
        i=$(( i + 1 ))
    done < <(aio_hosts)
    ip link delete "$AIO_MGMT_BRIDGE" 2>/dev/null
    # v1: every controller's (Docker's cgroup parent for Zun has them all)
    for dir in /sys/fs/cgroup/*/$AIO_CGROUP/* /sys/fs/cgroup/*/$AIO_CGROUP \
               /sys/fs/cgroup/$AIO_CGROUP/* /sys/fs/cgroup/$AIO_CGROUP; do
        [ -d "$dir" ] && rmdir "$dir" 2>/dev/null
    done
    lxcfs_unmount
    return 0
}
