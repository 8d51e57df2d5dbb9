#!/bin/bash
# The last ERROR records of every service of the test cloud, for a failed
# run (CI prints them before it stops the cloud): a record's first line
# only (its traceback's lines repeat the prefix without a request context),
# those logged since SINCE (the logs' local "YYYY-MM-DD HH:MM:SS"; a
# machine's earlier runs stay in its logs), credentials in URLs masked.
#   tools/openstack-aio/errors.sh [RECORDS per log, default 8] [SINCE]
records=${1:-8}
since=${2:-}
for log in /var/log/keystone/*.log /var/log/glance/*.log \
        /var/log/placement/*.log /var/log/nova/*.log /var/log/neutron/*.log \
        /var/log/zun/*.log /var/log/kuryr/*.log; do
    [ -f "$log" ] || continue
    found=$(grep -a -E " ERROR [^ ]+ \[" "$log" \
        | awk -v since="$since" '($1 " " $2) >= since' | tail -n "$records")
    [ -n "$found" ] || continue
    echo "=== $log (last $records ERROR records)"
    printf '%s\n' "$found" | sed -E 's#://[^:@/ ]+:[^@/ ]+@#://***:***@#g' \
        | cut -c1-300
done
