#!/bin/bash
# README command 1: install what is needed, run the main job on this machine,
# write the reports to results/<timestamp>/ (results/latest points at it).
#   bash tools/quickstart.sh
# Environment (all optional):
#   RCBENCH_TASK       task file        (default tasks/local_kvm_vs_containers.yaml)
#   RCBENCH_TASK_ARGS  task args file   (default tasks/args/local-quick.yaml)
#   RCBENCH_RALLY_ENV  Rally env name   (default rcbench-local, created empty)
# Rally's config: the one Rally finds (~/.rally/rally.conf, /etc/rally/rally.conf);
# if there is none, ~/.rally/rally.conf is created with its DB next to it.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
task="${RCBENCH_TASK:-tasks/local_kvm_vs_containers.yaml}"
task_args="${RCBENCH_TASK_ARGS:-tasks/args/local-quick.yaml}"
env_name="${RCBENCH_RALLY_ENV:-rcbench-local}"

step() { echo "--- [$(date +%H:%M:%S)] $*"; }

step "installing dependencies (skipped where present)"
tools/install-deps.sh
venv="${RCBENCH_VENV:-$top/.venv}"
rally() { COLUMNS=200 "$venv/bin/rally" "$@"; }

step "guest image (built once, ~2 min) and engine daemons"
# shellcheck source=tools/engines.sh
. "$top/tools/engines.sh"

if [ ! -f "$HOME/.rally/rally.conf" ] && [ ! -f /etc/rally/rally.conf ]; then
    step "creating $HOME/.rally/rally.conf"
    mkdir -p "$HOME/.rally"
    printf '[database]\nconnection = sqlite:///%s/.rally/rally.sqlite\n' \
        "$HOME" > "$HOME/.rally/rally.conf"
fi
rally db ensure >/dev/null
if ! rally env show "$env_name" >/dev/null 2>&1; then
    step "creating the empty Rally env $env_name (local engines need no cloud)"
    rally env create --name "$env_name" --no-use >/dev/null
fi

stamp=$(date -u +%Y%m%dT%H%M%SZ)
out="results/$stamp"
mkdir -p "$out"
step "rally task start $task --task-args-file $task_args"
set +e
rally task start "$task" --task-args-file "$task_args" --env "$env_name" \
    --tag quickstart > "$out/rally-task.log" 2>&1
status=$?
set -e
uuid=$(grep -oE 'rally task report [0-9a-f-]{36}' "$out/rally-task.log" \
       | head -n 1 | cut -d' ' -f4 || true)
if [ -z "$uuid" ]; then
    tail -n 40 "$out/rally-task.log" >&2
    echo "quickstart: the task did not start (exit $status); log: $out/rally-task.log" >&2
    exit 1
fi
step "writing reports of task $uuid"
rally task report "$uuid" --out "$out/rally.html" >/dev/null 2>&1
rally task report "$uuid" --json --out "$out/rally.json" >/dev/null 2>&1
step "comparison report (every platform against native)"
rally task export --uuid "$uuid" --type rcbench-comparison --to "$out" \
    > "$out/export.log" 2>&1 || { cat "$out/export.log" >&2; exit 1; }
ln -sfn "$stamp" results/latest
sla=0
rally task sla-check "$uuid" > "$out/sla.txt" 2>&1 || sla=$?

echo
"$venv/bin/rcbench" summary "$out/rally.json" || true
echo
cat "$out/comparison.md"
echo "Rally task:    $uuid"
echo "HTML report:   $top/$out/rally.html"
echo "JSON results:  $top/$out/rally.json"
echo "Comparison:    $top/$out/comparison.html (.csv .json .md)"
echo "Task log:      $top/$out/rally-task.log"
if [ "$sla" != 0 ]; then
    echo "SLA FAILED (some iterations failed): $top/$out/sla.txt" >&2
    exit 1
fi
echo "SLA: passed (0 failed iterations)"
