#!/bin/bash
# Fails when a neutron L2 agent of the test cloud could not apply its
# security group rules since setup.sh started it (each start's agent logs
# are new). That failure leaves the agent resyncing every 2-3 s to the
# end of the run: CPU the cloud tests and their measurements lose. Its
# cause here was the agents' shared ipsets (configure.sh: enable_ipset).
# Prints each agent's resyncs (an occasional one follows another agent
# removing a tap's ebtables chain: harmless, not counted).
set -euo pipefail
failed=0
for log in /var/log/neutron/linuxbridge-agent-*.log; do
    [ -e "$log" ] || continue
    resyncs=$(grep -c "out of sync with plugin" "$log" || true)
    broken=$(grep -c "Stderr: iptables-restore" "$log" || true)
    echo "$(basename "$log" .log): $resyncs resyncs, $broken failed iptables-restore"
    [ "$broken" -eq 0 ] || failed=1
done
if [ "$failed" -ne 0 ]; then
    echo "an L2 agent failed to apply its rules (see its log above)" >&2
fi
exit "$failed"
