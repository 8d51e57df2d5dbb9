#!/bin/bash
# Build the guest image (cached) and start the engine daemons this machine
# does not start itself. Sourced by quickstart.sh and test.sh, which stop
# what was started here when they exit.
venv="${RCBENCH_VENV:-$top/.venv}"
"$venv/bin/rcbench" images build
"$venv/bin/rcbench" engines start
trap '"$venv/bin/rcbench" engines stop >/dev/null' EXIT
"$venv/bin/rcbench" doctor || true
