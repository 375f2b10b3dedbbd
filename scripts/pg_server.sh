#!/usr/bin/env bash
# A throw-away PostgreSQL server for tests and benchmarks: a new cluster in DIR, listening on
# 127.0.0.1 at a free port (and a Unix socket in DIR), trust authentication for user `ttune`.
# It is for tests only: fsync is off, anyone on this host may connect.
#
#   scripts/pg_server.sh start DIR   starts it; prints its URL (also written to DIR/url)
#   scripts/pg_server.sh stop DIR    stops it (DIR is left for the caller to remove)
#
# PostgreSQL refuses to run as root: as root, the cluster belongs to the `postgres` system user
# (created by Debian's postgresql package) and DIR is handed to it. Exits 77 with one line on
# stderr when the PostgreSQL server binaries are not installed (Debian package postgresql).
set -euo pipefail
cmd=${1:-}
dir=${2:-}
if [ -z "$cmd" ] || [ -z "$dir" ]; then
  echo "usage: $0 start|stop DIR" >&2
  exit 2
fi
bindir=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)
if [ -z "$bindir" ] || [ ! -x "$bindir/initdb" ] || [ ! -x "$bindir/pg_ctl" ]; then
  echo "PostgreSQL is not installed here (no /usr/lib/postgresql/*/bin/initdb; scripts/setup.sh installs the postgresql package)" >&2
  exit 77
fi
as_owner=()
if [ "$(id -u)" -eq 0 ]; then
  if ! id postgres >/dev/null 2>&1; then
    echo "PostgreSQL refuses to run as root and there is no postgres system user to run it as (reinstall the postgresql package)" >&2
    exit 77
  fi
  as_owner=(runuser -u postgres --)
fi

case "$cmd" in
  start)
    mkdir -p "$dir"
    if [ "$(id -u)" -eq 0 ]; then
      chown postgres: "$dir"
      if ! runuser -u postgres -- test -w "$dir"; then
        echo "the postgres user cannot reach $dir (a folder above it is private to root); use a folder it can enter" >&2
        exit 1
      fi
    fi
    chmod 700 "$dir"
    port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    if ! "${as_owner[@]}" "$bindir/initdb" -D "$dir/data" -U ttune -A trust -E UTF8 --locale=C >"$dir/initdb.log" 2>&1; then
      echo "initdb failed in $dir/data:" >&2
      cat "$dir/initdb.log" >&2
      exit 1
    fi
    if ! "${as_owner[@]}" "$bindir/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
        -o "-c listen_addresses=127.0.0.1 -p $port -k $dir -c fsync=off -c max_connections=200" start >/dev/null; then
      echo "the PostgreSQL server in $dir/data did not start:" >&2
      cat "$dir/server.log" >&2
      exit 1
    fi
    url="postgresql://ttune@127.0.0.1:$port/postgres"
    echo "$url" >"$dir/url"
    chmod 644 "$dir/url"
    echo "$url"
    ;;
  stop)
    if [ -f "$dir/data/postmaster.pid" ]; then
      "${as_owner[@]}" "$bindir/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null 2>&1 || true
    fi
    ;;
  *)
    echo "usage: $0 start|stop DIR" >&2
    exit 2
    ;;
esac
