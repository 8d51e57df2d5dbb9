#!/bin/bash
# Stand up a single-node OpenStack on this machine from Debian bookworm's
# own packages (Zed): keystone, glance, placement, nova (api, conductor,
# scheduler, four compute services: two libvirt QEMU/KVM and two
# libvirt-LXC, each a host at an address of its own: hosts.sh),
# neutron (linuxbridge, flat provider network on a veth pair), mariadb,
# rabbitmq, memcached. For rally-container-bench's own tests and for
# trying tasks/kvm_vs_docker.yaml without a cloud; not for production.
#
#   tools/openstack-aio/setup.sh     install (first time), configure, start
#   tools/openstack-aio/setup.sh --install-only   the packages and Zun's venv
#                                    only
#   tools/openstack-aio/setup.sh --prepare   also configure, start mariadb,
#                                    rabbitmq and memcached and sync the
#                                    schemas (CI does it beside its image
#                                    build and tests)
#   tools/openstack-aio/setup.sh --engines   --prepare, then libvirtd as
#                                    the cloud needs it and every local
#                                    engine (rcbench engines start): CI
#                                    starts them before the quickstart
#                                    and the cloud, which it runs at once,
#                                    so neither stops what the other uses
#   tools/openstack-aio/stop.sh      stop every daemon started here
#
# Idempotent: a second run reuses what is installed, configured and
# running. Needs root, no systemd (daemons are started here), and only
# addresses on this machine (127.0.0.1 and $AIO_CIDR on a veth pair).
# Writes /etc/rcbench-aio/openrc (admin credentials, mode 600),
# /etc/rcbench-aio/rally-env.json (`rally env create --spec`) and
# /etc/rcbench-aio/compute-hosts.json (the task argument compute_hosts:
# how to log in to each compute host at its own address, hosts.sh).
# Environment: AIO_VIRT_TYPE=kvm on hosts with hardware virtualization
# (default qemu: TCG), AIO_ZUN=0 to leave Zun out (zun.sh), AIO_CINDER=0
# to leave Cinder and its Ceph out (cinder.sh), RCBENCH (the
# rcbench command that starts libvirtd, and every engine with --engines).
set -Eeuo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
# shellcheck source=../apt.sh
source "$here/../apt.sh"
# shellcheck source=common.sh
source "$here/common.sh"
# shellcheck source=packages.sh
source "$here/packages.sh"
# shellcheck source=configure.sh
source "$here/configure.sh"
# shellcheck source=zun.sh
source "$here/zun.sh"
# shellcheck source=cinder.sh
source "$here/cinder.sh"
rcbench=${RCBENCH:-$top/.venv/bin/rcbench}
lxc_roots=$AIO_LXC_ROOTS
started=$(date +%s)
# The services' own tools are chatty (deprecation and eventlet warnings):
# their output goes to a log, shown when a step fails.
mkdir -p "$AIO_LOG"
setup_log=$AIO_LOG/setup.log
: > "$setup_log"
quiet() { "$@" >>"$setup_log" 2>&1; }
trap 'aio_log "failed; the end of $setup_log:"; tail -n 40 "$setup_log" >&2' ERR

[ "$(id -u)" = 0 ] || { echo "setup.sh: run as root" >&2; exit 1; }
grep -q bookworm /etc/os-release \
    || { echo "setup.sh: needs Debian bookworm (its Zed packages)" >&2; exit 1; }
[ -x "$rcbench" ] || { echo "setup.sh: $rcbench is missing (tools/install-deps.sh)" >&2; exit 1; }

