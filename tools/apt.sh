# Sourced by tools/install-deps.sh and tools/openstack-aio/setup.sh:
# Debian packages installed quietly, with no service started by them.
#   apt_quiet_install PKG...   (root; apt-get update once per shell)

# The policy file's mark: one that carries it is ours, left by an install
# killed before it could remove it, and goes with this one.
APT_POLICY_MARK="# rally-container-bench: no service starts at install"

apt_quiet_install() {
    # An install killed midway (CI's exit trap ends the tree it started,
    # Ctrl-C) leaves dpkg interrupted, and every later apt-get refuses
    # ("dpkg was interrupted, you must manually run 'dpkg --configure -a'";
    # CI 2026-12-07 after a run that failed while the cloud's packages
    # unpacked). Finishing it is what dpkg asks.
    if [ -n "$(ls -A /var/lib/dpkg/updates 2>/dev/null)" ] \
            || [ -n "$(dpkg --audit 2>/dev/null)" ]; then
        echo "apt: an earlier install was interrupted: dpkg --configure -a" >&2
        DEBIAN_FRONTEND=noninteractive dpkg --configure -a >/dev/null
    fi
    [ -n "${apt_updated:-}" ] || apt-get update -qq
    apt_updated=1
    # In a subshell: its traps remove the policy file also when the
    # install is interrupted, without touching the caller's traps.
    (
        policy=/usr/sbin/policy-rc.d
        if [ ! -e "$policy" ] || grep -qxF "$APT_POLICY_MARK" "$policy"; then
            printf '#!/bin/sh\n%s\nexit 101\n' "$APT_POLICY_MARK" > "$policy"
            chmod +x "$policy"
            trap 'rm -f "$policy"' EXIT
            trap 'exit 143' TERM INT
        fi
        # --force-unsafe-io: no sync after every unpacked file (a machine
        # that loses power mid-install reinstalls anyway).
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
            --no-install-recommends -o Dpkg::Options::=--force-unsafe-io \
            "$@" >/dev/null
    )
}
