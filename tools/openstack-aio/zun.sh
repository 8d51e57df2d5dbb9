# Zun (OpenStack's container service) for the all-in-one cloud: zun-api,
# zun-compute on a Docker Engine of its own (zun-dockerd.sh: its
# containers on the Zun host's one CPU, the last, as aio-lxc-2's),
# kuryr-libnetwork for Neutron ports, and a linuxbridge agent named after
# the Zun host. Sourced by setup.sh (after common.sh and configure.sh);
# AIO_ZUN=0 leaves Zun out.
#
# Debian bookworm packages no Zun and its Zed oslo/SQLAlchemy are too old
# for Zun 18, so Zun and kuryr-libnetwork live in a virtualenv of their
# own from PyPI. pyroute2 stays below 0.8: kuryr-lib's veth binding still
# uses pyroute2.IPDB, which 0.8 removed.
# shellcheck shell=bash

AIO_ZUN_VENV=/opt/rcbench-aio/zun-venv
AIO_ZUN_PIP=(zun==18.0.0 kuryr-libnetwork==18.0.0 kuryr-lib==3.5.0
    'pyroute2>=0.7,<0.8' PyMySQL python-memcached)
# zun-compute manages the node Docker names (its host name) and only if
# [DEFAULT] host is the same name; the linuxbridge agent that binds its
# ports carries it too.
AIO_ZUN_HOST=$(hostname)
AIO_ZUN_PORT=9517
AIO_KURYR_PORT=23750
# The Zun host's dockerd: not rcbench's (the local engines' and CI's
# engine faults stop and kill that one), and its containers in a cgroup of
# the Zun host's CPUs.
AIO_ZUN_DOCKER_SOCKET=$AIO_RUN/docker-zun.sock
AIO_ZUN_DOCKER=unix://$AIO_ZUN_DOCKER_SOCKET
AIO_ZUN_DOCKER_ROOT=/var/lib/rcbench-aio/docker-zun
AIO_ZUN_DOCKER_CONFIG=$AIO_ETC/docker-zun.json
# its default bridge (zun-dockerd.sh); stop.sh removes it
AIO_ZUN_BRIDGE=rcb-zun0

zun_docker() { docker -H "$AIO_ZUN_DOCKER" "$@"; }

zun_enabled() { [ "${AIO_ZUN:-1}" != 0 ]; }

zun_install() {
    local marker=$AIO_ZUN_VENV/.rcbench-requirements
    if [ -x "$AIO_ZUN_VENV/bin/zun-api" ] \
            && [ "$(cat "$marker" 2>/dev/null)" = "${AIO_ZUN_PIP[*]}" ]; then
        return 0
    fi
    aio_log "Zun and kuryr-libnetwork into $AIO_ZUN_VENV from PyPI (~1-2 min)"
    rm -rf "$AIO_ZUN_VENV"
    python3 -m venv "$AIO_ZUN_VENV"
    "$AIO_ZUN_VENV/bin/pip" install -q --disable-pip-version-check \
        "${AIO_ZUN_PIP[@]}"
    echo "${AIO_ZUN_PIP[*]}" > "$marker"
}

