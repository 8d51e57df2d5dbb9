# The Debian bookworm (OpenStack Zed) packages of the all-in-one cloud.
# Sourced by setup.sh. nova-compute-qemu and nova-compute-lxc both ship
# /etc/nova/nova-compute.conf and conflict: the two compute services are
# plain nova-compute processes with config files of their own.
AIO_PACKAGES=(
    mariadb-server rabbitmq-server memcached python3-pymysql
    keystone glance placement-api
    nova-api nova-conductor nova-scheduler nova-compute nova-compute-qemu
    libvirt-daemon-driver-lxc libvirt-daemon-driver-qemu
    libvirt-daemon-system libvirt-clients qemu-system-x86 qemu-utils
    neutron-api neutron-rpc-server neutron-linuxbridge-agent
    neutron-dhcp-agent neutron-metadata-agent
    python3-openstackclient python3-zunclient genisoimage bridge-utils iptables ebtables
    dnsmasq-base iputils-ping procps pciutils numactl
    openssh-server lxcfs fuse3
)
# Packages that would ask to configure their database, register an
# endpoint or create an admin: setup.sh does it, the same way every time.
AIO_DEBCONF_PACKAGES=(keystone glance placement-api placement-common
    nova-common nova-api neutron-common neutron-api cinder-common cinder-api)
