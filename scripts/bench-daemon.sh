#!/usr/bin/env bash
# Load benchmark of `receipt serve`: durable submissions per second, submit latency (p50/p99) and
# resident memory, with wrk on loopback. Bounded: 3 rounds of DURATION seconds each.
#   scripts/bench-daemon.sh [DURATION] [CONNECTIONS]
set -euo pipefail
cd "$(dirname "$0")/.."
duration=${1:-15}
connections=${2:-16}
command -v wrk >/dev/null || { apt-get update -qq && apt-get install -y -qq wrk >/dev/null; }
[[ -x .build/release/receipt ]] || swift build -c release -Xswiftc -static-stdlib --product receipt
work=$(mktemp -d /tmp/receipt-bench-XXXXXX)
trap 'kill -9 $pid 2>/dev/null || true; rm -rf "$work"' EXIT
port=$((20000 + RANDOM % 20000))
mkdir -p "$work/archive"
./.build/release/receipt serve --port "$port" --db "$work/queue.sqlite" --printer "archive=dir:$work/archive" \
  --templates Templates >"$work/serve.log" 2>&1 &
pid=$!
for _ in $(seq 100); do curl -sf "http://127.0.0.1:$port/healthz" >/dev/null && break; sleep 0.1; done
sleep 2
rss() { awk '/VmRSS/ {print $2}' "/proc/$pid/status"; }
idle=$(rss)
echo "idle RSS: $((idle / 1024)) MiB"
echo "journal: $(sqlite3 "$work/queue.sqlite" 'PRAGMA journal_mode' 2>/dev/null || echo wal)"
for round in 1 2 3; do
  RECEIPT_ORDER=Templates/Examples/small.json wrk -t"${WRK_THREADS:-1}" -c"$connections" -d"${duration}s" --latency \
    -s scripts/bench/submit.lua "http://127.0.0.1:$port" >"$work/wrk-$round.txt"
  rps=$(awk '/Requests\/sec/ {print $2}' "$work/wrk-$round.txt")
  p50=$(awk '$1 == "50%" {print $2}' "$work/wrk-$round.txt")
  p99=$(awk '$1 == "99%" {print $2}' "$work/wrk-$round.txt")
  bad=$(awk '/Non-2xx/ {print $5}' "$work/wrk-$round.txt")
  errors=$(grep -c "Socket errors" "$work/wrk-$round.txt" || true)
  echo "round $round: $rps submissions/s, p50 $p50, p99 $p99, non-2xx ${bad:-0}, socket-error lines $errors"
done
stored=$(curl -s "http://127.0.0.1:$port/metrics" | awk '/^receipt_jobs\{/ {n += $2} END {print n}')
sent=$(cat "$work"/wrk-*.txt | awk '/requests in/ {n += $1} END {print n}')
echo "requests sent: $sent, jobs in the queue: $stored (every 202 is a stored job)"
echo "RSS after load: $(($(rss) / 1024)) MiB"
