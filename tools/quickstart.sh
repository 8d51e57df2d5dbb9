#!/bin/bash
# README command 1: install what is needed, run the main job on this machine
# (rcbench decide: rounds of the task, each test paired with its native
# twin, until every cell has a verdict or the budget in the args file
# ends), write the reports to results/<timestamp>/ (results/latest points
# at it).
#   bash tools/quickstart.sh
# Environment (all optional):
#   RCBENCH_TASK       task file        (default tasks/local_kvm_vs_containers.yaml)
#   RCBENCH_TASK_ARGS  task args file   (default tasks/args/local-quick.yaml)
#   RCBENCH_RALLY_ENV  Rally env name   (default rcbench-local, created empty)
#   RCBENCH_RESULTS    results directory (default results)
#   RCBENCH_TOTAL_S    seconds the whole command may take, install and
#                      image included (default 600 with the default args
#                      file, else unset): rcbench decide gets what is left
#                      of it (at most the args file's budget_s, at least
#                      MIN_DECIDE_S); 0: no such limit
#   RCBENCH_BUDGET_S   seconds rcbench decide may take (default: the args
#                      file's decide budget_s, 600 s in local-quick.yaml,
#                      within RCBENCH_TOTAL_S)
#   RCBENCH_PAIRS_PER_ROUND  pairs of each cell per round (default: the
#                      args file's pairs_per_round, 6)
#   RCBENCH_MAX_ROUNDS rounds at most (default: the args file's max_rounds)
#   RCBENCH_PAIRING    auto, at-once or sequential (default: the args
#                      file's decide: pairing, auto in local-quick.yaml)
# Ctrl-C aborts the round (running iterations end, their instances are
# deleted); the reports of what finished are still written. Exit status:
# 0 every iteration passed, 1 some failed, 2 the run could not start, 130
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
budget=()
[ -z "${RCBENCH_BUDGET_S:-}" ] || budget=(--budget-s "$RCBENCH_BUDGET_S")
[ -z "${RCBENCH_PAIRS_PER_ROUND:-}" ] \
    || budget+=(--pairs-per-round "$RCBENCH_PAIRS_PER_ROUND")
[ -z "${RCBENCH_MAX_ROUNDS:-}" ] \
    || budget+=(--max-rounds "$RCBENCH_MAX_ROUNDS")
[ -z "${RCBENCH_PAIRING:-}" ] \
    || budget+=(--pairing "$RCBENCH_PAIRING")
# The args file's harness_yields needs the kernel's autogroup; where a
# kernel has it off the quickstart still runs, with Rally in the pairs.
autogroup=$(cat /proc/sys/kernel/sched_autogroup_enabled 2>/dev/null || true)
if [ "$autogroup" != 1 ]; then
    echo "note: the kernel's autogroup is off (kernel.sched_autogroup_enabled" \
         "${autogroup:-absent}): Rally's own CPU stays in the pairs" \
         "(--harness-yields false)"
    budget+=(--harness-yields false)
fi

step() { echo "--- [$(date +%H:%M:%S)] $*"; }

step "installing dependencies (skipped where present)"
tools/install-deps.sh image
venv="${RCBENCH_VENV:-$top/.venv}"
rally() { COLUMNS=200 "$venv/bin/rally" "$@"; }
export PYTHONUNBUFFERED=1
# The engines' packages install beside the guest image build (mmdebstrap
# keeps its own apt and dpkg inside the image's tree).
engines_log=$(mktemp)
tools/install-deps.sh run > "$engines_log" 2>&1 &
engines_installed=$!

# Rally's config, database and env beside the image build (~10 s of
# Rally's own start, which needs neither the image nor the engines).
prepare_rally() {
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
}
prepare_rally &
rally_ready=$!

step "guest image (built once, ~50 s), the engines' packages beside it"
"$venv/bin/rcbench" images build >/dev/null
if ! wait "$engines_installed"; then
    cat "$engines_log" >&2
    echo "quickstart: the engines' packages could not be installed" >&2
    exit 2
fi
cat "$engines_log"
rm -f "$engines_log"
step "engine daemons"
# shellcheck source=tools/engines.sh
. "$top/tools/engines.sh"
wait "$rally_ready" || { echo "quickstart: Rally's database or env could not be made" >&2; exit 2; }

# README command 1 answers within 10 minutes, install and image included:
# decide gets what is left of them, less REPORT_S for its last reports
# (12 s after the budget ended, twice on a fresh machine, 2026-12-05).
total="${RCBENCH_TOTAL_S:-}"
[ -n "$total" ] || [ -n "${RCBENCH_TASK_ARGS:-}" ] || total=600
REPORT_S=15
MIN_DECIDE_S=180
if [ -z "${RCBENCH_BUDGET_S:-}" ] && [ -n "$total" ] && [ "$total" != 0 ]; then
    left=$(( total - SECONDS - REPORT_S ))
    if [ "$left" -lt "$MIN_DECIDE_S" ]; then
        echo "note: the install and image took ${SECONDS} s of the ${total} s;" \
             "rcbench decide still gets ${MIN_DECIDE_S} s (the next run," \
             "with both cached, has its whole budget)"
        left=$MIN_DECIDE_S
    fi
    # the args file's budget_s still holds where it is the shorter
    budget+=(--budget-at-most "$left")
fi

stamp=$(date -u +%Y%m%dT%H%M%SZ)
out="$results/$stamp"
mkdir -p "$out"
: > "$out/rally-task.log"  # there to follow from the start
step "rcbench decide --task $task --task-args-file $task_args (rounds until every cell has a verdict, within the budget)"
# Ctrl-C reaches Rally too (the terminal signals the whole group): Rally
# aborts the round's task, no further round starts, and the reports of
# what finished are written.
trap 'interrupted=1' INT
set +e
"$venv/bin/rcbench" decide --task "$task" --task-args-file "$task_args" \
    --env "$env_name" --out "$out" "${budget[@]}"
status=$?
set -e
trap - INT
ln -sfn "$stamp" "$results/latest"
where=$(cd "$results" && pwd)/$stamp
echo "HTML report:   $where/rally.html (every round's task)"
echo "JSON results:  $where/rally.json"
echo "Comparison:    $where/comparison.html (.csv .json .md)"
echo "Rounds:        $where/decide.json"
echo "Task log:      $where/rally-task.log"
case "$status" in
    0) echo "SLA: passed (0 failed iterations)" ;;
    130) echo "ABORTED (Ctrl-C): the reports hold the rounds that finished" >&2 ;;
    1) echo "SLA FAILED (some iterations failed): see $where/rally.html" >&2 ;;
    *) tail -n 40 "$out/rally-task.log" >&2 2>/dev/null || true
       echo "quickstart: rcbench decide failed (exit $status)" >&2 ;;
esac
# the promise is 10 minutes in all: the run says what it took (the engines
# it started stop after this line, in a second or two)
printf 'took %d:%02d in all (install, image, engines, rcbench decide, reports)\n' \
    $((SECONDS / 60)) $((SECONDS % 60))
exit "$status"
