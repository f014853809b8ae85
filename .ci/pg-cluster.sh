#!/usr/bin/env bash
# A throwaway PostgreSQL cluster for the tests.
#
#   .ci/pg-cluster.sh start DIR   create and start a cluster in the empty folder DIR, print the
#                                 `export` lines that point the tests at it
#   .ci/pg-cluster.sh stop DIR    stop it and delete DIR
#
# The cluster belongs to the `postgres` OS user (initdb refuses root), listens on a unix socket in
# DIR and on a random free port of 127.0.0.1 with TLS (a CA made here), and accepts only
# scram-sha-256 passwords. It holds database `bench`, owned by role `bench`, and a role `bench_ro`
# that may log in and nothing else: a test grants it USAGE and SELECT on its own schema, as the
# README tells a team to do. Exported for the tests:
#   BENCH_DB_TEST_PG         postgres://bench:…@127.0.0.1:PORT/bench (TCP, sslmode=prefer)
#   BENCH_DB_TEST_PG_SOCKET  the same database over the unix socket
#   BENCH_DB_TEST_PG_RO      postgres://bench_ro:…@127.0.0.1:PORT/bench
#   BENCH_DB_TEST_PG_CA      the CA certificate the server's certificate is signed with
#   BENCH_DB_TEST_PG_POOLED  the same database through PgBouncer in session mode (a free
#                            port of 127.0.0.1), which authenticates `bench` with its SCRAM
#                            verifier and passes that authentication on to the server
set -euo pipefail

die() { echo "pg-cluster: $*" >&2; exit 1; }

