#!/usr/bin/env bash
# A local streaming read replica of a running PostgreSQL server, for DATABASE_READ_URL: a base
# backup of the primary (pg_basebackup -R, WAL streamed), started as a hot standby on its own
# port. For trying the read-replica wiring and for its server test; not a production set-up.
#
#   scripts/replica.sh start [--allow-hba]   make (or reuse) the replica, print its URL
#   scripts/replica.sh stop                  stop it and delete its files
#   scripts/replica.sh status
#
# Environment: PRIMARY_HOST (127.0.0.1), PRIMARY_PORT (5432), PRIMARY_USER (root; a superuser or a
# role with REPLICATION), REPLICA_PORT (5433), REPLICA_DIR (${TMPDIR:-/tmp}/eval-console-replica).
#
# What the primary needs: wal_level replica or logical (the default), max_wal_senders > 0 (default
# 10), and a pg_hba.conf line that lets PRIMARY_USER connect for replication from 127.0.0.1: the
# database column "all" does not match replication connections, so it takes an explicit line such
# as `host replication all 127.0.0.1/32 trust`. With --allow-hba the script adds exactly that line
# at the top of the primary's pg_hba.conf and reloads it when replication is refused (it must be
# able to write the file: run as root or as the server's owner). The server binaries refuse to run
# as root, so as root the replica's files and process belong to the postgres user (runuser).
#
# The replica holds every database of the primary: the base backup copies the whole cluster (its
# time grows with the cluster's size: a few seconds for a fresh server, about a minute per few GB).
set -euo pipefail

PRIMARY_HOST="${PRIMARY_HOST:-127.0.0.1}"
PRIMARY_PORT="${PRIMARY_PORT:-5432}"
PRIMARY_USER="${PRIMARY_USER:-root}"
REPLICA_PORT="${REPLICA_PORT:-5433}"
REPLICA_DIR="${REPLICA_DIR:-${TMPDIR:-/tmp}/eval-console-replica}"
DATA="$REPLICA_DIR/data"
LOG="$REPLICA_DIR/replica.log"

bin_dir() {
  local v
  for v in $(ls /usr/lib/postgresql 2>/dev/null | sort -rn); do
    if [ -x "/usr/lib/postgresql/$v/bin/pg_basebackup" ]; then
      echo "/usr/lib/postgresql/$v/bin"
      return
    fi
  done
  dirname "$(command -v pg_basebackup)"
}
BIN="$(bin_dir)"

# As root, the server's tools run as the postgres user (they refuse root).
as_owner() {
  if [ "$(id -u)" -eq 0 ]; then
    runuser -u postgres -- "$@"
  else
    "$@"
  fi
}

primary_sql() {
  psql -X -q -At -h "$PRIMARY_HOST" -p "$PRIMARY_PORT" -U "$PRIMARY_USER" -d postgres -c "$1"
}

replication_allowed() {
  psql -X -q -At "host=$PRIMARY_HOST port=$PRIMARY_PORT user=$PRIMARY_USER dbname=postgres replication=true" \
    -c "IDENTIFY_SYSTEM" >/dev/null 2>&1
}

running() {
  [ -f "$DATA/postmaster.pid" ] && as_owner "$BIN/pg_ctl" -D "$DATA" status >/dev/null 2>&1
}

url() { echo "postgres://$PRIMARY_USER@127.0.0.1:$REPLICA_PORT/postgres"; }

start() {
  local allow_hba="${1:-}"
  if running; then
    echo "replica already running: $(url)"
    return
  fi
  if [ "$(primary_sql "select rolsuper or rolreplication from pg_roles where rolname = current_user")" != "t" ]; then
    echo "the role $PRIMARY_USER may not replicate: it needs SUPERUSER or REPLICATION" >&2
    exit 1
  fi
  if ! replication_allowed; then
    local hba
    hba="$(primary_sql "show hba_file")"
    if [ "$allow_hba" != "--allow-hba" ]; then
      echo "the primary refuses replication connections from 127.0.0.1 for $PRIMARY_USER." >&2
      echo "add this line at the top of $hba and reload (select pg_reload_conf()), or rerun with --allow-hba:" >&2
      echo "  host replication all 127.0.0.1/32 trust" >&2
      exit 1
    fi
    sed -i '1i host replication all 127.0.0.1/32 trust' "$hba"
    primary_sql "select pg_reload_conf()" >/dev/null
    sleep 0.2
    replication_allowed || {
      echo "replication still refused after editing $hba" >&2
      exit 1
    }
  fi

  rm -rf "$REPLICA_DIR"
  mkdir -p "$REPLICA_DIR"
  chmod 700 "$REPLICA_DIR"
  [ "$(id -u)" -eq 0 ] && chown postgres:postgres "$REPLICA_DIR"
  # -R writes standby.signal and primary_conninfo; -X stream carries the WAL written meanwhile;
  # -c fast asks for an immediate checkpoint instead of waiting for the next one.
  as_owner "$BIN/pg_basebackup" -h "$PRIMARY_HOST" -p "$PRIMARY_PORT" -U "$PRIMARY_USER" -D "$DATA" \
    -R -X stream -c fast --no-sync

  # A hot standby must allow at least as many of these as its primary.
  local settings="" name
  for name in max_connections max_worker_processes max_wal_senders max_prepared_transactions max_locks_per_transaction; do
    settings+="$name = $(primary_sql "show $name")"$'\n'
  done
  # Debian keeps the configuration outside the data directory, so the copy may have none; later
  # lines win over anything the copied files say.
  as_owner tee -a "$DATA/postgresql.conf" >/dev/null <<EOF
port = $REPLICA_PORT
listen_addresses = '127.0.0.1'
unix_socket_directories = '$REPLICA_DIR'
hot_standby = on
shared_buffers = 32MB
ssl = off
hba_file = '$REPLICA_DIR/data/pg_hba.conf'
ident_file = '$REPLICA_DIR/data/pg_ident.conf'
$settings
EOF
  as_owner tee "$DATA/pg_hba.conf" >/dev/null <<EOF
local all all trust
host all all 127.0.0.1/32 trust
EOF
  as_owner touch "$DATA/pg_ident.conf"
  as_owner "$BIN/pg_ctl" -D "$DATA" -l "$LOG" -w -t 60 start >/dev/null
  local i
  for i in $(seq 1 100); do
    if [ "$(psql -X -q -At -h 127.0.0.1 -p "$REPLICA_PORT" -U "$PRIMARY_USER" -d postgres -c "select pg_is_in_recovery()" 2>/dev/null)" = "t" ]; then
      echo "replica running: $(url)"
      echo "  use it as DATABASE_READ_URL with the same database name as DATABASE_URL"
      return
    fi
    sleep 0.1
  done
  echo "the replica did not come up; see $LOG" >&2
  exit 1
}

stop() {
  if running; then as_owner "$BIN/pg_ctl" -D "$DATA" -m fast -w -t 60 stop >/dev/null; fi
  rm -rf "$REPLICA_DIR"
  echo "replica stopped"
}

status() {
  if running; then
    echo "running: $(url)"
    psql -X -q -At -h 127.0.0.1 -p "$REPLICA_PORT" -U "$PRIMARY_USER" -d postgres \
      -c "select 'replay lag: ' || coalesce((now() - pg_last_xact_replay_timestamp())::text, 'none yet')"
  else
    echo "not running"
    exit 1
  fi
}

case "${1:-}" in
  start) start "${2:-}" ;;
  stop) stop ;;
  status) status ;;
  *)
    echo "usage: $0 start [--allow-hba] | stop | status" >&2
    exit 2
    ;;
esac
