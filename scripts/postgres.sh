#!/usr/bin/env bash
# A throwaway PostgreSQL server for the tests (Debian's postgresql package, installed by
# scripts/setup.sh): a fresh data directory, a free port on 127.0.0.1, no password.
#   eval "$(scripts/postgres.sh start)"   starts it; prints the exports:
#       CHAT_SHELL_TEST_DATABASE_URL (postgres://postgres@127.0.0.1:PORT/chat_shell)
#       CHAT_SHELL_TEST_PGDATA       (its data directory)
#   scripts/postgres.sh stop             stops it and removes its data directory
set -euo pipefail

BIN="${PG_BIN:-$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n1)}"
if [ ! -x "$BIN/initdb" ]; then
  echo "postgres.sh: no PostgreSQL under /usr/lib/postgresql (scripts/setup.sh installs it)" >&2
  exit 1
fi

# PostgreSQL refuses to run as root: as root, it runs as the `postgres` user.
as_pg() {
  if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

case "${1:-}" in
start)
  data="$(mktemp -d /tmp/chat-shell-pg.XXXXXX)"
  [ "$(id -u)" -eq 0 ] && chown postgres: "$data"
  as_pg "$BIN/initdb" -D "$data/db" -U postgres --auth=trust -E UTF8 >"$data/initdb.log" 2>&1 || {
    cat "$data/initdb.log" >&2
    exit 1
  }
  port="$(node -e "const s=require('net').createServer().listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})")"
  # Room for two runtime instances, the store tests running side by side and benchmarks.
  as_pg "$BIN/pg_ctl" -D "$data/db" -l "$data/server.log" -w -t 60 \
    -o "-p $port -k $data -c listen_addresses=127.0.0.1 -c max_connections=400 -c fsync=off" \
    start >/dev/null || {
    cat "$data/server.log" >&2
    exit 1
  }
  as_pg "$BIN/createdb" -h 127.0.0.1 -p "$port" -U postgres chat_shell
  echo "export CHAT_SHELL_TEST_DATABASE_URL=postgres://postgres@127.0.0.1:$port/chat_shell"
  echo "export CHAT_SHELL_TEST_PGDATA=$data"
  ;;
stop)
  data="${CHAT_SHELL_TEST_PGDATA:-${2:-}}"
  if [ -n "$data" ] && [ -d "$data/db" ]; then
    as_pg "$BIN/pg_ctl" -D "$data/db" -m fast -w stop >/dev/null || true
    rm -rf "$data"
  fi
  ;;
*)
  echo "usage: $0 start | stop [DATA_DIR]" >&2
  exit 2
  ;;
esac
