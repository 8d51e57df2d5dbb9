# cpuset_group CGROUP CPUS: make the cpuset cgroup CGROUP (a path below
# the hierarchy's root, e.g. rcbench-aio/aio-lxc) confined to CPUS, and
# print its directory. Sourced by compute-host.sh and zun-dockerd.sh.
# shellcheck shell=sh
cpuset_group() {
    if [ -d /sys/fs/cgroup/cpuset ]; then
        # cgroup v1: the cpuset hierarchy; a new group has no CPUs
        # until given some, its parent included
        _dir=/sys/fs/cgroup/cpuset/$1
        mkdir -p "$_dir"
        cat /sys/fs/cgroup/cpuset/cpuset.mems > "${_dir%/*}/cpuset.mems"
        cat /sys/fs/cgroup/cpuset/cpuset.cpus > "${_dir%/*}/cpuset.cpus"
        echo "$2" > "$_dir/cpuset.cpus"
        cat /sys/fs/cgroup/cpuset/cpuset.mems > "$_dir/cpuset.mems"
    else
        # cgroup v2: cpuset enabled down to the group
        _dir=/sys/fs/cgroup/$1
        mkdir -p "$_dir"
        echo +cpuset > /sys/fs/cgroup/cgroup.subtree_control
        echo +cpuset > "${_dir%/*}/cgroup.subtree_control"
        echo "$2" > "$_dir/cpuset.cpus"
    fi
    echo "$_dir"
}