install_packages() {
    local missing=() pkg wanted=("${AIO_PACKAGES[@]}")
    if cinder_enabled; then
        wanted+=("${AIO_CINDER_PACKAGES[@]}")
    fi
    for pkg in "${wanted[@]}"; do
        dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "ok installed" \
            || missing+=("$pkg")
    done
    [ ${#missing[@]} -gt 0 ] || return 0
    aio_log "apt-get install ${#missing[@]} packages (~3 min the first time)"
    for pkg in "${AIO_DEBCONF_PACKAGES[@]}"; do
        printf '%s %s/%s boolean false\n' \
            "$pkg" "$pkg" configure_db "$pkg" "$pkg" register-endpoint \
            "$pkg" "$pkg" dbconfig-install
    done | debconf-set-selections
    echo 'keystone keystone/create-admin-tenant boolean false' | debconf-set-selections
    # No service starts at install: setup.sh starts what it needs (an
    # sshd on every address of this machine, openssh-server's, is not).
    apt_quiet_install "${missing[@]}"
}

load_secrets() {
    mkdir -p "$AIO_ETC"
    chmod 755 "$AIO_ETC"
    if [ ! -s "$AIO_ETC/secrets" ]; then
        umask 077
        for name in DB_PASS RABBIT_PASS SERVICE_PASS ADMIN_PASS; do
            echo "$name=$(python3 -c "import secrets; print(secrets.token_hex(16))")"
        done > "$AIO_ETC/secrets"
        umask 022
    fi
    # shellcheck disable=SC1091
    source "$AIO_ETC/secrets"
}

provider_link() {
    if ! ip link show "$AIO_HOST_IF" >/dev/null 2>&1; then
        ip link add "$AIO_HOST_IF" type veth peer name "$AIO_PROVIDER_IF"
    fi
    ip link set "$AIO_PROVIDER_IF" up
    ip link set "$AIO_HOST_IF" up
    ip addr replace "$AIO_GATEWAY/${AIO_CIDR#*/}" dev "$AIO_HOST_IF"
}

# A wait over 3 s, in CI's log: where a slow start spends its time.
log_if_slow() {  # what started_at_SECONDS
    [ $(( SECONDS - $2 )) -le 3 ] || aio_log "$1: after $(( SECONDS - $2 )) s"
}

# Waits are upper bounds, wide enough for a start beside other work (CI
# starts the cloud beside the quickstart): kuryr listened after 113 s alone.
wait_port() {  # what port [seconds]
    local i t0=$SECONDS
    for i in $(seq 1 $(( ${3:-240} * 2 ))); do
        if (exec 3<>"/dev/tcp/127.0.0.1/$2") 2>/dev/null; then
            log_if_slow "$1 listens" "$t0"
            return 0
        fi
        sleep 0.5
    done
    aio_log "$1 does not listen on 127.0.0.1:$2; see $AIO_LOG and /var/log/$1*"
    return 1
}

start_backends() {
    /etc/init.d/mariadb start >/dev/null
    /etc/init.d/memcached start >/dev/null
    /etc/init.d/rabbitmq-server start >/dev/null
    wait_port rabbitmq 5672
    # Passwords go on stdin (rabbitmqctl reads one there when the argument
    # is left out), never on a command line, which ps shows to every user.
    # (The list read whole first: see sync_databases' cells.)
    grep -q '^openstack' <<< "$(rabbitmqctl list_users -q 2>/dev/null || true)" \
        || rabbitmqctl add_user openstack <<< "$RABBIT_PASS" >/dev/null
    rabbitmqctl change_password openstack <<< "$RABBIT_PASS" >/dev/null
    rabbitmqctl set_permissions openstack '.*' '.*' '.*' >/dev/null
    local sql="" name
    for name in keystone glance placement nova_api nova nova_cell0 neutron; do
        sql+="CREATE DATABASE IF NOT EXISTS $name; "
        sql+="GRANT ALL PRIVILEGES ON $name.* TO 'openstack'@'127.0.0.1'; "
        sql+="GRANT ALL PRIVILEGES ON $name.* TO 'openstack'@'localhost'; "
    done
    mysql -u root <<< "CREATE USER IF NOT EXISTS 'openstack'@'127.0.0.1' IDENTIFIED BY '$DB_PASS'; CREATE USER IF NOT EXISTS 'openstack'@'localhost' IDENTIFIED BY '$DB_PASS'; ALTER USER 'openstack'@'127.0.0.1' IDENTIFIED BY '$DB_PASS'; ALTER USER 'openstack'@'localhost' IDENTIFIED BY '$DB_PASS'; $sql"
    # Every worker of every service holds connections.
    mysql -u root -e "SET GLOBAL max_connections = 1000"
}

as() { local user=$1; shift; setpriv --reuid "$user" --regid "$user" --init-groups "$@"; }

sync_keystone() {
    as keystone keystone-manage db_sync
    as keystone keystone-manage fernet_setup --keystone-user keystone --keystone-group keystone
    as keystone keystone-manage credential_setup --keystone-user keystone --keystone-group keystone
    # The admin's password through the environment keystone-manage reads
    # (OS_BOOTSTRAP_PASSWORD), not argv.
    OS_BOOTSTRAP_PASSWORD=$ADMIN_PASS as keystone keystone-manage bootstrap \
        --bootstrap-admin-url http://127.0.0.1:5000/v3/ \
        --bootstrap-internal-url http://127.0.0.1:5000/v3/ \
        --bootstrap-public-url http://127.0.0.1:5000/v3/ \
        --bootstrap-region-id RegionOne >/dev/null
}

sync_nova() {
    as nova nova-manage api_db sync
    # Read whole first: under pipefail, "list_cells | grep -q" failed when
    # grep quit at its match before list_cells had written the rest (a
    # SIGPIPE), and create_cell then exited 2 on the existing cell1 (seen
    # re-running setup.sh on a running cloud).
    local cells
    cells=$(as nova nova-manage cell_v2 list_cells 2>/dev/null || true)
    grep -q ' cell0 ' <<< "$cells" || as nova nova-manage cell_v2 map_cell0
    grep -q ' cell1 ' <<< "$cells" \
        || as nova nova-manage cell_v2 create_cell --name=cell1 >/dev/null
    as nova nova-manage db sync
}

# Each service's schema in its own database, all at once: one after the
# other they took ~80 s on a fresh machine, mostly one Python process's
# CPU at a time (neutron's and nova's migrations the longest).
sync_databases() {
    local pids=() pid status=0
    sync_keystone & pids+=($!)
    as glance glance-manage db_sync >/dev/null 2>&1 & pids+=($!)
    as placement placement-manage db sync & pids+=($!)
    sync_nova & pids+=($!)
    as neutron neutron-db-manage --config-file /etc/neutron/neutron.conf \
        --config-file /etc/neutron/plugins/ml2/ml2_conf.ini upgrade heads \
        >/dev/null 2>&1 & pids+=($!)
    if zun_enabled; then
        zun_database & pids+=($!)
    fi
    if cinder_enabled; then
        cinder_database & pids+=($!)
    fi
    for pid in "${pids[@]}"; do
        wait "$pid" || status=$?
    done
    return "$status"
}

write_openrc() {
    umask 077
    cat > "$AIO_ETC/openrc" <<EOF
export OS_AUTH_URL=http://127.0.0.1:5000/v3
export OS_USERNAME=admin
export OS_PASSWORD=$ADMIN_PASS
export OS_PROJECT_NAME=admin
export OS_USER_DOMAIN_NAME=Default
export OS_PROJECT_DOMAIN_NAME=Default
export OS_REGION_NAME=RegionOne
export OS_IDENTITY_API_VERSION=3
export OS_INTERFACE=public
EOF
    python3 - "$AIO_ETC/rally-env.json" <<EOF
import json, sys
spec = {"openstack": {
    "auth_url": "http://127.0.0.1:5000/v3", "region_name": "RegionOne",
    "endpoint_type": "public",
    "admin": {"username": "admin", "password": "$ADMIN_PASS",
              "project_name": "admin", "user_domain_name": "Default",
              "project_domain_name": "Default"}},
    # rcbench decide and periodic pair every test on its instance's
    # compute host with these (hosts.sh writes the file)
    "!extras": {"compute_hosts": "$AIO_ETC/compute-hosts.json"}}
with open(sys.argv[1], "w") as f:
    json.dump(spec, f, indent=2)
EOF
    umask 022
}

# Service users, services and endpoints: one Python process
# (register.py; an `openstack` command per item took ~5 min here), with
# Debian's python3 and its keystoneclient (python3-openstackclient's).
# nova and neutron also get the "service" role: they send service tokens,
# and Cinder lets Nova delete a volume attachment only with a service
# token whose user has it (the OSSA-2023-003 fix; else HTTP 409
# ConflictNovaUsingAttachment and the volume stays in-use).
register_services() {
    # shellcheck disable=SC1091
    source "$AIO_ETC/openrc"
    {
        cat <<EOF
user glance
user placement
user nova service
user neutron service
service glance image http://127.0.0.1:9292
service placement placement http://127.0.0.1:8778
service nova compute http://127.0.0.1:8774/v2.1
service neutron network http://127.0.0.1:9696
EOF
        if zun_enabled; then
            zun_register
        fi
        if cinder_enabled; then
            cinder_register
        fi
    } | SERVICE_PASS=$SERVICE_PASS timeout 300 /usr/bin/python3 \
        "$here/register.py" || {
        aio_log "keystone: registering failed; the end of /var/log/keystone/keystone.log:"
        grep -v 'Respawned\|DAMN' /var/log/keystone/keystone.log | tail -n 5 >&2
        return 1
    }
}

libvirtd_sees_lxc_roots() {
    local pid
    pid=$(pgrep -n -x libvirtd) || return 1
    virsh -c lxc:/// uri >/dev/null 2>&1 \
        && grep -q " $lxc_roots " "/proc/$pid/mountinfo" 2>/dev/null
}

start_libvirt() {
    # libvirtd as rcbench runs it: on a hybrid cgroup host in a mount
    # namespace of its own without the cgroup2 mount (libvirt-LXC needs
    # that). Nova mounts each LXC instance's root under $lxc_roots on the
    # host; libvirtd sees those mounts only if that directory is a shared
    # mount before its namespace is made (this host's / is private).
    mkdir -p "$lxc_roots"
    mountpoint -q "$lxc_roots" || mount --bind "$lxc_roots" "$lxc_roots"
    mount --make-shared "$lxc_roots"
    "$rcbench" engines start kvm >/dev/null
    if ! libvirtd_sees_lxc_roots; then
        aio_log "libvirtd started before this cloud (no LXC driver or" \
            "mounts): restarting it"
        "$rcbench" engines stop kvm >/dev/null
        "$rcbench" engines start kvm >/dev/null
        wait_for "libvirtd with the LXC driver and $lxc_roots" 30 \
            libvirtd_sees_lxc_roots
    fi
}

start_daemons() {
    local name user argv
    mkdir -p /var/lib/nova/tmp /var/lib/neutron/lock /run/lock/nova
    chown nova:nova /var/lib/nova/tmp
    chown neutron:neutron /var/lib/neutron/lock
    # Each start's L2 agent logs alone: the cloud tests read them for
    # resyncs (test_compute_host_load), and they grew without end.
    local log
    for log in /var/log/neutron/linuxbridge-agent-*.log; do
        [ ! -e "$log" ] || : > "$log"
    done
    while read -r name user argv; do
        # shellcheck disable=SC2086
        aio_start "$name" "$user" $argv
        case $name in
        keystone)
            wait_port keystone 5000
            aio_log "keystone: service users, services, endpoints"
            quiet register_services
            ;;
        glance-api) wait_port glance 9292 ;;
        placement-api) wait_port placement 8778 ;;
        nova-api) wait_port nova 8774 ;;
        neutron-api) wait_port neutron 9696 ;;
        kuryr-libnetwork) wait_port kuryr-libnetwork "$AIO_KURYR_PORT" ;;
        dockerd-zun) wait_for "the Zun host's dockerd" 60 zun_docker info ;;
        zun-api) wait_port zun "$AIO_ZUN_PORT" ;;
        ceph-mon)
            wait_port ceph-mon 6789
            quiet ceph_osd_prepare
            ;;
        ceph-osd) ceph_pool ;;
        cinder-api) wait_port cinder "$AIO_CINDER_PORT" ;;
        esac
    done < <(aio_daemons)
    aio_log "daemons started"
}

