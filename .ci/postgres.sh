# shellcheck shell=bash
# Sourced by .ci/run (as root, on Debian 12): starts a throwaway PostgreSQL server on
# 127.0.0.1 for the runtime checker's tests and exports DATABASE_URL. Idempotent: a server
# already answering on the port is reused. Stop it with `fencelint_postgres_stop`.
# Settings: FENCELINT_PG_PORT (54329), FENCELINT_PG_DIR (/tmp/fencelint-postgres).

fencelint_pg_port=${FENCELINT_PG_PORT:-54329}
fencelint_pg_dir=${FENCELINT_PG_DIR:-/tmp/fencelint-postgres}
fencelint_pg_db=fencelint

fencelint_pg_bindir() {
  local dir
  dir=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)
  if [ -n "$dir" ] && [ -x "$dir/initdb" ]; then
    echo "$dir"
  elif command -v initdb >/dev/null 2>&1; then
    dirname "$(command -v initdb)"
  fi
}

# Run a command as the postgres user when we are root (initdb refuses to run as root).
fencelint_pg_as_owner() {
  if [ "$(id -u)" = 0 ]; then
    runuser -u postgres -- "$@"
  else
    "$@"
  fi
}

fencelint_postgres_start() {
  local bindir
  bindir=$(fencelint_pg_bindir)
  if [ -z "$bindir" ]; then
    echo "postgres.sh: initdb not found; installing Debian's postgresql"
    apt-get update -qq && apt-get install -y -qq postgresql >/dev/null || return 1
    bindir=$(fencelint_pg_bindir)
    [ -n "$bindir" ] || { echo "postgres.sh: still no initdb after installing postgresql" >&2; return 1; }
  fi
  if ! "$bindir/pg_isready" -q -h 127.0.0.1 -p "$fencelint_pg_port"; then
    mkdir -p "$fencelint_pg_dir"
    if [ "$(id -u)" = 0 ]; then chown postgres:postgres "$fencelint_pg_dir"; fi
    chmod 700 "$fencelint_pg_dir"
    if [ ! -f "$fencelint_pg_dir/PG_VERSION" ]; then
      fencelint_pg_as_owner "$bindir/initdb" -D "$fencelint_pg_dir" -U postgres -A trust --no-sync >/dev/null || return 1
    fi
    fencelint_pg_as_owner "$bindir/pg_ctl" -D "$fencelint_pg_dir" -l "$fencelint_pg_dir/server.log" -w -t 60 \
      -o "-c listen_addresses=127.0.0.1 -p $fencelint_pg_port -k $fencelint_pg_dir -c fsync=off" start >/dev/null || {
      echo "postgres.sh: the server did not start; log:" >&2
      tail -n 20 "$fencelint_pg_dir/server.log" >&2
      return 1
    }
  fi
  if ! psql -h 127.0.0.1 -p "$fencelint_pg_port" -U postgres -d postgres -Atc \
    "SELECT 1 FROM pg_database WHERE datname = '$fencelint_pg_db'" | grep -q 1; then
    psql -h 127.0.0.1 -p "$fencelint_pg_port" -U postgres -d postgres -qc "CREATE DATABASE $fencelint_pg_db" || return 1
  fi
  export DATABASE_URL="postgres://postgres@127.0.0.1:$fencelint_pg_port/$fencelint_pg_db"
  echo "postgres.sh: PostgreSQL ready, DATABASE_URL=$DATABASE_URL"
}

fencelint_postgres_stop() {
  local bindir
  bindir=$(fencelint_pg_bindir)
  if [ -n "$bindir" ] && [ -f "$fencelint_pg_dir/postmaster.pid" ]; then
    fencelint_pg_as_owner "$bindir/pg_ctl" -D "$fencelint_pg_dir" -m fast -w stop >/dev/null || true
  fi
}

fencelint_postgres_start
