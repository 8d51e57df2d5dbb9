# Cinder for the all-in-one cloud, on a one-OSD Ceph cluster: the block
# storage behind NovaInstances.boot_volume_sysbench_delete (KEK's
# "volume"). Sourced by setup.sh and stop.sh (after common.sh and
# configure.sh); AIO_CINDER=0 leaves it out.
#
# Why Ceph: Cinder's LVM backend needs device-mapper and an iSCSI or
# NVMe-oF initiator, and NFS a kernel client; this machine's kernel has
# none of them. QEMU reaches an RBD volume through librbd in user space,
# so Nova attaches it with no kernel help. One monitor, one manager and one
# BlueStore OSD on a sparse file, all on 127.0.0.1, pools of size 1, cephx
# off (no key reaches a config file or a domain's XML).
# shellcheck shell=bash

AIO_CINDER_PACKAGES=(ceph-mon ceph-mgr ceph-osd python3-rados python3-rbd
    qemu-block-extra cinder-api cinder-scheduler cinder-volume)
AIO_CEPH_DIR=/var/lib/ceph/rcbench-aio
AIO_CEPH_POOL=volumes
AIO_CEPH_OSD_BYTES=$(( 8 << 30 ))
AIO_CINDER_PORT=8776

cinder_enabled() { [ "${AIO_CINDER:-1}" != 0 ]; }

cinder_configure() {
    local db="mysql+pymysql://openstack:$DB_PASS@127.0.0.1"
    local rabbit="rabbit://openstack:$RABBIT_PASS@127.0.0.1:5672/"
    # service_auth and client_auth (configure.sh) read auth_url.
    local auth_url=http://127.0.0.1:5000/v3
    ceph_configure
    mkdir -p /var/lib/cinder/tmp /var/log/cinder
    chown cinder:cinder /var/lib/cinder /var/lib/cinder/tmp /var/log/cinder
    uwsgi_ini cinder-api "$AIO_CINDER_PORT" /usr/bin/cinder-wsgi cinder \
        /var/log/cinder/cinder-api.log 2 1
    write_conf /etc/cinder/cinder.conf cinder <<EOF
[DEFAULT]
my_ip = 127.0.0.1
state_path = /var/lib/cinder
log_dir = /var/log/cinder
transport_url = $rabbit
auth_strategy = keystone
enabled_backends = ceph
glance_api_servers = http://127.0.0.1:9292
# heartbeats and Ceph's pool statistics less often (configure.sh's nova.conf)
report_interval = 30
service_down_time = 120
backend_stats_polling_interval = 300
[database]
connection = $db/cinder
[keystone_authtoken]
$(service_auth cinder)
[nova]
$(client_auth nova)
[oslo_concurrency]
lock_path = /var/lib/cinder/tmp
[oslo_messaging_rabbit]
heartbeat_timeout_threshold = 0
[ceph]
volume_driver = cinder.volume.drivers.rbd.RBDDriver
volume_backend_name = ceph
rbd_pool = $AIO_CEPH_POOL
rbd_ceph_conf = /etc/ceph/ceph.conf
EOF
}

