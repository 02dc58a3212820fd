#!/usr/bin/env bash
# Submissions per second and submit latency (p50/p99) of `receipt serve` on SQLite, on
# PostgreSQL with one daemon, and on PostgreSQL with three daemons sharing the database (wrk on
# loopback, one wrk per daemon, 8 connections in all); then /healthz latency while another session
# holds the job table locked for 5 seconds (submissions waiting meanwhile). Bounded: one round of DURATION seconds per
# setup; a private PostgreSQL 15 cluster in a temporary directory, stopped at the end.
#   scripts/bench-postgres.sh [DURATION]
set -euo pipefail
cd "$(dirname "$0")/.."
duration=${1:-10}
command -v wrk >/dev/null || { apt-get update -qq && apt-get install -y -qq wrk >/dev/null; }
[[ -d /usr/lib/postgresql ]] || { apt-get update -qq && apt-get install -y -qq postgresql >/dev/null; }
bin=$(ls -d /usr/lib/postgresql/*/bin | sort | tail -1)
binary=${RECEIPT_BINARY:-.build/release/receipt}
[[ -x "$binary" && -x "$(dirname "$binary")/receipt-daemon" ]] || make release
work=$(mktemp -d /tmp/receipt-bench-pg-XXXXXX)
chmod 755 "$work"
pids=()
pgport=$((40000 + RANDOM % 10000))
as_postgres() { setpriv --reuid=postgres --regid=postgres --init-groups -- "$@"; }
cleanup() {
  for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null || true; done
  as_postgres "$bin/pg_ctl" -D "$work/pg" -m immediate stop >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT
# The daemons' archive of printed documents in the work directory (with a PostgreSQL URL it is
# ./receipt-archive by default: the checkout's directory, kept from run to run).
printf '{"archive": "%s/receipt-archive"}\n' "$work" >"$work/serve.json"
mkdir "$work/pg" && chown postgres "$work/pg" && touch "$work/pg.log" && chown postgres "$work/pg.log"
as_postgres "$bin/initdb" -D "$work/pg" -A trust -U postgres -N >/dev/null
as_postgres "$bin/pg_ctl" -D "$work/pg" -l "$work/pg.log" -w \
  -o "-p $pgport -k $work/pg -c listen_addresses=127.0.0.1" start >/dev/null
psql() { "$bin/psql" -h 127.0.0.1 -p "$pgport" -U postgres -At "$@"; }
echo "PostgreSQL: $(psql -c 'SHOW server_version') (fsync $(psql -c 'SHOW fsync'), synchronous_commit $(psql -c 'SHOW synchronous_commit'))"

# Starts N daemons on DB; sets ports. `--no-ipp`: the JSON API is measured, and an IPP listener
# on port + 2 could take another daemon's random port.
start() {
  local db=$1 count=$2
  ports=()
  for i in $(seq "$count"); do
    local port=$((20000 + RANDOM % 20000))
    mkdir -p "$work/archive"
    "$binary" serve --no-ipp --port "$port" --db "$db" --printer "archive=dir:$work/archive" --templates Templates \
      --config "$work/serve.json" \
      >"$work/serve-$i.log" 2>&1 &
    pids+=($!)
    ports+=("$port")
    for _ in $(seq 100); do curl -sf "http://127.0.0.1:$port/readyz" >/dev/null && break; sleep 0.1; done
  done
  sleep 1
}
stop() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
  pids=()
}
# CPU seconds (user + system) used so far by the daemons and by PostgreSQL's processes.
cpu() {
  local ticks=0 pid
  for pid in "$@"; do
    [[ -r /proc/$pid/stat ]] && ticks=$((ticks + $(awk '{print $14 + $15}' "/proc/$pid/stat")))
  done
  echo "$ticks"
}
# This cluster's processes only: its postmaster (first line of postmaster.pid) and its children.
postgres_pids() {
  local main
  main=$(head -1 "$work/pg/postmaster.pid")
  echo "$main $(pgrep -P "$main" | tr '\n' ' ')"
}
# wrk against every port at once, 8 connections in all; prints the summed rate, the worst p50/p99
# and the CPU the daemons and PostgreSQL used per submission (ms).
load() {
  local label=$1 n=${#ports[@]} per
  local pg_before daemons_before
  daemons_before=$(cpu "${pids[@]}")
  pg_before=$(cpu $(postgres_pids))
  for i in "${!ports[@]}"; do
    # 8 connections in all: with three daemons 3, 3 and 2.
    per=$(((8 + n - 1 - i) / n))
    RECEIPT_ORDER=Templates/Examples/small.json wrk -t1 -c"$per" -d"${duration}s" --latency \
      -s scripts/bench/submit.lua "http://127.0.0.1:${ports[$i]}" >"$work/wrk-$i.txt" &
  done
  wait $(jobs -p | grep -v -x -F "$(printf '%s\n' "${pids[@]}")") 2>/dev/null || true
  sleep 0.5
  local rps p50 p99 bad
  rps=$(cat "$work"/wrk-*.txt | awk '/Requests\/sec/ {n += $2} END {printf "%.0f", n}')
  p50=$(cat "$work"/wrk-*.txt | awk '$1 == "50%" {print $2}' | sort -h | tail -1)
  p99=$(cat "$work"/wrk-*.txt | awk '$1 == "99%" {print $2}' | sort -h | tail -1)
  bad=$(cat "$work"/wrk-*.txt | awk '/Non-2xx/ {n += $5} END {print n + 0}')
  local hz requests daemons_ms pg_ms
  hz=$(getconf CLK_TCK)
  requests=$(cat "$work"/wrk-*.txt | awk '/requests in/ {n += $1} END {print n + 0}')
  daemons_ms=$(awk -v t=$(($(cpu "${pids[@]}") - daemons_before)) -v r="$requests" -v hz="$hz" 'BEGIN {printf "%.2f", t * 1000 / hz / r}')
  pg_ms=$(awk -v t=$(($(cpu $(postgres_pids)) - pg_before)) -v r="$requests" -v hz="$hz" 'BEGIN {printf "%.2f", t * 1000 / hz / r}')
  echo "| $label | $n | $rps | $p50 | $p99 | $bad | $daemons_ms | $pg_ms |"
  rm -f "$work"/wrk-*.txt
}
echo "| store | daemons | submissions/s | p50 (worst daemon) | p99 (worst daemon) | non-2xx | daemons' CPU per submission | PostgreSQL's CPU per submission |"
echo "|---|---|---|---|---|---|---|---|"
start "$work/queue.sqlite" 1
load "SQLite" && stop
psql -c "CREATE DATABASE one" >/dev/null
start "postgres://postgres@127.0.0.1:$pgport/one" 1
load "PostgreSQL" && stop
psql -c "CREATE DATABASE three" >/dev/null
start "postgres://postgres@127.0.0.1:$pgport/three" 3
load "PostgreSQL" && stop
# /healthz while PostgreSQL stalls: a session holds the job table for 5 s while 4 connections keep
# submitting (each waits on the lock) and one connection asks /healthz as fast as it answers.
stall() {
  psql -c "CREATE DATABASE stall" >/dev/null
  start "postgres://postgres@127.0.0.1:$pgport/stall" 1
  local port=${ports[0]}
  psql -d stall -c "BEGIN; LOCK TABLE job IN ACCESS EXCLUSIVE MODE; SELECT pg_sleep(6); COMMIT;" >/dev/null &
  local locker=$!
  sleep 0.5
  RECEIPT_ORDER=Templates/Examples/small.json wrk -t1 -c4 -d5s --timeout 10s \
    -s scripts/bench/submit.lua "http://127.0.0.1:$port" >"$work/stall-submit.txt" &
  local submitter=$!
  wrk -t1 -c1 -d5s --latency "http://127.0.0.1:$port/healthz" >"$work/stall-health.txt"
  wait "$locker" "$submitter" || true
  local p50 p99 max n
  p50=$(awk '$1 == "50%" {print $2}' "$work/stall-health.txt")
  p99=$(awk '$1 == "99%" {print $2}' "$work/stall-health.txt")
  max=$(awk '$1 == "Latency" {print $4}' "$work/stall-health.txt")
  n=$(awk '/requests in/ {print $1}' "$work/stall-health.txt")
  echo
  echo "| /healthz during a 5 s table lock | requests | p50 | p99 | max |"
  echo "|---|---|---|---|---|"
  echo "| PostgreSQL, 4 submitters waiting | $n | $p50 | $p99 | $max |"
  stop
}
stall
echo "jobs stored: one $(psql -d one -c 'SELECT count(*) FROM job'), three $(psql -d three -c 'SELECT count(*) FROM job')"
