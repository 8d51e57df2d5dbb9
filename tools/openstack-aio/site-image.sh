#!/bin/bash
# Upload the stand-in for a site's cloud image (images/cloud_image.py: a
# whole disk with cloud-init, no sysbench, no key; built offline here
# when it is not cached) to the all-in-one cloud's Glance as an operator
# uploads theirs: qcow2, bare, public, hypervisor_type qemu, no kernel of
# its own. Idempotent: an image of that name and build is kept; one of an
# older build is replaced.
#   tools/openstack-aio/site-image.sh [NAME]   (default rcbench-cloud-standin)
# Then tasks/args/aio-site-image.yaml boots it (kvm_image: NAME).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
name="${1:-rcbench-cloud-standin}"
# shellcheck source=/dev/null
source /etc/rcbench-aio/openrc
disk=$("$top/.venv/bin/rcbench" images build --cloud-standin | tail -n 1)/disk.qcow2
build=$(basename "$(dirname "$disk")")
for id in $(openstack image list --name "$name" -f value -c ID); do
    if [ "$(openstack image show "$id" -f json -c properties \
            | python3 -c 'import json,sys; print(json.load(sys.stdin)["properties"].get("rcbench_standin",""))')" = "$build" ]; then
        echo "$name ($id) is the stand-in $build already"
        exit 0
    fi
    openstack image delete "$id"
done
openstack image create "$name" --disk-format qcow2 --container-format bare \
    --public --property hypervisor_type=qemu \
    --property rcbench_standin="$build" --file "$disk" -f value -c id
