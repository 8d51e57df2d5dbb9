#!/bin/bash
# What tells a hang apart, read only: the processes each engine runs for
# its containers (shims, conmon, QEMU, LXC), containers the engine says are
# up with nothing running them, zombies, what the tests run now, the
# engine daemons' last log lines, the pids controller's events. .ci/run
# prints it when a stage fails or runs past its budget.
#   tools/engine-state.sh [LOG LINES, default 20]
set -u
lines=${1:-20}

echo "--- engine processes (count by program)"
ps -eo comm= | grep -E '^(dockerd|containerd|containerd-shim|conmon|podman|runc|crun|runsc|qemu-system-x86|lxc-start|libvirtd|virtlogd|docker-proxy)' \
    | sort | uniq -c

top=$(cd "$(dirname "$0")/.." && pwd)
rcbench=${RCBENCH_VENV:-$top/.venv}/bin/rcbench

echo "--- containers dockerd says are up, and whether a shim runs them"
if command -v docker >/dev/null; then
    up=$(timeout 10 docker ps -q --no-trunc 2>&1) || {
        # a dockerd that does not answer: where its threads wait
        echo "docker ps: no answer within 10 s (exit $?): $up"
        dump=$(timeout 30 "$rcbench" engines dump docker containerd 2>&1)
        echo "$dump"
        stacks=$(grep -o '/[^ "]*goroutine-stacks[^ "]*' <<< "$dump" | head -n 1)
        if [ -r "$stacks" ]; then
            echo "--- dockerd's goroutines by state (those waiting for minutes first)"
            grep -o '^goroutine [0-9]* \[[^]]*\]' "$stacks" | sed 's/^goroutine [0-9]* //' \
                | sort | uniq -c | sort -rn | head -n 20
            echo "--- dockerd's goroutines waiting for a lock for minutes"
            awk '/^goroutine [0-9]* \[(semacquire|sync\.(RW)?Mutex)[^]]*minutes\]/ {n = 16} n-- > 0' \
                "$stacks" | head -n 160
        fi
        up=
    }
    shims=$(ps -eo args= | awk '/containerd-shim-runc-v2/ {for (i = 1; i < NF; i++) if ($i == "-id") print $(i + 1)}')
    total=0 orphaned=0
    for id in $up; do
        [[ $id =~ ^[0-9a-f]{64}$ ]] || { echo "$id"; continue; }
        total=$((total + 1))
        grep -qx "$id" <<< "$shims" || { orphaned=$((orphaned + 1)); echo "up without a shim: ${id:0:12}"; }
    done
    echo "$total up, $orphaned of them without a shim"
fi

echo "--- zombies (pid ppid parent's program)"
ps -eo pid=,ppid=,stat= | awk '$3 ~ /^Z/ {print $1, $2}' | while read -r pid ppid; do
    echo "$pid $ppid $(cat "/proc/$ppid/comm" 2>/dev/null)"
done | head -n 40

echo "--- what the tests run now: each test runner's tree (seconds running)"
ps -eo pid=,ppid=,etimes=,stat=,args= | awk '
    { pid[NR] = $1; parent[$1] = $2; line[$1] = $0; kids[$2] = kids[$2] " " $1 }
    function show(p, depth,   n, k, i) {
        printf "%s%s\n", substr("                    ", 1, 2 * depth), substr(line[p], 1, 200)
        n = split(kids[p], k, " ")
        for (i = 1; i <= n; i++) show(k[i], depth + 1)
    }
    END { for (i = 1; i <= NR; i++) if (line[pid[i]] ~ /^ *[0-9]+ +[0-9]+ +[0-9]+ +[^ ]+ +[^ ]*python[^ ]* -m stestr.subunit_runner/) show(pid[i], 0) }' \
    | head -n 80

for log in /run/rcbench/*.log; do
    [ -r "$log" ] || continue
    echo "--- last $lines lines of $log"
    tail -n "$lines" "$log"
done

echo "--- pids controller events (fork refused: max > 0)"
find /sys/fs/cgroup -name pids.events 2>/dev/null | while read -r f; do
    grep -H -v ' 0$' "$f"
done | head -n 20
echo "threads now: $(ls /proc/*/task 2>/dev/null | grep -c '^[0-9]'), pid_max $(cat /proc/sys/kernel/pid_max)"
exit 0
