#!/bin/bash
# The last ERROR lines of every service of the test cloud, for a failed run
# (CI prints them before it stops the cloud). Credentials in URLs masked.
#   tools/openstack-aio/errors.sh [LINES per log, default 30]
lines=${1:-30}
for log in /var/log/keystone/*.log /var/log/glance/*.log \
        /var/log/placement/*.log /var/log/nova/*.log /var/log/neutron/*.log \
        /var/log/zun/*.log /var/log/kuryr/*.log; do
    [ -f "$log" ] || continue
    found=$(grep -a " ERROR " "$log" | tail -n "$lines")
    [ -n "$found" ] || continue
    echo "=== $log (last $lines ERROR lines)"
    printf '%s\n' "$found" | sed -E 's#://[^:@/ ]+:[^@/ ]+@#://***:***@#g' \
        | cut -c1-400
done
