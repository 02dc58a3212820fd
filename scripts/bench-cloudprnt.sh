#!/usr/bin/env bash
# Load benchmark of the CloudPRNT server: one daemon, DEVICES Star CloudPRNT printers polling every
# INTERVAL seconds (simulated: scripts/bench/cloudprnt_fleet.py), jobs printed among them; then the
# cost of a poll with nothing to print (daemon CPU per poll, at wrk's rate). Bounded.
#   scripts/bench-cloudprnt.sh [DEVICES] [INTERVAL] [SECONDS]
set -euo pipefail
cd "$(dirname "$0")/.."
devices=${1:-1000}
interval=${2:-5}
seconds=${3:-60}
command -v wrk >/dev/null || { apt-get update -qq && apt-get install -y -qq wrk >/dev/null; }
binary=${RECEIPT_BINARY:-.build/release/receipt}
[[ -x "$binary" && -x "$(dirname "$binary")/receipt-daemon" ]] || make release
work=$(mktemp -d /tmp/receipt-bench-cloudprnt-XXXXXX)
trap 'kill -9 $pid 2>/dev/null || true; rm -rf "$work"' EXIT
port=$((20000 + RANDOM % 20000))
python3 - "$devices" >"$work/serve.json" <<'PY'
import json, sys
n = int(sys.argv[1])
mac = lambda i: "00:11:62:%02x:%02x:%02x" % (i >> 16 & 255, i >> 8 & 255, i & 255)
print(json.dumps({
    "printers": {"p%d" % i: "cloudprnt:" + mac(i) for i in range(n)},
    "printerModels": {"p%d" % i: "star-mcprint3" for i in range(n)},
    "printerCredentials": {"p%d" % i: "p%d:pw" % i for i in range(n)},
    "maxConnections": 4096}))
PY
"$binary" serve --no-ipp --port "$port" --db "$work/queue.sqlite" --config "$work/serve.json" \
  --templates Templates >"$work/serve.log" 2>&1 &
pid=$!
for _ in $(seq 300); do curl -sf "http://127.0.0.1:$port/healthz" >/dev/null && break; sleep 0.1; done
sleep 2
cpu() { awk '{print $14 + $15}' "/proc/$pid/stat"; }
tick=$(getconf CLK_TCK)
echo "printers: $devices CloudPRNT, idle RSS $(($(awk '/VmRSS/ {print $2}' "/proc/$pid/status") / 1024)) MiB, threads $(ls /proc/$pid/task | wc -l)"
# The fleet: every device polls every INTERVAL s; 2 jobs per second go to printers in turn.
order=$(cat Templates/Examples/small.json)
(
  end=$((SECONDS + seconds - 5))
  i=0
  while ((SECONDS < end)); do
    curl -sf -o /dev/null -X POST "http://127.0.0.1:$port/v1/jobs" -H 'Content-Type: application/json' \
      -d "{\"template\": \"receipt\", \"printer\": \"p$((i * 37 % devices))\", \"data\": $order}" || true
    i=$((i + 1))
    sleep 0.5
  done
  echo "$i" >"$work/submitted"
) &
submitter=$!
before=$(cpu)
python3 scripts/bench/cloudprnt_fleet.py "$port" "$devices" "$interval" "$seconds" 8 | tee "$work/fleet.json"
after=$(cpu)
wait "$submitter"
echo "fleet: $(cat "$work/submitted") jobs submitted; daemon CPU $(awk -v c=$((after - before)) -v t="$tick" -v s="$seconds" 'BEGIN {printf "%.1f", 100 * c / t / s}') % of one core over ${seconds} s"
sleep 3
echo "jobs completed: $(curl -s "http://127.0.0.1:$port/metrics" | awk '/^receipt_jobs\{.*state="completed"/ {n += $2} END {print n + 0}')"
# A poll with nothing to print, at wrk's rate over every device: daemon CPU per poll.
python3 - "$devices" >"$work/poll.lua" <<'PY'
import base64, sys
n = int(sys.argv[1])
mac = lambda i: "00:11:62:%02x:%02x:%02x" % (i >> 16 & 255, i >> 8 & 255, i & 255)
print("local devices = {")
for i in range(n):
    auth = base64.b64encode(("p%d:pw" % i).encode()).decode()
    print('  {"%s", "Basic %s"},' % (mac(i), auth))
print("}")
print("""local i = 0
request = function()
  i = i % #devices + 1
  local body = '{"printerMAC": "' .. devices[i][1] .. '", "statusCode": "200%20OK"}'
  return wrk.format("POST", "/cloudprnt", {["Content-Type"] = "application/json",
    ["Authorization"] = devices[i][2]}, body)
end""")
PY
before=$(cpu)
wrk -t1 -c8 -d15s --latency -s "$work/poll.lua" "http://127.0.0.1:$port" >"$work/wrk.txt"
after=$(cpu)
polls=$(awk '/requests in/ {print $1}' "$work/wrk.txt")
bad=$(awk '/Non-2xx/ {print $5}' "$work/wrk.txt")
echo "idle polls at wrk's rate: $(awk '/Requests\/sec/ {print $2}' "$work/wrk.txt")/s, p50 $(awk '$1 == "50%" {print $2}' "$work/wrk.txt"), p99 $(awk '$1 == "99%" {print $2}' "$work/wrk.txt"), non-2xx ${bad:-0}"
echo "daemon CPU per idle poll: $(awk -v c=$((after - before)) -v t="$tick" -v n="$polls" 'BEGIN {printf "%.3f", 1000 * c / t / n}') ms"
echo "RSS after load: $(($(awk '/VmRSS/ {print $2}' "/proc/$pid/status") / 1024)) MiB"