# ceph.conf is world-readable: QEMU (libvirt-qemu) reads it through
# librbd, and it holds no key. The monitor's "low on space" warning and
# its stop below 5 % free are for real clusters; this one is disposable.
# The OSD stops cleanly (its BlueStore unmounted), not at once: after a
# fast shutdown, stop.sh's SIGTERM, one restart found bad crc32c checksums
# and the OSD aborted (2026-11-29; stop.sh --purge to start over).
ceph_configure() {
    mkdir -p "$AIO_CEPH_DIR/mon" "$AIO_CEPH_DIR/mgr/ceph-x" "$AIO_CEPH_DIR/osd"
    [ -s "$AIO_CEPH_DIR/fsid" ] \
        || python3 -c 'import uuid; print(uuid.uuid4())' > "$AIO_CEPH_DIR/fsid"
    install -m 644 /dev/null /etc/ceph/ceph.conf
    cat > /etc/ceph/ceph.conf <<EOF
[global]
fsid = $(cat "$AIO_CEPH_DIR/fsid")
mon_host = [v2:127.0.0.1:3300,v1:127.0.0.1:6789]
public_network = 127.0.0.0/8
auth_cluster_required = none
auth_service_required = none
auth_client_required = none
osd_pool_default_size = 1
osd_pool_default_min_size = 1
mon_allow_pool_size_one = true
mon_warn_on_pool_no_redundancy = false
mon_data_avail_warn = 2
mon_data_avail_crit = 1
osd_crush_chooseleaf_type = 0
log_file = /var/log/ceph/\$cluster-\$name.log
[mon]
mon_data = $AIO_CEPH_DIR/mon/\$cluster-\$id
[mgr]
mgr_data = $AIO_CEPH_DIR/mgr/\$cluster-\$id
[osd]
osd_data = $AIO_CEPH_DIR/osd/\$cluster-\$id
osd_objectstore = bluestore
bluestore_block_path = $AIO_CEPH_DIR/osd/block
bluestore_block_create = true
bluestore_block_size = $AIO_CEPH_OSD_BYTES
osd_memory_target = 1073741824
osd_fast_shutdown = false
EOF
    if [ ! -e "$AIO_CEPH_DIR/mon/ceph-a/store.db" ]; then
        monmaptool --create --clobber --fsid "$(cat "$AIO_CEPH_DIR/fsid")" \
            --addv a '[v2:127.0.0.1:3300,v1:127.0.0.1:6789]' \
            "$AIO_CEPH_DIR/monmap" >/dev/null
        ceph-mon --mkfs -i a --monmap "$AIO_CEPH_DIR/monmap"
    fi
    mkdir -p /var/log/ceph
    chown -R ceph:ceph "$AIO_CEPH_DIR" /var/log/ceph
}

# With the monitor up: the OSD's id and its BlueStore, made once.
ceph_osd_prepare() {
    [ -e "$AIO_CEPH_DIR/osd/ceph-0/whoami" ] && return 0
    local uuid
    uuid=$(python3 -c 'import uuid; print(uuid.uuid4())')
    ceph osd new "$uuid" 0 >/dev/null
    mkdir -p "$AIO_CEPH_DIR/osd/ceph-0"
    chown ceph:ceph "$AIO_CEPH_DIR/osd/ceph-0"
    as ceph ceph-osd -i 0 --mkfs --osd-uuid "$uuid"
    ceph osd crush add osd.0 1.0 host=aio root=default >/dev/null
}

ceph_osd_up() { ceph osd dump 2>/dev/null | grep -q '^osd.0 up'; }

ceph_pool() {
    if ! wait_for "ceph osd.0 up" 60 ceph_osd_up; then
        aio_log "ceph-osd is not up; the end of its log ($AIO_LOG/ceph-osd.log):"
        tail -n 15 "$AIO_LOG/ceph-osd.log" | cut -c1-300 >&2
        return 1
    fi
    if ! ceph osd pool ls | grep -qx "$AIO_CEPH_POOL"; then
        ceph osd pool create "$AIO_CEPH_POOL" 16 >/dev/null 2>&1
        rbd pool init "$AIO_CEPH_POOL" >/dev/null
    fi
}

# The Ceph and Cinder daemons, in the format of aio_daemons.
cinder_daemons() {
    cat <<EOF
ceph-mon ceph /usr/bin/ceph-mon -f -i a
ceph-mgr ceph /usr/bin/ceph-mgr -f -i x
ceph-osd ceph /usr/bin/ceph-osd -f -i 0
cinder-api cinder /usr/bin/uwsgi_python3 --ini $AIO_ETC/uwsgi/cinder-api.ini
cinder-scheduler cinder /usr/bin/cinder-scheduler --config-file=/etc/cinder/cinder.conf
cinder-volume cinder /usr/bin/cinder-volume --config-file=/etc/cinder/cinder.conf
EOF
}

cinder_database() {
    mysql -u root -e "CREATE DATABASE IF NOT EXISTS cinder; GRANT ALL PRIVILEGES ON cinder.* TO 'openstack'@'127.0.0.1'; GRANT ALL PRIVILEGES ON cinder.* TO 'openstack'@'localhost';"
    as cinder cinder-manage db sync
}

# register.py's lines for Cinder. Rally looks it up as block-storage,
# Nova as volumev3: one endpoint, both service types.
cinder_register() {
    local url="http://127.0.0.1:$AIO_CINDER_PORT/v3/%(project_id)s"
    cat <<EOF
user cinder
service cinder block-storage $url
service cinderv3 volumev3 $url
EOF
}

cinder_volume_up() {
    openstack volume service list --service cinder-volume -f value -c State \
        | grep -q '^up$'
}