pg_bin() {
  local d
  for d in /usr/lib/postgresql/*/bin; do
    [ -x "$d/initdb" ] && { echo "$d"; return; }
  done
  return 1
}

# Runs a command as the postgres OS user (we are root in CI; a non-root user runs it as itself).
as_pg() {
  if [ "$(id -u)" = 0 ]; then
    runuser -u postgres -- "$@"
  else
    "$@"
  fi
}

pgbouncer_bin() {
  local p
  for p in "$(command -v pgbouncer 2>/dev/null)" /usr/sbin/pgbouncer; do
    [ -n "$p" ] && [ -x "$p" ] && { echo "$p"; return; }
  done
  return 1
}

free_port() {
  local p
  for _ in $(seq 1 50); do
    p=$((20000 + RANDOM % 40000))
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then
      echo "$p"
      return
    fi
  done
  die "no free port found"
}

start() {
  local dir=$1
  [ -d "$dir" ] || die "no folder $dir"
  if ! BIN=$(pg_bin); then
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >&2
    apt-get install -y -qq postgresql >&2
    BIN=$(pg_bin) || die "PostgreSQL did not install"
  fi
  command -v openssl >/dev/null || die "openssl is needed for the test certificate"
  if ! PGB=$(pgbouncer_bin); then
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >&2
    apt-get install -y -qq pgbouncer >&2
    PGB=$(pgbouncer_bin) || die "PgBouncer did not install"
  fi
  local data="$dir/data" sock="$dir/sock"
  mkdir -p "$data" "$sock"
  local super_pw bench_pw ro_pw
  super_pw=$(openssl rand -hex 16)
  bench_pw=$(openssl rand -hex 16)
  ro_pw=$(openssl rand -hex 16)
  printf '%s\n' "$super_pw" >"$dir/superpw"
  chmod 700 "$dir"
  chown -R postgres: "$dir" 2>/dev/null || true
  as_pg "$BIN/initdb" -D "$data" -U postgres --auth=scram-sha-256 --pwfile="$dir/superpw" \
    --encoding=UTF8 --locale=C >"$dir/initdb.log" 2>&1 || { cat "$dir/initdb.log" >&2; die "initdb failed"; }
  # A CA and a server certificate for 127.0.0.1, so `sslmode=require` is tested for real.
  (
    cd "$data"
    openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=bench-db test CA" \
      -keyout ca.key -out ca.crt 2>/dev/null
    openssl req -newkey rsa:2048 -nodes -subj "/CN=localhost" -keyout server.key -out server.csr 2>/dev/null
    printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\n' >san.ext
    openssl x509 -req -in server.csr -CA ca.crt -CAkey ca.key -CAcreateserial -days 2 \
      -extfile san.ext -out server.crt 2>/dev/null
    chmod 600 server.key ca.key
  )
  chown -R postgres: "$dir" 2>/dev/null || true
  cp "$data/ca.crt" "$dir/ca.crt"
  chmod 644 "$dir/ca.crt"
  local port
  for _ in 1 2 3; do
    port=$(free_port)
    if as_pg "$BIN/pg_ctl" -D "$data" -l "$dir/server.log" -w -t 60 start -o \
      "-c listen_addresses=127.0.0.1 -p $port -k $sock -c ssl=on -c max_connections=200 -c fsync=off" \
      >/dev/null 2>&1; then
      break
    fi
    port=""
  done
  [ -n "$port" ] || { cat "$dir/server.log" >&2; die "the server did not start"; }
  echo "$port" >"$dir/port"
  PGPASSWORD=$super_pw "$BIN/psql" -X -q -v ON_ERROR_STOP=1 -h "$sock" -p "$port" -U postgres -d postgres >&2 <<SQL
CREATE ROLE bench LOGIN PASSWORD '$bench_pw';
CREATE ROLE bench_ro LOGIN PASSWORD '$ro_pw';
CREATE DATABASE bench OWNER bench;
SQL
  PGPASSWORD=$super_pw "$BIN/psql" -X -q -v ON_ERROR_STOP=1 -h "$sock" -p "$port" -U postgres -d bench >&2 <<SQL
REVOKE CREATE ON SCHEMA public FROM PUBLIC;
ALTER SCHEMA public OWNER TO bench;
SQL
  # PgBouncer in session mode before the cluster, as a team puts one before a server that
  # many short CI jobs connect to. Its user list holds the role's SCRAM verifier, not the
  # password; it reaches the server over the unix socket.
  local pgb="$dir/pgbouncer" pgb_port="" verifier
  mkdir -p "$pgb"
  verifier=$(PGPASSWORD=$super_pw "$BIN/psql" -X -q -At -h "$sock" -p "$port" -U postgres -d postgres \
    -c "SELECT rolpassword FROM pg_authid WHERE rolname = 'bench'")
  printf '"bench" "%s"\n' "$verifier" >"$pgb/userlist.txt"
  chmod 600 "$pgb/userlist.txt"
  for _ in 1 2 3; do
    pgb_port=$(free_port)
    cat >"$pgb/pgbouncer.ini" <<INI
[databases]
bench = host=$sock port=$port dbname=bench
[pgbouncer]
listen_addr = 127.0.0.1
listen_port = $pgb_port
unix_socket_dir =
auth_type = scram-sha-256
auth_file = $pgb/userlist.txt
pool_mode = session
max_client_conn = 100
default_pool_size = 20
logfile = $pgb/pgbouncer.log
pidfile = $pgb/pgbouncer.pid
INI
    chown -R postgres: "$pgb" 2>/dev/null || true
    if as_pg "$PGB" -d "$pgb/pgbouncer.ini" >/dev/null 2>&1; then
      local up=""
      for _ in $(seq 1 50); do
        if (exec 3<>"/dev/tcp/127.0.0.1/$pgb_port") 2>/dev/null; then up=1; break; fi
        sleep 0.1
      done
      [ -n "$up" ] && break
      stop_pgbouncer "$dir"
    fi
    pgb_port=""
  done
  [ -n "$pgb_port" ] || { cat "$pgb/pgbouncer.log" >&2 2>/dev/null; die "PgBouncer did not start"; }
  local enc_sock
  enc_sock=$(printf '%s' "$sock" | sed 's|/|%2F|g')
  echo "export BENCH_DB_TEST_PG='postgres://bench:$bench_pw@127.0.0.1:$port/bench'"
  echo "export BENCH_DB_TEST_PG_SOCKET='postgres://bench:$bench_pw@$enc_sock:$port/bench'"
  echo "export BENCH_DB_TEST_PG_RO='postgres://bench_ro:$ro_pw@127.0.0.1:$port/bench'"
  echo "export BENCH_DB_TEST_PG_CA='$dir/ca.crt'"
  echo "export BENCH_DB_TEST_PG_POOLED='postgres://bench:$bench_pw@127.0.0.1:$pgb_port/bench'"
}

stop_pgbouncer() {
  local pid="$1/pgbouncer/pgbouncer.pid"
  if [ -f "$pid" ]; then
    kill "$(cat "$pid")" 2>/dev/null || true
    for _ in $(seq 1 50); do
      [ -f "$pid" ] || break
      sleep 0.1
    done
  fi
}

stop() {
  local dir=$1
  [ -d "$dir" ] || return 0
  stop_pgbouncer "$dir"
  if [ -f "$dir/data/postmaster.pid" ] && BIN=$(pg_bin); then
    as_pg "$BIN/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null 2>&1 || true
  fi
  rm -rf "$dir"
}

case "${1:-}" in
  start) start "${2:?usage: $0 start DIR}" ;;
  stop) stop "${2:?usage: $0 stop DIR}" ;;
  *) die "usage: $0 start|stop DIR" ;;
esac
