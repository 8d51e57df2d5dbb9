#!/bin/bash
# Install what rally-container-bench needs on Debian bookworm (as root), and
# a Python venv (.venv) with the package, Rally and tox. Idempotent: a second
# run with everything present installs nothing and takes seconds.
#   tools/install-deps.sh        what the tests need too (README command 2, CI)
#   tools/install-deps.sh run    what rcbench decide on this machine's engines
#                                needs (README command 1): no test tools
#   tools/install-deps.sh image  what the guest image build needs, and the
#                                venv (README command 1 runs "run" beside
#                                the image build after it)
# The system packages and the venv install side by side (apt is mostly I/O
# and dpkg, uv mostly downloads): 16-19 s on a fresh machine for "run".
# Environment: RCBENCH_VENV (default <repo>/.venv), PYTHON (default python3),
# RCBENCH_BUILDS_LATER (set: leave out the builds of sysbench 0.4.12 and
# crictl, which the caller runs itself).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
venv="${RCBENCH_VENV:-$top/.venv}"
python="${PYTHON:-python3}"
what="${1:-all}"
case "$what" in
    image|run|all) ;;
    *) echo "usage: tools/install-deps.sh [image|run|all]" >&2; exit 2 ;;
esac

# The guest image: sysbench (the workload; its build is baked into the
# image), mmdebstrap..openssh-client; python3-venv for the venv.
packages=(sysbench python3-venv mmdebstrap e2fsprogs qemu-utils openssh-client)
# rcbench decide on the local engines: the engines (iputils-ping: the
# network phase of Nova servers pings them).
if [ "$what" != image ]; then
    packages+=(docker.io containerd podman crun runc containernetworking-plugins
               conmon slirp4netns uidmap catatonit iptables iproute2 iputils-ping
               lxc
               qemu-system-x86 libvirt-daemon-system libvirt-clients
               libvirt-daemon-driver-qemu libvirt-daemon-driver-lxc)
fi
# The tests' too: fio, iperf3, wrk, nginx-light (the other workloads: the
# network ones' clients run here, and natively their servers too);
# gcc..libtool (sysbench 0.4.12, KEK's version, built from source);
# genisoimage and fdisk (the cloud image stand-in's cloud-init seed and its
# partition table: sfdisk is not essential in bookworm); runsc (gVisor);
# chromium (the tests open the comparison report in it, headless);
# postgresql (the periodic job's shared database). containerd also runs on
# its own for the lifecycle runtimes containerd / cri-containerd.
if [ "$what" = all ]; then
    packages+=(fio iperf3 wrk nginx-light gcc make autoconf automake libtool
               genisoimage fdisk runsc chromium postgresql)
fi

missing=()
for pkg in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "ok installed" \
        || missing+=("$pkg")
done
# shellcheck source=tools/apt.sh
source "$top/tools/apt.sh"
apt_install() {  # PKG...
    if [ "$(id -u)" != 0 ]; then
        echo "install-deps: need root to apt-get install $*" >&2
        return 1
    fi
    echo "install-deps: apt-get install $*" >&2
    # No service starts at install (nginx would take port 80): the
    # workloads start their own daemons, on ports of their own.
    apt_quiet_install "$@"
}

# The venv is redone when the package's requirements or the constraints
# (upper-constraints.txt: the versions CI tested, exactly) change. uv
# installs them (6 s on a fresh machine where pip took 33-42 s), pinned by
# the same constraints.
constraints="$top/upper-constraints.txt"
stamp=$(cat "$top/setup.cfg" "$top/requirements.txt" "$constraints" \
    | sha256sum | cut -c1-16)
make_venv() {
    echo "install-deps: Python venv $venv (rally, rally-openstack, scipy," \
         "matplotlib, tox; uv, ~10 s)" >&2
    "$python" -m venv "$venv"
    "$venv/bin/pip" install -q -c "$constraints" uv
    # tox-uv: tox makes its envs with uv too. UV_SYSTEM_CERTS: the
    # system's CA certificates, as pip uses them (a proxy's own CA).
    UV_SYSTEM_CERTS=1 "$venv/bin/uv" pip install -q --python "$venv/bin/python" \
        -c "$constraints" -e "$top" tox tox-uv
    echo "$stamp" > "$venv/.rcbench-requirements"
}
venv_job=
if [ ! -x "$venv/bin/rally" ] || [ ! -x "$venv/bin/tox" ] \
        || [ "$(cat "$venv/.rcbench-requirements" 2>/dev/null)" != "$stamp" ] \
        || ! "$venv/bin/python" -c "import rally_container_bench" 2>/dev/null; then
    # python -m venv needs ensurepip (Debian's python3-venv) before anything
    if ! "$python" -c "import ensurepip" 2>/dev/null; then
        apt_install python3-venv
        rest=()
        for pkg in "${missing[@]}"; do
            [ "$pkg" = python3-venv ] || rest+=("$pkg")
        done
        missing=("${rest[@]}")
    fi
    make_venv &
    venv_job=$!
fi
status=0
if [ ${#missing[@]} -gt 0 ]; then
    apt_install "${missing[@]}" || status=$?
fi
if [ -n "$venv_job" ]; then
    wait "$venv_job" || { echo "install-deps: the venv failed" >&2; exit 1; }
fi
[ "$status" = 0 ] || exit "$status"
# sysbench 0.4.12 (KEK's) and crictl (cri-containerd): .ci/run builds them
# beside the guest image instead (RCBENCH_BUILDS_LATER=1); README command 1
# needs neither.
if [ "$what" = all ] && [ -z "${RCBENCH_BUILDS_LATER:-}" ]; then
    "$top/tools/build-sysbench-0.4.sh" >/dev/null
    "$top/tools/build-crictl.sh" >/dev/null
fi
