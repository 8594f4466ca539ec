#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
#
# A private PostgreSQL server for tests: initdb into a fresh directory,
# postgres on a free port of 127.0.0.1 (and a socket in that directory),
# a role and a UTF-8 database for droverdbd.  Nothing outside the
# directory is touched, except that as root the server runs as the system
# user drover-pg (created if missing: postgres refuses to run as root).
#
#   pg_private.sh start DIR      start; prints "HOST PORT USER DATABASE"
#   pg_private.sh stop DIR       stop it and remove DIR
#   pg_private.sh createdb DIR NAME   one more database (for one test)
#   pg_private.sh pause DIR      stop the server, keep its data and port
#   pg_private.sh resume DIR     start it again after pause
#   pg_private.sh run CMD...     start, run CMD with DROVER_TEST_PG_HOST,
#                                _PORT, _USER and _DB set, stop; exits
#                                with CMD's status.  When no server can be
#                                started, prints a TAP skip line saying why
#                                (fails instead under DROVER_TEST_STRICT=1)
#                                and exits 0.
set -euo pipefail

PG_USER=drover-pg
DB_USER=drover
DB_NAME=drover_acct

die() { echo "pg_private: $*" >&2; exit 1; }

pg_bindir() {
    local d
    for d in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r); do
        [ -x "$d/initdb" ] && [ -x "$d/postgres" ] && { echo "$d"; return; }
    done
    command -v initdb >/dev/null && { dirname "$(command -v initdb)"; return; }
    return 1
}

# Run as the server's user (root: drover-pg; otherwise ourselves).
as_pg() {
    if [ "$(id -u)" -eq 0 ]; then
        runuser -u "$PG_USER" -- "$@"
    else
        "$@"
    fi
}

free_port() {
    /usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

# The server's user, created under the test users' lock (USERS_LOCK of
# tests/e2e/conftest.py): two test processes starting a server at once on a
# fresh machine would both find no user, and one useradd would fail.
make_pg_user() {
    local lock=/run/lock/drover-test-users.lock
    [ -L "$lock" ] && die "$lock is a symlink: not following it as root"
    (
        flock 9
        getent passwd "$PG_USER" >/dev/null ||
            useradd --system --no-create-home --shell /usr/sbin/nologin \
                "$PG_USER"
    ) 9>>"$lock" || die "cannot create user $PG_USER"
}

start() {
    local dir=$1 bin port
    bin=$(pg_bindir) || die "no PostgreSQL server installed (initdb and postgres not found; apt-get install postgresql)"
    [ "$(id -u)" -eq 0 ] && make_pg_user
    mkdir -p "$dir"
    [ "$(id -u)" -eq 0 ] && chown "$PG_USER" "$dir"
    chmod 0700 "$dir"
    as_pg "$bin/initdb" -D "$dir/data" -U postgres --auth=trust -E UTF8 \
        --locale=C.UTF-8 >"$dir/initdb.log" 2>&1 \
        || die "initdb failed: $(tail -3 "$dir/initdb.log")"
    free_port >"$dir/port"
    port=$(cat "$dir/port")
    resume "$dir"
    psql_admin "$dir" -c "CREATE ROLE $DB_USER LOGIN PASSWORD 'drover-test'" \
        -c "CREATE DATABASE $DB_NAME OWNER $DB_USER ENCODING 'UTF8' TEMPLATE template0" \
        || { stop "$dir"; die "cannot create the role and database"; }
    echo "127.0.0.1 $port $DB_USER $DB_NAME"
}

resume() {
    local dir=$1 bin port
    bin=$(pg_bindir) || die "no PostgreSQL server installed"
    port=$(cat "$dir/port")
    as_pg "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 30 \
        -o "-p $port -k $dir -h 127.0.0.1 -c fsync=off" start >/dev/null \
        || die "postgres did not start: $(tail -3 "$dir/server.log")"
}

pause() {
    local dir=$1 bin
    bin=$(pg_bindir) || die "no PostgreSQL server installed"
    as_pg "$bin/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null \
        || die "cannot stop the server in $dir"
}

psql_admin() {
    local dir=$1 bin
    shift
    bin=$(pg_bindir) || die "no PostgreSQL server installed"
    as_pg "$bin/psql" -q -h 127.0.0.1 -p "$(cat "$dir/port")" -U postgres \
        -d postgres -v ON_ERROR_STOP=1 "$@" >/dev/null
}

createdb() {
    psql_admin "$1" -c "CREATE DATABASE \"$2\" OWNER $DB_USER ENCODING 'UTF8' TEMPLATE template0" \
        || die "cannot create database $2"
}

stop() {
    local dir=$1 bin
    bin=$(pg_bindir) || true
    if [ -n "$bin" ] && [ -f "$dir/data/postmaster.pid" ]; then
        as_pg "$bin/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null 2>&1 || true
    fi
    rm -rf "$dir"
}

run() {
    local dir info rc=0
    dir=$(mktemp -d /tmp/drover-pg-XXXXXX)
    chmod 0755 "$dir"
    if ! info=$(start "$dir/pg" 2>&1); then
        rm -rf "$dir"
        if [ "${DROVER_TEST_STRICT:-0}" = 1 ]; then  # .ci/run installs it
            echo "no private PostgreSQL server: ${info}" >&2
            return 1
        fi
        echo "1..0 # SKIP no private PostgreSQL server: ${info}"
        return 0
    fi
    read -r DROVER_TEST_PG_HOST DROVER_TEST_PG_PORT DROVER_TEST_PG_USER \
        DROVER_TEST_PG_DB <<<"$info"
    export DROVER_TEST_PG_HOST DROVER_TEST_PG_PORT DROVER_TEST_PG_USER \
        DROVER_TEST_PG_DB
    "$@" || rc=$?
    stop "$dir/pg"
    rm -rf "$dir"
    return $rc
}

case "${1:-}" in
start) [ $# -eq 2 ] || die "usage: pg_private.sh start DIR"; start "$2" ;;
createdb) [ $# -eq 3 ] || die "usage: pg_private.sh createdb DIR NAME"; createdb "$2" "$3" ;;
pause) [ $# -eq 2 ] || die "usage: pg_private.sh pause DIR"; pause "$2" ;;
resume) [ $# -eq 2 ] || die "usage: pg_private.sh resume DIR"; resume "$2" ;;
stop) [ $# -eq 2 ] || die "usage: pg_private.sh stop DIR"; stop "$2" ;;
run) shift; [ $# -ge 1 ] || die "usage: pg_private.sh run CMD..."; run "$@" ;;
*) die "usage: pg_private.sh start|stop|pause|resume DIR, createdb DIR NAME, run CMD..." ;;
esac
