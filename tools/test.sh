#!/bin/bash
# The README's test command: install what the tests need, then run style,
# unit and functional tests: real sysbench 1.0 and 0.4.12, Rally's CLI and DB,
# every local engine (the guest image is built and daemons started first).
#   bash tools/test.sh [tox envs, default pep8,py3,trixie,functional]
# (trixie: the unit tests on Debian 13's Python 3.13, tools/py313.sh.
# CI: pep8,py3,trixie beside the guest image build, then functional.)
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
envs="${1:-pep8,py3,trixie,functional}"
"$top/tools/install-deps.sh"
venv="${RCBENCH_VENV:-$top/.venv}"
stop_started_engines() { :; }
stop_started_postgres() { :; }
# Engines, the guest image and PostgreSQL only for the functional tests:
# style and unit tests need none (CI runs them beside the image build).
if [[ ",$envs," == *,functional,* ]]; then
    # shellcheck source=tools/engines.sh
    . "$top/tools/engines.sh"
    # PostgreSQL for the periodic job's shared-database test (stopped
    # again at the end if this run started it).
    postgres_was_up=$(pg_lsclusters -h 2>/dev/null | awk '$4 == "online"' | head -1)
    "$top/tools/postgres.sh" start >/dev/null
    RCBENCH_TEST_DATABASE=$(cat /var/lib/rcbench-postgres/url)
    export RCBENCH_TEST_DATABASE
    stop_started_postgres() {
        [ -n "$postgres_was_up" ] || "$top/tools/postgres.sh" stop
    }
fi
log=$(mktemp)
trap 'rm -f "$log"; stop_started_engines; stop_started_postgres' EXIT
set +e
# The envs side by side (tox run-parallel): style and unit tests run while
# the functional env installs (uv: mostly I/O), ~2 min sooner than one
# after the other. Output is live; each stestr run's lines stay whole.
"$venv/bin/tox" run-parallel -p all --parallel-live -e "$envs" 2>&1 \
    | tee "$log"
status=${PIPESTATUS[0]}
set -e
# stestr prints " - Passed: N" / " - Failed: N" per run: add them up.
passed=$(awk '/^ - Passed: /{s+=$3} END{print s+0}' "$log")
failed=$(awk '/^ - Failed: /{s+=$3} END{print s+0}' "$log")
echo "tests: $passed passed, $failed failed"
exit "$status"
