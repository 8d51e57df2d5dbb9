# Config files of the all-in-one cloud, written whole every time (setup.sh
# sources this after secrets.sh). Only what differs from the defaults.
# shellcheck shell=bash

aio_configure() {
    local db="mysql+pymysql://openstack:$DB_PASS@127.0.0.1"
    local rabbit="rabbit://openstack:$RABBIT_PASS@127.0.0.1:5672/"
    local auth_url=http://127.0.0.1:5000/v3

    # A service's [keystone_authtoken] (and the same for other sections
    # where a service calls another as itself).
    service_auth() {
        cat <<EOF
www_authenticate_uri = $auth_url
auth_url = $auth_url
memcached_servers = 127.0.0.1:11211
auth_type = password
project_domain_name = Default
user_domain_name = Default
project_name = service
username = $1
password = $SERVICE_PASS
region_name = RegionOne
EOF
    }
    # The same for a service calling another as itself (no token checks).
    client_auth() {
        service_auth "$1" | grep -v -e www_authenticate_uri -e memcached
    }
    # uWSGI APIs listen on loopback with few workers. AMQP heartbeats are
    # off on both ends (rabbitmq.conf too): a uWSGI worker runs no
    # eventlet hub between requests, so its heartbeats stop, RabbitMQ
    # drops the connection, and the next RPC cast (e.g. a server delete)
    # hangs. TCP keepalive still detects dead peers.
    uwsgi_ini() {  # name port wsgi-file user log processes threads
        write_conf "$AIO_ETC/uwsgi/$1.ini" "$4" <<EOF
[uwsgi]
http-socket = 127.0.0.1:$2
wsgi-file = $3
uid = $4
gid = $4
master = true
processes = $6
threads = $7
enable-threads = true
thunder-lock = true
lazy-apps = true
die-on-term = true
no-orphans = true
buffer-size = 65535
listen = 1024
http-keepalive = 1
add-header = Connection: close
logto = $5
name = $1
EOF
    }
    uwsgi_ini keystone 5000 /usr/bin/keystone-wsgi-public keystone \
        /var/log/keystone/keystone.log 2 8
    uwsgi_ini placement-api 8778 /usr/bin/placement-api placement \
        /var/log/placement/placement-api.log 2 4
    # nova-api and neutron-api monkey-patch eventlet: one thread per
    # worker. With uWSGI threads, neutron's pecan request state leaks
    # between threads (KeyError 'query_params', HTTP 500 under load, and
    # "greenlet.error: cannot switch to a different thread").
    uwsgi_ini nova-api 8774 /usr/bin/nova-api-wsgi nova \
        /var/log/nova/nova-api.log 3 1
    uwsgi_ini neutron-api 9696 /usr/bin/neutron-api neutron \
        /var/log/neutron/neutron-api.log 3 1

    write_conf /etc/rabbitmq/rabbitmq.conf rabbitmq <<EOF
listeners.tcp.default = 127.0.0.1:5672
heartbeat = 0
EOF

    write_conf /etc/keystone/keystone.conf keystone <<EOF
[DEFAULT]
log_dir = /var/log/keystone
[database]
connection = $db/keystone
[token]
provider = fernet
[identity]
# bcrypt's cheapest cost: at its default (12) each password check took
# 0.27 s of CPU here, and the cloud tests ask for ~45 tokens a minute
# (every Rally client, context and CLI run): 0.6 of the two cores.
password_hash_rounds = 4
[cache]
enabled = true
backend = dogpile.cache.memcached
memcache_servers = 127.0.0.1:11211
EOF

    write_conf /etc/glance/glance-api.conf glance <<EOF
[DEFAULT]
bind_host = 127.0.0.1
bind_port = 9292
# one process, no parent polling its workers (see nova.conf's workers)
workers = 0
log_file = /var/log/glance/glance-api.log
enabled_backends = file:file
[database]
connection = $db/glance
[glance_store]
default_backend = file
[file]
filesystem_store_datadir = /var/lib/glance/images/
[keystone_authtoken]
$(service_auth glance)
[paste_deploy]
flavor = keystone
[oslo_messaging_rabbit]
heartbeat_timeout_threshold = 0
EOF

    write_conf /etc/placement/placement.conf placement <<EOF
[placement_database]
connection = $db/placement
[api]
auth_strategy = keystone
[keystone_authtoken]
$(service_auth placement)
EOF

    write_conf /etc/nova/nova.conf nova <<EOF
[DEFAULT]
state_path = /var/lib/nova
log_dir = /var/log/nova
my_ip = $AIO_GATEWAY
transport_url = $rabbit
rootwrap_config = /etc/nova/rootwrap.conf
# Periodic work a test cloud on the instances' own cores does less often
# (an idle cloud took 0.22 cores, 2026-11-28, in the windows where its
# instances and their twins are measured): heartbeats every 30 s, the
# resource audit every 5 min (claims write Placement as they happen), no
# info-cache healing (Neutron's events keep it).
report_interval = 30
service_down_time = 120
update_resources_interval = 300
heal_instance_info_cache_interval = -1
[api]
auth_strategy = keystone
[api_database]
connection = $db/nova_api
[database]
connection = $db/nova
[oslo_concurrency]
lock_path = /var/lib/nova/tmp
[oslo_messaging_rabbit]
heartbeat_timeout_threshold = 0
[keystone_authtoken]
$(service_auth nova)
[service_user]
send_service_user_token = true
$(client_auth nova)
[placement]
$(client_auth placement)
[neutron]
$(client_auth neutron)
[glance]
api_servers = http://127.0.0.1:9292
[scheduler]
workers = 1
# setup.sh maps the compute hosts (nova-manage cell_v2 discover_hosts)
discover_hosts_in_cells_interval = -1
[filter_scheduler]
enabled_filters = ComputeFilter,ComputeCapabilitiesFilter,ImagePropertiesFilter,AvailabilityZoneFilter,ServerGroupAntiAffinityFilter,ServerGroupAffinityFilter
[vnc]
enabled = false
[wsgi]
api_paste_config = /etc/nova/api-paste.ini
[cinder]
os_region_name = RegionOne
# One process each: a parent of workers polls them (eventlet's waitpid)
# 100 times a second, ~0.02 cores each of an idle cloud's 0.22 (2026-11-28).
[conductor]
workers = 1
[os_vif_linux_bridge]
use_ipv6 = false
EOF
    # The task's users may force a host ("zone:host": the scenarios'
    # spread argument puts a step's servers on every host of a kind);
    # Nova's default lets admins only.
    write_conf /etc/nova/policy.yaml nova <<EOF
"os_compute_api:servers:create:forced_host": ""
EOF

    # Compute services on one machine: each its own host name, instances
    # path and image cache (so neither one's cache manager removes the
    # other's), address (hosts.sh) and CPUs: its instances' vCPUs float on
    # the CPUs of its host (cpu_shared_set), where that host's twins run.
    local name address cpus
    while read -r name address cpus; do
        [[ $name == aio-* ]] || continue  # the Zun host
        name=${name#aio-}
        mkdir -p "$(aio_instances_path "$name")"
        write_conf "$AIO_ETC/nova-compute-$name.conf" nova <<EOF
[DEFAULT]
host = aio-$name
my_ip = $address
compute_driver = libvirt.LibvirtDriver
instances_path = $(aio_instances_path "$name")
log_file = /var/log/nova/nova-compute-$name.log
reserved_host_memory_mb = 1024
cpu_allocation_ratio = 32.0
ram_allocation_ratio = 1.0
[compute]
cpu_shared_set = $cpus
$(compute_libvirt "${name%-2}")
EOF
    done < <(aio_hosts)

    # Neutron binds a port only on a host with a live L2 agent of that
    # name: each compute service gets a linuxbridge agent of its own name
    # on the shared bridge. The agent's iptables chains are named after
    # its program name, hence one link per agent: each one's security
    # group rules live in chains of their own.
    mkdir -p "$AIO_ETC/bin"
    for name in "${AIO_COMPUTES[@]}"; do
        ln -sf /usr/bin/neutron-linuxbridge-agent "$AIO_ETC/bin/lb-agent-$name"
        write_conf "$AIO_ETC/neutron-agent-$name.conf" neutron <<EOF
[DEFAULT]
host = aio-$name
log_file = /var/log/neutron/linuxbridge-agent-$name.log
EOF
    done

    write_conf /etc/neutron/neutron.conf neutron <<EOF
[DEFAULT]
core_plugin = ml2
service_plugins =
auth_strategy = keystone
transport_url = $rabbit
log_dir = /var/log/neutron
api_workers = 2
rpc_workers = 1
rpc_state_report_workers = 1
notify_nova_on_port_status_changes = true
notify_nova_on_port_data_changes = true
dhcp_agents_per_network = 1
[experimental]
linuxbridge = true
[database]
connection = $db/neutron
[keystone_authtoken]
$(service_auth neutron)
[nova]
$(client_auth nova)
[oslo_concurrency]
lock_path = /var/lib/neutron/lock
[oslo_messaging_rabbit]
heartbeat_timeout_threshold = 0
[agent]
root_helper = sudo /usr/bin/neutron-rootwrap /etc/neutron/rootwrap.conf
EOF
    write_conf /etc/neutron/plugins/ml2/ml2_conf.ini neutron <<EOF
[ml2]
type_drivers = flat
tenant_network_types =
mechanism_drivers = linuxbridge
extension_drivers = port_security
[ml2_type_flat]
flat_networks = provider
EOF
    write_conf /etc/neutron/plugins/ml2/linuxbridge_agent.ini neutron <<EOF
[linux_bridge]
physical_interface_mappings = provider:$AIO_PROVIDER_IF
[vxlan]
enable_vxlan = false
[securitygroup]
enable_security_group = true
firewall_driver = iptables
# No ipsets: the agents share this machine's one set of them (a set is
# named after its security group, not its agent). One agent destroyed a
# set that another's rules still used; that one's iptables-restore then
# failed and it resynced every 2-3 s to the end of the run (20-30 times a
# minute, each with its whole ruleset logged as an error: 570 MB of
# log, and a share of both cores through the CI's cloud tests).
enable_ipset = false
EOF
    # The DHCP port, too, is bound only where an L2 agent of the same host
    # name runs.
    write_conf /etc/neutron/dhcp_agent.ini neutron <<EOF
[DEFAULT]
host = aio-${AIO_COMPUTES[0]}
interface_driver = linuxbridge
dhcp_driver = neutron.agent.linux.dhcp.Dnsmasq
enable_isolated_metadata = false
EOF
}

# The [libvirt] part of one compute service's config.
compute_libvirt() {
    case $1 in
    qemu)
        # On a host with hardware virtualization AIO_VIRT_TYPE=kvm; here
        # /dev/kvm is PVM, where stock guest kernels hang: QEMU TCG.
        cat <<EOF
[libvirt]
virt_type = ${AIO_VIRT_TYPE:-qemu}
cpu_mode = none
EOF
        ;;
    lxc)
        # Raw disks: the container's root is loop-mounted (this kernel
        # has no nbd, which qcow2 would need).
        cat <<EOF
[libvirt]
virt_type = lxc
images_type = raw
EOF
        ;;
    esac
}
