#!/usr/bin/env bash
# Load benchmark of `receipt serve`: durable submissions per second, submit latency (p50/p99) and
# resident memory, with wrk on loopback. Bounded: 3 rounds of DURATION seconds each.
#   scripts/bench-daemon.sh [DURATION] [CONNECTIONS]
set -euo pipefail
cd "$(dirname "$0")/.."
duration=${1:-15}
connections=${2:-16}
command -v wrk >/dev/null && command -v sqlite3 >/dev/null ||
  { apt-get update -qq && apt-get install -y -qq wrk sqlite3 >/dev/null; }
binary=${RECEIPT_BINARY:-.build/release/receipt}
[[ -x "$binary" && -x "$(dirname "$binary")/receipt-daemon" ]] || make release
work=$(mktemp -d /tmp/receipt-bench-XXXXXX)
trap 'kill -9 $pid 2>/dev/null || true; rm -rf "$work"' EXIT
port=$((20000 + RANDOM % 20000))
mkdir -p "$work/archive"
"$binary" serve --no-ipp --port "$port" --db "$work/queue.sqlite" --printer "archive=dir:$work/archive" \
  --templates Templates >"$work/serve.log" 2>&1 &
pid=$!
for _ in $(seq 100); do curl -sf "http://127.0.0.1:$port/healthz" >/dev/null && break; sleep 0.1; done
sleep 2
rss() { awk '/VmRSS/ {print $2}' "/proc/$pid/status"; }
idle=$(rss)
echo "idle RSS: $((idle / 1024)) MiB"
echo "journal: $(sqlite3 "$work/queue.sqlite" 'PRAGMA journal_mode' 2>/dev/null || echo wal)"
# 202-to-printed on an idle queue: one job at a time, each printed (a PDF in the directory)
# before the next is sent; the daemon's own timestamps (accepted → completed recorded).
order=$(cat Templates/Examples/small.json)
for i in $(seq "${LATENCY_JOBS:-200}"); do
  curl -sf -o /dev/null -X POST "http://127.0.0.1:$port/v1/jobs" -H 'Content-Type: application/json' \
    -d "{\"template\": \"receipt\", \"printer\": \"archive\", \"data\": $order}"
  for _ in $(seq 1000); do
    [[ $(find "$work/archive" -name '*.pdf' | wc -l) -ge $i ]] && break
    sleep 0.002
  done
done
sleep 0.5
sqlite3 "$work/queue.sqlite" "SELECT (julianday(updatedAt) - julianday(createdAt)) * 86400000 FROM job
  WHERE state = 'completed' ORDER BY 1" >"$work/latency.txt"
awk '{ v[NR] = $1 } END {
  if (NR == 0) { print "202-to-printed: no completed jobs"; exit }
  printf "202-to-printed (idle queue, %d jobs): median %.1f ms, p99 %.1f ms\n", NR, v[int((NR + 1) / 2)], v[int(NR * 0.99 + 0.999)]
}' "$work/latency.txt"
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
