#!/usr/bin/env bash
# A local streaming read replica of a running PostgreSQL server, for DATABASE_READ_URL: a base
# backup of the primary (pg_basebackup -R, WAL streamed), started as a hot standby on its own
# port. For trying the read-replica wiring and for its server test; not a production set-up.
#
#   scripts/replica.sh start [--allow-hba] [--max-size-mb N]
#                                            make (or reuse) the replica, print its URL; with
#                                            --max-size-mb, refuse when the primary's databases
#                                            are larger (the base backup copies all of them)
#   scripts/replica.sh stop                  stop it and delete its files
#   scripts/replica.sh status
#
# Environment: PRIMARY_HOST (127.0.0.1), PRIMARY_PORT (5432), PRIMARY_USER (root; a superuser or a
# role with REPLICATION), REPLICA_PORT (5433), REPLICA_DIR (${TMPDIR:-/tmp}/eval-console-replica),
# REPLICA_SLOT (eval_console_replica).
#
# The replica streams through a physical replication slot, so the primary keeps the WAL it has not
# replayed yet (without one, a burst of writes while the replica lags or is stopped recycles the
# WAL it needs and it can never catch up). A slot keeps WAL for as long as it exists: `stop` drops
# it, and `start` drops a leftover one of the same name. Do not delete REPLICA_DIR by hand.
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
REPLICA_SLOT="${REPLICA_SLOT:-eval_console_replica}"
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
  local allow_hba="" max_mb=""
  while [ $# -gt 0 ]; do
    case "$1" in
      --allow-hba) allow_hba=1 ;;
      --max-size-mb)
        max_mb="$2"
        shift
        ;;
      *)
        echo "unknown option $1" >&2
        exit 2
        ;;
    esac
    shift
  done
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
    if [ -z "$allow_hba" ]; then
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

  if [ -n "$max_mb" ]; then
    local mb
    mb="$(primary_sql "select (sum(pg_database_size(datname)) / 1048576)::bigint from pg_database")"
    if [ "$mb" -gt "$max_mb" ]; then
      echo "the primary's databases hold $mb MB, more than --max-size-mb $max_mb: no replica made" >&2
      exit 1
    fi
  fi
  drop_slot
  rm -rf "$REPLICA_DIR"
  mkdir -p "$REPLICA_DIR"
  chmod 700 "$REPLICA_DIR"
  [ "$(id -u)" -eq 0 ] && chown postgres:postgres "$REPLICA_DIR"
  # -R writes standby.signal, primary_conninfo and primary_slot_name; -X stream carries the WAL
  # written meanwhile; -C -S creates the slot; -c fast asks for an immediate checkpoint.
  as_owner "$BIN/pg_basebackup" -h "$PRIMARY_HOST" -p "$PRIMARY_PORT" -U "$PRIMARY_USER" -D "$DATA" \
    -R -X stream -C -S "$REPLICA_SLOT" -c fast --no-sync || {
    drop_slot
    exit 1
  }

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

drop_slot() {
  primary_sql "select pg_drop_replication_slot(slot_name) from pg_replication_slots where slot_name = '$REPLICA_SLOT' and not active" >/dev/null
}

stop() {
  if running; then as_owner "$BIN/pg_ctl" -D "$DATA" -m fast -w -t 60 stop >/dev/null; fi
  # The walsender may need a moment to notice the standby is gone before the slot is inactive.
  local i
  for i in $(seq 1 50); do
    drop_slot
    [ -z "$(primary_sql "select 1 from pg_replication_slots where slot_name = '$REPLICA_SLOT'")" ] && break
    sleep 0.1
  done
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
  start)
    shift
    start "$@"
    ;;
  stop) stop ;;
  status) status ;;
  *)
    echo "usage: $0 start [--allow-hba] [--max-size-mb N] | stop | status" >&2
    exit 2
    ;;
esac
