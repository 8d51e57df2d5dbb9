#!/bin/bash
# README command 1: install what is needed, run the main job on this machine,
# write the reports to results/<timestamp>/ (results/latest points at it).
#   bash tools/quickstart.sh
# Environment (all optional):
#   RCBENCH_TASK       task file        (default tasks/local_kvm_vs_containers.yaml)
#   RCBENCH_TASK_ARGS  task args file   (default tasks/args/local-quick.yaml)
#   RCBENCH_RALLY_ENV  Rally env name   (default rcbench-local, created empty)
#   RCBENCH_RESULTS    results directory (default results)
# Ctrl-C aborts the task (running iterations end, their instances are
# deleted); the reports of what finished are still written. Exit status:
# 0 every iteration passed, 1 some failed or the task could not run, 130
# aborted.
# Rally's config: the one Rally finds (~/.rally/rally.conf, /etc/rally/rally.conf);
# if there is none, ~/.rally/rally.conf is created with its DB next to it.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
task="${RCBENCH_TASK:-tasks/local_kvm_vs_containers.yaml}"
task_args="${RCBENCH_TASK_ARGS:-tasks/args/local-quick.yaml}"
env_name="${RCBENCH_RALLY_ENV:-rcbench-local}"
results="${RCBENCH_RESULTS:-results}"

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
out="$results/$stamp"
mkdir -p "$out"
step "rally task start $task --task-args-file $task_args"
# Ctrl-C reaches Rally too (the terminal signals the whole group); Rally
# aborts the task and returns, then this script writes what finished.
interrupted=
trap 'interrupted=1' INT
set +e
rally task start "$task" --task-args-file "$task_args" --env "$env_name" \
    --tag quickstart > "$out/rally-task.log" 2>&1
status=$?
set -e
trap - INT
# "Task [tags: 'quickstart'] <uuid>: started"
uuid=$(grep -oE '[0-9a-f-]{36}: started' "$out/rally-task.log" \
       | head -n 1 | cut -c1-36 || true)
if [ -z "$uuid" ]; then
    tail -n 40 "$out/rally-task.log" >&2
    if [ -n "$interrupted" ]; then
        echo "quickstart: interrupted before the task started" >&2
        exit 130
    fi
    echo "quickstart: the task did not start (exit $status); log: $out/rally-task.log" >&2
    exit 1
fi
task_status=$(rally task status "$uuid" 2>/dev/null | grep -oE ': [a-z_]+$' | tr -d ': ' || true)
step "writing reports of task $uuid ($task_status)"
# --html-static: the page carries its scripts and opens without internet.
rally task report "$uuid" --html-static --out "$out/rally.html" >/dev/null 2>&1
rally task report "$uuid" --json --out "$out/rally.json" >/dev/null 2>&1
step "comparison report (every platform against native)"
compared=1
rally task export --uuid "$uuid" --type rcbench-comparison --to "$out" \
    > "$out/export.log" 2>&1 || compared=
ln -sfn "$stamp" "$results/latest"
sla=0
rally task sla-check "$uuid" > "$out/sla.txt" 2>&1 || sla=$?

echo
"$venv/bin/rcbench" summary "$out/rally.json" || true
echo
if [ -n "$compared" ]; then
    cat "$out/comparison.md"
else
    cat "$out/export.log" >&2
fi
where=$(cd "$results" && pwd)/$stamp
echo "Rally task:    $uuid"
echo "HTML report:   $where/rally.html"
echo "JSON results:  $where/rally.json"
echo "Comparison:    $where/comparison.html (.csv .json .md)"
echo "Task log:      $where/rally-task.log"
case "$task_status" in
    aborted|aborting|soft_aborting)
        echo "ABORTED (Ctrl-C or rally task abort): the reports hold the" \
             "iterations that finished" >&2
        exit 130 ;;
esac
[ -n "$compared" ] || exit 1
if [ "$sla" != 0 ]; then
    echo "SLA FAILED (some iterations failed): $where/sla.txt" >&2
    exit 1
fi
echo "SLA: passed (0 failed iterations)"
