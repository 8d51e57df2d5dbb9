#!/bin/bash
# Build the guest image (cached) and start the engine daemons this machine
# does not start itself. Sourced by quickstart.sh and test.sh, which stop
# at their exit the daemons started here (not those another script, e.g.
# an outer test run, had started).
venv="${RCBENCH_VENV:-$top/.venv}"
"$venv/bin/rcbench" images build
engines_out=$("$venv/bin/rcbench" engines start)
echo "$engines_out"
engines_started=$(sed -n 's/^engines started by this call: *//p' <<< "$engines_out")
stop_started_engines() {
    if [ -n "$engines_started" ]; then
        # shellcheck disable=SC2086  # one word per engine
        "$venv/bin/rcbench" engines stop $engines_started >/dev/null
    fi
}
trap stop_started_engines EXIT
"$venv/bin/rcbench" doctor || true
