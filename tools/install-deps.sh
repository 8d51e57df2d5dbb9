#!/bin/bash
# Install what rally-container-bench needs on Debian bookworm (as root), and
# a Python venv (.venv) with the package, Rally and tox. Idempotent: a second
# run with everything present installs nothing and takes seconds.
#   tools/install-deps.sh            system packages + .venv
# Environment: RCBENCH_VENV (default <repo>/.venv), PYTHON (default python3),
# RCBENCH_BUILDS_LATER (set: leave out the builds of sysbench 0.4.12 and
# crictl, which the caller runs itself).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
venv="${RCBENCH_VENV:-$top/.venv}"
python="${PYTHON:-python3}"

# sysbench, fio, iperf3, wrk, nginx-light: the workloads (the network ones'
# clients run here, and natively their servers too); gcc..libtool: build sysbench 0.4.12 (KEK's version);
# mmdebstrap..openssh-client: the offline guest image (genisoimage: the
# cloud image stand-in's cloud-init seed); then the engines
# (iputils-ping: the network phase of Nova servers pings them);
# chromium: the tests open the comparison report in it, headless;
# postgresql: the periodic job's shared database in the tests. containerd
# also runs on its own for the lifecycle runtimes containerd / cri-containerd.
packages=(sysbench fio iperf3 wrk nginx-light gcc make autoconf automake libtool python3-venv chromium postgresql
          mmdebstrap e2fsprogs qemu-utils openssh-client genisoimage
          docker.io containerd podman crun runc runsc containernetworking-plugins conmon
          slirp4netns uidmap catatonit iptables iproute2 iputils-ping
          lxc
          qemu-system-x86 libvirt-daemon-system libvirt-clients
          libvirt-daemon-driver-qemu libvirt-daemon-driver-lxc)

missing=()
for pkg in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "ok installed" \
        || missing+=("$pkg")
done
if [ ${#missing[@]} -gt 0 ]; then
    if [ "$(id -u)" != 0 ]; then
        echo "install-deps: need root to apt-get install ${missing[*]}" >&2
        exit 1
    fi
    echo "install-deps: apt-get install ${missing[*]}" >&2
    apt-get update -qq
    # No service starts at install (nginx would take port 80): the
    # workloads start their own daemons, on ports of their own.
    policy=/usr/sbin/policy-rc.d
    made_policy=
    if [ ! -e "$policy" ]; then
        printf '#!/bin/sh\nexit 101\n' > "$policy"
        chmod +x "$policy"
        made_policy=1
    fi
    # --force-unsafe-io: no sync after every unpacked file (a machine that
    # loses power mid-install reinstalls anyway).
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
        -o Dpkg::Options::=--force-unsafe-io "${missing[@]}" >/dev/null
    [ -z "$made_policy" ] || rm -f "$policy"
fi

# The venv is redone when the package's requirements or the constraints
# (upper-constraints.txt: the versions CI tested, exactly) change.
constraints="$top/upper-constraints.txt"
stamp=$(cat "$top/setup.cfg" "$top/requirements.txt" "$constraints" \
    | sha256sum | cut -c1-16)
if [ ! -x "$venv/bin/rally" ] || [ ! -x "$venv/bin/tox" ] \
        || [ "$(cat "$venv/.rcbench-requirements" 2>/dev/null)" != "$stamp" ] \
        || ! "$venv/bin/python" -c "import rally_container_bench" 2>/dev/null; then
    echo "install-deps: Python venv $venv (rally, rally-openstack, scipy," \
         "matplotlib, tox; ~2 min)" >&2
    "$python" -m venv "$venv"
    "$venv/bin/pip" install -q --upgrade pip
    # tox-uv: tox makes its envs with uv (seconds instead of minutes).
    "$venv/bin/pip" install -q -c "$constraints" -e "$top" tox tox-uv
    echo "$stamp" > "$venv/.rcbench-requirements"
fi
# sysbench 0.4.12 (KEK's) and crictl (cri-containerd): .ci/run builds them
# beside the guest image instead (RCBENCH_BUILDS_LATER=1).
if [ -z "${RCBENCH_BUILDS_LATER:-}" ]; then
    "$top/tools/build-sysbench-0.4.sh" >/dev/null
    "$top/tools/build-crictl.sh" >/dev/null
fi
