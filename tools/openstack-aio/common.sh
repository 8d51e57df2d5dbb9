# Shared by setup.sh and stop.sh: where the all-in-one cloud keeps its
# state, which daemons it runs, and how they are started and stopped.
# shellcheck shell=bash

AIO_HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
AIO_ETC=/etc/rcbench-aio          # secrets, openrc, Rally env spec
AIO_RUN=/run/rcbench-aio          # pid files of the daemons started here
AIO_LOG=/var/log/rcbench-aio      # their output
AIO_SCHEMAS_STAMP=$AIO_ETC/schemas.synced  # setup.sh: synced by this code
AIO_READY=$AIO_RUN/ready            # setup.sh: what a ready cloud ran on

# The provider network: a veth pair. Neutron's linuxbridge agent enslaves
# AIO_PROVIDER_IF to the network's bridge; the host keeps AIO_HOST_IF
# with the gateway address, so the Rally host reaches every instance's
# fixed IP directly. Only addresses on this machine.
AIO_PROVIDER_IF=rcb-prov0
AIO_HOST_IF=rcb-prov1
AIO_CIDR=${AIO_CIDR:-10.117.0.0/24}
AIO_GATEWAY=${AIO_GATEWAY:-10.117.0.1}
AIO_POOL_START=${AIO_POOL_START:-10.117.0.10}
AIO_POOL_END=${AIO_POOL_END:-10.117.0.250}
AIO_NETWORK=rcbench-provider

# The compute services, two per hypervisor kind (libvirt QEMU/KVM and
# libvirt-LXC), each a host of its own (hosts.sh): aio-qemu, aio-qemu-2,
# aio-lxc, aio-lxc-2. A name's kind is the name without "-2".
AIO_COMPUTES=(qemu qemu-2 lxc lxc-2)
# Where Nova mounts LXC instances' roots (a shared mount: setup.sh).
AIO_LXC_ROOTS=/var/lib/nova/lxc-roots

# A compute service's instances (and image cache).
aio_instances_path() {
    case $1 in
    lxc*) echo "$AIO_LXC_ROOTS/instances-$1" ;;
    *) echo "/var/lib/nova/instances-$1" ;;
    esac
}

# Daemons in start order (stop runs in reverse): name, user, argv.
# The uWSGI APIs run with few workers: Debian's defaults (8-16 processes
# each, up to 32 threads) take 6-8 GB and gain nothing on 2 cores.
aio_daemons() {
    local uw=/usr/bin/uwsgi_python3
    cat <<EOF
keystone keystone $uw --ini $AIO_ETC/uwsgi/keystone.ini
glance-api glance /usr/bin/glance-api --config-file=/etc/glance/glance-api.conf
placement-api placement $uw --ini $AIO_ETC/uwsgi/placement-api.ini
nova-api nova $uw --ini $AIO_ETC/uwsgi/nova-api.ini
nova-conductor nova /usr/bin/nova-conductor --config-file=/etc/nova/nova.conf
nova-scheduler nova /usr/bin/nova-scheduler --config-file=/etc/nova/nova.conf
neutron-api neutron $uw --ini $AIO_ETC/uwsgi/neutron-api.ini
neutron-rpc-server neutron /usr/bin/neutron-rpc-server --config-file=/etc/neutron/neutron.conf --config-file=/etc/neutron/plugins/ml2/ml2_conf.ini
EOF
    local name
    for name in "${AIO_COMPUTES[@]}"; do
        echo "neutron-linuxbridge-agent-$name root $AIO_ETC/bin/lb-agent-$name --config-file=/etc/neutron/neutron.conf --config-file=/etc/neutron/plugins/ml2/ml2_conf.ini --config-file=/etc/neutron/plugins/ml2/linuxbridge_agent.ini --config-file=$AIO_ETC/neutron-agent-$name.conf"
    done
    echo "neutron-dhcp-agent root /usr/bin/neutron-dhcp-agent --config-file=/etc/neutron/neutron.conf --config-file=/etc/neutron/dhcp_agent.ini"
    for name in "${AIO_COMPUTES[@]}"; do
        echo "nova-compute-$name root /usr/bin/python3 $AIO_HERE/nova-compute-node.py aio-$name --config-file=/etc/nova/nova.conf --config-file=$AIO_ETC/nova-compute-$name.conf"
    done
    hosts_daemons
    if zun_enabled; then
        zun_daemons
    fi
    if cinder_enabled; then
        cinder_daemons
    fi
}

aio_log() {
    echo "[$(date +%H:%M:%S)] openstack-aio: $*" >&2
}

aio_pid() {
    recorded_pid "$AIO_RUN/$1.pid"
}

# recorded_pid FILE: the pid FILE names, if that process runs (a zombie is
# gone) and started before FILE was written, within 1 s (the slack of
# PIDFILE_SLACK_S in rally_container_bench/core/processes.py: a daemon's
# start and FILE's time are read in ticks): one started after got the
# number since (a pid is handed out again once its process is reaped).
recorded_pid() {
    local file=$1 pid
    pid=$(cat "$file" 2>/dev/null) || return 1
    [[ $pid =~ ^[0-9]+$ ]] && [ -r "/proc/$pid/stat" ] || return 1
    awk -v written="$(stat -c %.3Y "$file")" -v now="$(date +%s.%N)" \
        -v hz="$(getconf CLK_TCK)" '
        FILENAME == "/proc/uptime" { up = $1; next }
        { sub(/.*\) /, ""); state = $1; start = $20 }
        END { exit !(start != "" && state != "Z" \
                     && now - up + start / hz <= written + 1) }' \
        /proc/uptime "/proc/$pid/stat" 2>/dev/null && echo "$pid"
}