zun_configure() {
    local db="mysql+pymysql://openstack:$DB_PASS@127.0.0.1"
    local rabbit="rabbit://openstack:$RABBIT_PASS@127.0.0.1:5672/"
    # service_auth and client_auth (configure.sh) read auth_url.
    local auth_url=http://127.0.0.1:5000/v3
    mkdir -p /var/lib/zun/images /var/lib/zun/tmp /var/log/zun /var/log/kuryr
    mkdir -p /etc/zun
    install -m 644 "$AIO_ZUN_VENV/etc/zun/api-paste.ini" /etc/zun/api-paste.ini
    # zun-compute runs as root: it drives Docker and plugs veths through
    # privsep, whose helper it finds on PATH (the venv's bin, see
    # aio_daemons).
    write_conf /etc/zun/zun.conf root <<EOF
[DEFAULT]
host = $AIO_ZUN_HOST
my_ip = $AIO_GATEWAY
state_path = /var/lib/zun
transport_url = $rabbit
container_driver = docker
image_driver_list = glance,docker
default_image_driver = glance
# its periodic tasks (the host's inventory, container states, heartbeat)
# every 2 min, not every minute (configure.sh's nova.conf)
periodic_interval_max = 120
sync_container_state_interval = 120
[api]
host_ip = 127.0.0.1
port = $AIO_ZUN_PORT
workers = 2
api_paste_config = /etc/zun/api-paste.ini
[database]
connection = $db/zun
[keystone_authtoken]
$(service_auth zun)
[keystone_auth]
$(client_auth zun)
[oslo_concurrency]
lock_path = /var/lib/zun/tmp
[oslo_messaging_rabbit]
heartbeat_timeout_threshold = 0
[glance]
images_directory = /var/lib/zun/images
[docker]
api_url = $AIO_ZUN_DOCKER
# Docker's create/start of a container waits for kuryr's Neutron port:
# with 16 and 32 at once on 2 cores that took longer than Zun's default
# 60 s ("Read timed out", the container in Error). KEK's ladder needs more.
default_timeout = 600
[network]
driver = kuryr
[websocket_proxy]
wsproxy_host = 127.0.0.1
base_url = ws://127.0.0.1:6784/
EOF
    # Docker >= 23 has no cluster store: kuryr's networks are local scope.
    write_conf /etc/kuryr/kuryr.conf root <<EOF
[DEFAULT]
bindir = $AIO_ZUN_VENV/libexec/kuryr
kuryr_uri = http://127.0.0.1:$AIO_KURYR_PORT
capability_scope = local
process_external_connectivity = false
log_file = /var/log/kuryr/kuryr-server.log
[neutron]
$(client_auth kuryr)
EOF
    # Docker finds network plugins by their spec files.
    mkdir -p /etc/docker/plugins
    echo "http://127.0.0.1:$AIO_KURYR_PORT" > /etc/docker/plugins/kuryr.spec
    # The OCI runtimes rcbench's dockerd knows (runsc: zun_runtime runsc).
    "$top/.venv/bin/python" -c 'import json, sys
from rally_container_bench import opts
from rally_container_bench.engines.oci import runtimes
json.dump({"runtimes": runtimes.docker_runtimes(opts.register())},
          open(sys.argv[1], "w"), indent=1)' "$AIO_ZUN_DOCKER_CONFIG"
    ln -sf /usr/bin/neutron-linuxbridge-agent "$AIO_ETC/bin/lb-agent-zun"
    write_conf "$AIO_ETC/neutron-agent-zun.conf" neutron <<EOF
[DEFAULT]
host = $AIO_ZUN_HOST
log_file = /var/log/neutron/linuxbridge-agent-zun.log
EOF
}

# The Zun daemons, in the format of aio_daemons. zun-compute imports
# grpcio (its CRI capsule driver); grpc's fork handlers abort the children
# it forks for lspci and friends ("epoll_wait error: Bad file descriptor",
# exit -6) unless fork support is off.
zun_daemons() {
    local bin=$AIO_ZUN_VENV/bin
    cat <<EOF
neutron-linuxbridge-agent-zun root $AIO_ETC/bin/lb-agent-zun --config-file=/etc/neutron/neutron.conf --config-file=/etc/neutron/plugins/ml2/ml2_conf.ini --config-file=/etc/neutron/plugins/ml2/linuxbridge_agent.ini --config-file=$AIO_ETC/neutron-agent-zun.conf
kuryr-libnetwork root /usr/bin/env PATH=$bin:/usr/sbin:/usr/bin:/sbin:/bin $bin/kuryr-server --config-file=/etc/kuryr/kuryr.conf
dockerd-zun root $AIO_HERE/zun-dockerd.sh $(aio_last_cpu) $AIO_CGROUP/zun-containers $AIO_ZUN_DOCKER_SOCKET $AIO_ZUN_DOCKER_ROOT $AIO_ZUN_DOCKER_CONFIG $AIO_ZUN_BRIDGE
zun-api root $bin/zun-api --config-file=/etc/zun/zun.conf --log-file=/var/log/zun/zun-api.log
zun-compute root /usr/bin/env PATH=$bin:/usr/sbin:/usr/bin:/sbin:/bin GRPC_ENABLE_FORK_SUPPORT=0 $bin/zun-compute --config-file=/etc/zun/zun.conf --log-file=/var/log/zun/zun-compute.log
EOF
}