# A deadline in seconds, not a count of tries: a try of two openstack CLI
# calls takes 2-4 s beside the quickstart, and 360 tries took 27 min.
wait_for() {  # what seconds command...
    local what=$1 seconds=$2 t0=$SECONDS
    shift 2
    while [ $(( SECONDS - t0 )) -lt "$seconds" ]; do
        if "$@" >/dev/null 2>&1; then
            log_if_slow "$what" "$t0"
            return 0
        fi
        sleep 1
    done
    aio_log "$what: not within $seconds s; logs in $AIO_LOG"
    return 1
}

# Nova's API lists a hypervisor only once its host is mapped to a cell;
# nothing maps them periodically (configure.sh), so a try maps new ones.
computes_up() {
    local up
    up=$(openstack compute service list --service nova-compute -f value -c Host -c State | grep -c ' up$')
    [ "$up" -ge ${#AIO_COMPUTES[@]} ] || return 1
    quiet as nova nova-manage cell_v2 discover_hosts
    [ "$(openstack hypervisor list -f value -c ID | wc -l)" -ge ${#AIO_COMPUTES[@]} ]
}

# Every agent alive by its host name, and its process still running (an
# agent that dies right after its first report stays "alive" for 75 s).
agents_up() {
    local hosts=("${AIO_COMPUTES[@]/#/aio-}") alive host name
    if zun_enabled; then
        hosts+=("$AIO_ZUN_HOST")
    fi
    for name in $(aio_daemons | awk '$1 ~ /^neutron-.*agent/ {print $1}'); do
        aio_pid "$name" >/dev/null || return 1
    done
    # -f value keeps the table's column order: Host, Alive, Binary.
    alive=$(openstack network agent list -f value -c Host -c Alive -c Binary)
    grep -q ' True neutron-dhcp-agent$' <<< "$alive" || return 1
    for host in "${hosts[@]}"; do
        grep -qx "$host True neutron-linuxbridge-agent" <<< "$alive" || return 1
    done
}

# Nothing setup.sh started has died since (else its log's end, and fail).
all_running() {
    local name dead
    dead=$(aio_dead)
    [ -z "$dead" ] && return 0
    for name in $dead; do
        aio_log "$name is not running; the end of its log:"
        tail -n 15 "$AIO_LOG/$name.log" >&2 2>/dev/null
    done
    return 1
}

zun_compute_up() {
    openstack appcontainer service list -f value -c Host -c State \
        | grep -q "^$AIO_ZUN_HOST up$"
}

# The schemas are synced once per setup code and package set: CI syncs
# them with --prepare beside its tests (~1 min of CPU), and the run that
# starts the daemons skips them. stop.sh --purge forgets the stamp.
schemas_key() {
    {
        dpkg-query -W -f '${Package}=${Version}\n' "${AIO_PACKAGES[@]}" \
            "${AIO_CINDER_PACKAGES[@]}" 2>/dev/null
        cat "$AIO_ZUN_VENV/.rcbench-requirements" 2>/dev/null
        cat "$here"/*.sh
        # keystone's bootstrap sets the admin's password from them
        cat "$AIO_ETC/secrets"
    } | sha256sum | cut -d' ' -f1
}

keystone_keys_present() {
    [ -n "$(ls -A /etc/keystone/fernet-keys 2>/dev/null)" ] \
        && [ -n "$(ls -A /etc/keystone/credential-keys 2>/dev/null)" ]
}

sync_databases_once() {
    local want
    want=$(schemas_key)
    # and what the sync made outside the databases is still there (a
    # purged and reinstalled keystone kept its databases but lost its
    # keys: every token request then killed a worker)
    if [ "$(cat "$AIO_SCHEMAS_STAMP" 2>/dev/null)" = "$want" ] \
            && keystone_keys_present; then
        aio_log "database schemas: synced already (--prepare)"
        return 0
    fi
    aio_log "database schemas"
    quiet sync_databases
    echo "$want" > "$AIO_SCHEMAS_STAMP"
}

# What a ready cloud was made of: the code, packages and secrets, and the
# processes it runs on (every daemon here, Zun's dockerd among them: a
# restarted one lost Zun's networks, which the full run finds and forgets;
# the backends, rcbench's libvirtd).
ready_key() {
    local name
    schemas_key
    for name in $(aio_daemons | awk '{print $1}'); do
        echo "$name $(aio_pid "$name" || true)"
    done
    cat /run/rcbench/libvirtd.pid 2>/dev/null || true
    pidof mariadbd beam.smp memcached || true
    echo "virt=${AIO_VIRT_TYPE:-} zun=${AIO_ZUN:-} cinder=${AIO_CINDER:-}"
}

# The cloud this script made ready still runs as it left it, and every
# compute host answers: nothing to do. CI's OpenStack stage calls
# setup.sh right after its start beside the quickstart; the full run
# spent ~1 min on API calls that change nothing (66 s in CI).
still_ready() {
    [ -s "$AIO_READY" ] && [ "$(cat "$AIO_READY")" = "$(ready_key | sha256sum)" ] \
        && hosts_up
}

provider_network() {
    openstack network show "$AIO_NETWORK" >/dev/null 2>&1 \
        || openstack network create --share --external \
            --provider-physical-network provider --provider-network-type flat \
            "$AIO_NETWORK" >/dev/null
    openstack subnet show "$AIO_NETWORK" >/dev/null 2>&1 \
        || openstack subnet create --network "$AIO_NETWORK" \
            --subnet-range "$AIO_CIDR" --gateway "$AIO_GATEWAY" \
            --allocation-pool "start=$AIO_POOL_START,end=$AIO_POOL_END" \
            --dns-nameserver "$AIO_GATEWAY" "$AIO_NETWORK" >/dev/null
}

if [ -z "${1:-}" ] && still_ready; then
    aio_log "running and ready already (since $(date -r "$AIO_READY" +%H:%M:%S)):" \
        "source $AIO_ETC/openrc; rally env create --name aio --spec $AIO_ETC/rally-env.json"
    exit 0
fi
rm -f "$AIO_READY"
install_packages
if zun_enabled; then
    zun_install
fi
if [ "${1:-}" = --install-only ]; then
    aio_log "installed in $(( $(date +%s) - started )) s (--install-only)"
    exit 0
fi
load_secrets
aio_log "configuring"
hosts_configure
aio_configure
if zun_enabled; then
    zun_configure
fi
if cinder_enabled; then
    cinder_configure
fi
provider_link
hosts_network
start_backends
sync_databases_once
write_openrc
if [ "${1:-}" = --prepare ]; then
    aio_log "prepared in $(( $(date +%s) - started )) s (--prepare: no" \
        "OpenStack service started yet)"
    exit 0
fi
start_libvirt
if [ "${1:-}" = --engines ]; then
    "$rcbench" engines start
    exit 0
fi
aio_log "starting daemons"
if [ -z "$(aio_pid neutron-linuxbridge-agent-qemu)" ]; then
    neutron_ebtables_reset
fi
start_daemons
# shellcheck disable=SC1091
source "$AIO_ETC/openrc"
wait_for "neutron agents (linuxbridge, dhcp) alive" 240 agents_up
provider_network
wait_for "the ${#AIO_COMPUTES[@]} nova-compute services up" 360 computes_up
wait_for "a login to every compute host (hosts.sh)" 60 hosts_up
if zun_enabled; then
    wait_for "zun-compute up" 240 zun_compute_up
    # Rows a machine kept from an earlier cloud whose Docker networks went
    # (a killed stop.sh, a reset dockerd) would fail every Zun container.
    zun_forget_stale_networks
    zun_forget_stale_allocations
fi
if cinder_enabled; then
    wait_for "cinder-volume up" 240 cinder_volume_up
fi
# Just started: no task runs against it, so what Rally named is a killed
# run's (a server of one would run on beside every later measurement).
/usr/bin/python3 "$here/leftovers.py" 2>&1 \
    | while read -r line; do aio_log "$line"; done \
    || aio_log "leftovers.py failed (above): a killed run's resources may remain"
all_running || { aio_log "the cloud is not whole: see above"; exit 1; }
ready_key | sha256sum > "$AIO_READY"
aio_log "ready in $(( $(date +%s) - started )) s: source $AIO_ETC/openrc;" \
    "rally env create --name aio --spec $AIO_ETC/rally-env.json"