# signal_recorded SIGNAL FILE: SIGNAL to the process FILE names, if it is
# sure to be that process (recorded_pid); the only kill of these scripts.
signal_recorded() {
    local pid
    pid=$(recorded_pid "$2") || return 1
    kill -s "$1" "$pid" 2>/dev/null
}

# aio_yield PID...: the sessions of these processes yield the CPUs to
# everything else: their autogroup's nice is 19 (the kernel shares a busy
# CPU between sessions, not processes, where autogroup is on: Debian's
# default). On a real cloud the control plane runs on machines of its
# own; here it shares the compute hosts' CPUs, and with both of them
# busy its bursts beside a test scattered the pairs: libvirt-LXC at 2,
# one server and its twin per CPU, had a pair SD of 5.5-6.9 % in cpu,
# against 1.3-2.8 % at 1 and 1.8 % for Zun at 2 (both on one CPU, the
# other CPU left to the control plane). Instances (in libvirt's and
# Docker's cgroups) and the hosts' logins (sessions of their own, so the
# twins) keep their share.
# Only a process in a session other than this script's: the autogroup is
# the whole session's, and mariadb started by its init script stays in
# the caller's (2026-11-29: so did the shell that ran setup.sh, and every
# test started from it then ran at nice 19 beside full-weight instances).
aio_yield() {
    local pid own
    own=$(ps -o sid= -p $$ | tr -d ' ')
    for pid in "$@"; do
        [ "$(ps -o sid= -p "$pid" 2>/dev/null | tr -d ' ')" != "$own" ] \
            || continue
        echo 19 2>/dev/null > "/proc/$pid/autogroup"
    done
    return 0
}

# aio_start NAME USER ARGV...: start detached unless it runs already; a
# service of the control plane yields the CPUs (aio_yield), the compute
# hosts (their logins), lxcfs (what they read /proc/stat through) and the
# nova-compute services not: libvirtd drops a client that does not answer
# its keepalive within 30 s, and at nice 19, starting beside the
# quickstart (both CPUs 87 % busy at nice 0, CI 2026-11-29), all four
# nova-computes were starved that long 2 min after their start; Nova then
# disabled them ("Connection to libvirt lost") and the next task found no
# compute host. Once started, two nice-0 spinners for 90 s did not do it.
aio_start() {
    local name=$1 user=$2
    shift 2
    if aio_pid "$name" >/dev/null; then
        return 0
    fi
    mkdir -p "$AIO_RUN" "$AIO_LOG"
    start-stop-daemon --start --background --make-pidfile \
        --pidfile "$AIO_RUN/$name.pid" --output "$AIO_LOG/$name.log" \
        --chuid "$user" --exec "$1" -- "${@:2}"
    case $name in
    host-*|lxcfs|nova-compute-*) ;;
    *) aio_yield "$(aio_pid "$name")" ;;
    esac
}

# aio_dead: the names of the daemons of aio_daemons that are not running.
aio_dead() {
    local name
    for name in $(aio_daemons | awk '{print $1}'); do
        aio_pid "$name" >/dev/null || echo "$name"
    done
}

# neutron_ebtables_reset: remove every ebtables chain the linuxbridge
# agents made (neutronARP-*, neutronMAC-*), and the jumps to them. Only
# while no agent runs: chains of ports gone with a killed cloud make the
# next agents start by deleting them, three agents on one host at once,
# and the one that loses the race ("No chain/target/match by that name")
# exits. Zun's containers then never get a port (binding_failed).
neutron_ebtables_reset() {
    local table chain rule chains
    command -v ebtables >/dev/null || return 0
    for table in filter nat; do
        chains=$(ebtables -t "$table" -L 2>/dev/null \
            | awk '/^Bridge chain: neutron/{c=$3; sub(/,$/, "", c); print c}')
        [ -n "$chains" ] || continue
        for chain in $chains; do
            ebtables -t "$table" -F "$chain"
        done
        ebtables -t "$table" -L | awk '
            /^Bridge chain: /{chain=$3; sub(/,$/, "", chain); next}
            chain !~ /^neutron/ && / -j neutron/ {print chain "\t" $0}' \
        | while IFS=$'\t' read -r chain rule; do
            # shellcheck disable=SC2086
            ebtables -t "$table" -D "$chain" $rule
        done
        for chain in $chains; do
            ebtables -t "$table" -X "$chain"
        done
        aio_log "removed $(wc -w <<< "$chains") stale neutron ebtables chains ($table)"
    done
}

# aio_stop NAME: TERM, then KILL after 20 s (uWSGI workers and the
# dnsmasq an agent started stay: see stop.sh).
aio_stop() {
    local name=$1 pidfile=$AIO_RUN/$1.pid i
    signal_recorded TERM "$pidfile" || { rm -f "$pidfile"; return 0; }
    for i in $(seq 1 40); do
        aio_pid "$name" >/dev/null || break
        sleep 0.5
    done
    signal_recorded KILL "$pidfile" || true
    rm -f "$pidfile"
}

# write_conf FILE GROUP < text: a whole config file, readable by the
# service's group only (it holds passwords).
write_conf() {
    mkdir -p "$(dirname "$1")"
    install -m 640 -o root -g "$2" /dev/null "$1"
    cat > "$1"
}

# shellcheck source=hosts.sh
source "$AIO_HERE/hosts.sh"