zun_database() {
    mysql -u root -e "CREATE DATABASE IF NOT EXISTS zun; GRANT ALL PRIVILEGES ON zun.* TO 'openstack'@'127.0.0.1'; GRANT ALL PRIVILEGES ON zun.* TO 'openstack'@'localhost';"
    "$AIO_ZUN_VENV/bin/zun-db-manage" --config-file /etc/zun/zun.conf upgrade
}

# register.py's lines for Zun (setup.sh's register_services).
zun_register() {
    cat <<EOF
user zun
user kuryr
service zun container http://127.0.0.1:$AIO_ZUN_PORT/v1
EOF
}

# Zun's rows whose Docker network is gone: such a row makes every container
# on that Neutron network fail with "A network with UUID ... already
# exists" (Zun tries to make the network again and trips on its own row).
# setup.sh calls it alone: a cloud being reused keeps its containers and
# their networks.
zun_forget_stale_networks() {
    local name
    zun_docker info >/dev/null 2>&1 || return 0
    for name in $(mysql -N -e "SELECT DISTINCT name FROM zun.network" 2>/dev/null); do
        [[ $name =~ ^[0-9a-f-]+$ ]] || continue
        zun_docker network inspect "$name" >/dev/null 2>&1 && continue
        mysql -e "DELETE FROM zun.network WHERE name = '$name'" \
            && aio_log "forgot Zun's network $name (Docker has it no more)"
    done
}

# Placement allocations on Zun's host of containers Zun no longer knows: a
# run killed mid-way (or a container Zun failed) can leave them, and each
# holds a VCPU of the 32 a 2-core host offers; 9 of them made 9 of 32 at
# once fail (HTTP 500, Placement's 409). rcbench_zun_capacity names such a
# shortfall before a task boots; here the test cloud drops them.
zun_forget_stale_allocations() {
    local stale
    stale=$(mysql -N -e "SELECT COUNT(DISTINCT a.consumer_id) FROM placement.allocations a JOIN placement.resource_providers r ON r.id = a.resource_provider_id WHERE r.name = '$AIO_ZUN_HOST' AND a.consumer_id NOT IN (SELECT uuid FROM zun.container)" 2>/dev/null) || return 0
    [ "${stale:-0}" -gt 0 ] || return 0
    if mysql placement -e "DELETE a FROM allocations a JOIN resource_providers r ON r.id = a.resource_provider_id WHERE r.name = '$AIO_ZUN_HOST' AND a.consumer_id NOT IN (SELECT uuid FROM zun.container)"; then
        aio_log "dropped Placement allocations of $stale containers Zun no longer knows"
    else
        aio_log "could not drop Placement allocations of $stale containers Zun no longer knows"
    fi
}

# Zun's leftover containers (Docker names them zun-<uuid>), kuryr's Docker
# networks, then Zun's rows of them. Needs kuryr-libnetwork running.
zun_forget_networks() {
    local container network
    zun_docker info >/dev/null 2>&1 || return 0
    for container in $(zun_docker ps -aq --filter name=^zun-); do
        zun_docker rm -f "$container" >/dev/null 2>&1 \
            && aio_log "removed leftover Zun container $container"
    done
    for network in $(zun_docker network ls -q --filter driver=kuryr); do
        zun_docker network rm "$network" >/dev/null 2>&1
    done
    zun_forget_stale_networks
}
