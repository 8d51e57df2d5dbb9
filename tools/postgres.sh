#!/bin/bash
# A PostgreSQL server on 127.0.0.1 for the periodic job's shared-database
# tests (Debian's postgresql; its cluster started here, no systemd needed).
#   tools/postgres.sh start   start it (if it does not run) and make the
#                             role and database rcbench; prints the URL
#   tools/postgres.sh stop    stop it again
# The URL (with the role's password, made once, mode 600) is kept in
# /var/lib/rcbench-postgres/url: the tests read it from
# $RCBENCH_TEST_DATABASE, which tools/test.sh sets.
set -euo pipefail
state=/var/lib/rcbench-postgres
[ "$(id -u)" = 0 ] || { echo "postgres.sh: run as root" >&2; exit 1; }
cluster=$(pg_lsclusters -h 2>/dev/null | awk 'NR==1{print $1" "$2}')
[ -n "$cluster" ] || { echo "postgres.sh: no PostgreSQL cluster (apt-get install postgresql)" >&2; exit 1; }
read -r version name <<< "$cluster"

case "${1:-}" in
start)
    if ! pg_lsclusters -h | awk '{print $4}' | grep -qx online; then
        pg_ctlcluster "$version" "$name" start
    fi
    mkdir -p "$state"
    chmod 700 "$state"
    if [ ! -s "$state/password" ]; then
        (umask 077; python3 -c "import secrets; print(secrets.token_hex(16))" > "$state/password")
    fi
    password=$(cat "$state/password")
    port=$(pg_lsclusters -h | awk 'NR==1{print $3}')
    # The password on stdin (psql's -f -), never on a command line.
    runuser -u postgres -- psql -q -v ON_ERROR_STOP=1 -f - >/dev/null <<EOF
DO \$\$ BEGIN
  IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'rcbench') THEN
    CREATE ROLE rcbench LOGIN CREATEDB;
  END IF;
END \$\$;
ALTER ROLE rcbench PASSWORD '$password';
-- A test's DROP DATABASE ... WITH (FORCE) signals every backend on that
-- database: an autovacuum worker has no role, so without this grant the
-- drop failed whenever autovacuum had just started there (CI, 2026-12-05).
GRANT pg_signal_backend TO rcbench;
EOF
    runuser -u postgres -- psql -tAc "SELECT 1 FROM pg_database WHERE datname = 'rcbench'" \
        | grep -q 1 || runuser -u postgres -- createdb -O rcbench rcbench
    (umask 077; echo "postgresql://rcbench:$password@127.0.0.1:$port/rcbench" > "$state/url")
    echo "postgres: $state/url"
    ;;
stop)
    pg_ctlcluster "$version" "$name" stop 2>/dev/null || true
    ;;
*)
    echo "usage: $0 start|stop" >&2
    exit 2
    ;;
esac
