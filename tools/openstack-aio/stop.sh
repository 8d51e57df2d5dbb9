#!/bin/bash
# Stop the all-in-one cloud of setup.sh: every daemon it started (reverse
# order, Zun's dockerd among them), the instances' libvirt domains,
# Neutron's dnsmasq and network namespaces, the provider veth pair,
# mariadb, rabbitmq, memcached and libvirtd. Packages and data stay:
# setup.sh starts the same cloud again.
#   tools/openstack-aio/stop.sh            stop
#   tools/openstack-aio/stop.sh --purge    also drop the databases, images
#                                          and instance files (start over)
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
# shellcheck source=common.sh
source "$here/common.sh"
# shellcheck source=zun.sh
source "$here/zun.sh"
# shellcheck source=cinder.sh
source "$here/cinder.sh"
rcbench=${RCBENCH:-$top/.venv/bin/rcbench}
purge=false
[ "${1:-}" = --purge ] && purge=true

[ "$(id -u)" = 0 ] || { echo "stop.sh: run as root" >&2; exit 1; }

# While kuryr-libnetwork still answers for its networks (a dockerd with
# kuryr networks and no kuryr stalls on them).
if zun_enabled; then
    zun_forget_networks
    # Zun's image cache in its dockerd, as Nova's and Zun's below
    zun_docker image prune --all --force >/dev/null 2>&1
fi

# Without kuryr running, its plugin spec makes dockerd wait for it (15 s)
# whenever it looks through its plugins: every anonymous volume (the
# workdir_volume knob) took 15 s to create. zun.sh writes it again.
rm -f /etc/docker/plugins/kuryr.spec

rm -f "$AIO_READY"
mapfile -t names < <(aio_daemons | awk '{print $1}')
for (( i=${#names[@]}-1; i>=0; i-- )); do
    aio_stop "${names[$i]}"
done

neutron_ebtables_reset

# Nova's domains (instance-%08x) on both hypervisors: a stopped compute
# service would leave them running.
for uri in qemu:///system lxc:///; do
    for domain in $(virsh -c "$uri" list --all --name 2>/dev/null | grep '^instance-'); do
        virsh -c "$uri" destroy "$domain" >/dev/null 2>&1
        virsh -c "$uri" undefine --nvram "$domain" >/dev/null 2>&1 \
            || virsh -c "$uri" undefine "$domain" >/dev/null 2>&1
        aio_log "removed leftover domain $domain ($uri)"
    done
done

for pidfile in /var/lib/neutron/dhcp/*/pid; do
    signal_recorded TERM "$pidfile"
done
for ns in $(ip netns list 2>/dev/null | awk '/^qdhcp-/{print $1}'); do
    ip netns delete "$ns"
done
for bridge in $(ip -o link show type bridge 2>/dev/null | awk -F': ' '{print $2}' | grep '^brq'); do
    ip link delete "$bridge" 2>/dev/null
done
ip link delete "$AIO_HOST_IF" 2>/dev/null
ip link delete "$AIO_ZUN_BRIDGE" 2>/dev/null
# kuryr-libnetwork's veth pairs (tap<port>@t_c<port>) of a Zun container
# whose endpoint was never deleted: both ends still in this namespace
# (found after a CI run, 2026-11-29). Deleting one end deletes the pair.
for veth in $(ip -o link show type veth 2>/dev/null | awk -F': ' '{print $2}' | grep '^t_c' | cut -d@ -f1); do
    ip link delete "$veth" 2>/dev/null && aio_log "removed kuryr's leftover veth $veth"
done
# The agents' iptables chains (named after their programs, lb-agent-*, and
# neutron-*) with the jumps into them; every other rule stays.
for table in filter raw mangle nat; do
    rules=$(iptables-save -t "$table" 2>/dev/null) || continue
    grep -q -E 'lb-agent-|neutron-' <<<"$rules" || continue
    grep -v -E 'lb-agent-|neutron-' <<<"$rules" | iptables-restore -T "$table"
done

# The compute hosts' namespaces, bridge, cgroups and lxcfs (hosts.sh).
hosts_remove

# setup.sh's shared bind mount of the LXC instances' roots.
# Lazily if busy: the mount is shared, and a peer copy in a namespace made
# while it existed (a container's) can hold it a little longer.
if mountpoint -q "$AIO_LXC_ROOTS"; then
    umount "$AIO_LXC_ROOTS" 2>/dev/null || umount -l "$AIO_LXC_ROOTS"
fi

# The compute services' image caches: Nova keeps a base file per Glance
# image (up to the disk size, 4 GiB here) for 24 h, Zun a tarball per image,
# and every workload uploads its own image. With the services stopped none
# is in use; left, they fill the disk over a few runs.
rm -rf /var/lib/nova/instances-*/_base/* "$AIO_LXC_ROOTS"/instances-*/_base/* \
    /var/lib/zun/images/*

/etc/init.d/rabbitmq-server stop >/dev/null 2>&1
epmd -kill >/dev/null 2>&1
if $purge; then
    aio_log "purging databases, images and instance files"
    rm -f "$AIO_SCHEMAS_STAMP"
    /etc/init.d/mariadb start >/dev/null 2>&1
    for name in keystone glance placement nova_api nova nova_cell0 neutron zun cinder; do
        mysql -u root -e "DROP DATABASE IF EXISTS $name"
    done
    rm -rf /var/lib/nova/instances-* "$AIO_LXC_ROOTS" /var/lib/glance/images/* /etc/keystone/fernet-keys \
        /etc/keystone/credential-keys /var/lib/neutron/dhcp /var/lib/zun/images \
        "$AIO_ZUN_DOCKER_ROOT" "$AIO_CEPH_DIR"
fi
/etc/init.d/mariadb stop >/dev/null 2>&1
/etc/init.d/memcached stop >/dev/null 2>&1
[ -x "$rcbench" ] && "$rcbench" engines stop kvm >/dev/null 2>&1
aio_log "stopped"
exit 0
