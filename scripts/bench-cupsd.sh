#!/usr/bin/env bash
# The daemon beside cupsd: how fast each accepts print jobs, measured by the same closed-loop
# keep-alive client (scripts/bench/closed-loop.c, THREADS connections) in one run. The daemon
# stores every job durably before its 202 (SQLite WAL, synchronous=FULL, fsync per group commit)
# and renders it meanwhile at a `dir:` printer; cupsd takes IPP Print-Job into a stopped raw
# queue (MaxJobs 0: it keeps them all; its spool files are not fsynced, SyncOnClose No). The same
# order JSON is the daemon's body and cupsd's document. Bounded: 3 rounds of DURATION s each.
#   scripts/bench-cupsd.sh [DURATION] [THREADS]
set -euo pipefail
cd "$(dirname "$0")/.."
duration=${1:-10}
threads=${2:-4}
binary=${RECEIPT_BINARY:-.build/release/receipt}
[[ -x "$binary" && -x "$(dirname "$binary")/receipt-daemon" ]] || make release
command -v cupsd >/dev/null && command -v gcc >/dev/null ||
  { apt-get update -qq && apt-get install -y -qq cups gcc libc6-dev >/dev/null; }
work=$(mktemp -d /tmp/receipt-cupsd-bench-XXXXXX)
chmod 755 "$work"
trap 'kill -9 $daemon $cups 2>/dev/null || true; rm -rf "$work"' EXIT
gcc -O2 -pthread -o "$work/closed-loop" scripts/bench/closed-loop.c

daemon=
cups=

# A private cupsd on its own port (as the tests run it), one stopped raw queue.
cups_port=$((30000 + RANDOM % 10000))
mkdir -p "$work/cups"/{spool,cache,state,log,temp}
cat >"$work/cups/cupsd.conf" <<EOF
Listen 127.0.0.1:$cups_port
LogLevel warn
WebInterface No
Browsing Off
DefaultAuthType None
MaxJobs 0
MaxJobsPerPrinter 0
MaxJobsPerUser 0
MaxClients 1000
PreserveJobHistory Yes
<Location />
  Order allow,deny
  Allow all
</Location>
<Location /admin>
  Order allow,deny
  Allow all
</Location>
<Policy default>
  <Limit All>
    Order deny,allow
  </Limit>
</Policy>
EOF
cat >"$work/cups/cups-files.conf" <<EOF
ServerRoot $work/cups
RequestRoot $work/cups/spool
CacheDir $work/cups/cache
StateDir $work/cups/state
TempDir $work/cups/temp
ErrorLog $work/cups/log/error_log
AccessLog $work/cups/log/access_log
PageLog $work/cups/log/page_log
FileDevice Yes
User lp
Group lp
EOF
chown -R lp "$work/cups"
/usr/sbin/cupsd -f -c "$work/cups/cupsd.conf" -s "$work/cups/cups-files.conf" >"$work/cupsd.out" 2>&1 &
cups=$!
for _ in $(seq 100); do
  curl -s -o /dev/null "http://127.0.0.1:$cups_port/" && break
  sleep 0.1
done
CUPS_SERVER=127.0.0.1:$cups_port lpadmin -p held -E -v file:///dev/null -m raw
CUPS_SERVER=127.0.0.1:$cups_port cupsdisable held
sleep 1

order=$(cat Templates/Examples/small.json)
printf '{"template": "receipt", "printer": "archive", "data": %s}' "$order" >"$work/job.json"
# IPP Print-Job (version 2.0) with the same JSON as its document.
python3 - "$work/job.json" "$work/print-job.ipp" "ipp://127.0.0.1:$cups_port/printers/held" <<'EOF'
import struct, sys
def attribute(tag, name, value):
    return bytes([tag]) + struct.pack(">H", len(name)) + name.encode() + struct.pack(">H", len(value)) + value
document = open(sys.argv[1], "rb").read()
request = struct.pack(">BBHI", 2, 0, 0x0002, 1) + b"\x01"
request += attribute(0x47, "attributes-charset", b"utf-8") + attribute(0x48, "attributes-natural-language", b"en")
request += attribute(0x45, "printer-uri", sys.argv[3].encode()) + attribute(0x42, "requesting-user-name", b"bench")
request += attribute(0x42, "job-name", b"receipt") + attribute(0x49, "document-format", b"application/octet-stream")
open(sys.argv[2], "wb").write(request + b"\x03" + document)
EOF

echo "closed loop, $threads keep-alive connections, $duration s rounds: requests/s, p50, p99 (ms), failures"
# cupsd first, alone on the machine; then the daemon, alone (its printer renders the jobs it has
# taken meanwhile, as at a counter; cupsd's queue is stopped and does no work for its jobs).
median() { printf '%s\n' "$@" | sort -n | sed -n 2p; }
rounds() {  # NAME PORT PATH TYPE BODY
  local rates=() n rate p50 p99 bad
  for round in 1 2 3; do
    read -r n rate p50 p99 bad < <("$work/closed-loop" 127.0.0.1 "$2" "$3" "$4" "$5" "$threads" "$duration")
    echo "round $round $1: $rate/s, p50 $p50 ms, p99 $p99 ms, failures $bad ($n jobs)" >&2
    rates+=("$rate")
  done
  median "${rates[@]}"
}
c=$(rounds "cupsd Print-Job" "$cups_port" /printers/held application/ipp "$work/print-job.ipp")
echo "jobs cupsd holds: $(CUPS_SERVER=127.0.0.1:$cups_port lpstat -o held | wc -l)"
kill $cups
wait $cups 2>/dev/null || true

# The daemon, as in bench-daemon.sh.
port=$((20000 + RANDOM % 10000))
mkdir -p "$work/archive"
# RECEIPT_HELD=1: the daemon's printer is a socket printer nobody listens on, so its jobs wait
# (retried with backoff) as cupsd's do in its stopped queue: like for like.
target="dir:$work/archive"
[[ -n "${RECEIPT_HELD:-}" ]] && target="socket://127.0.0.1:9"
"$binary" serve --no-ipp --port "$port" --db "$work/queue.sqlite" --printer "archive=$target" \
  --templates Templates >"$work/serve.log" 2>&1 &
daemon=$!
for _ in $(seq 100); do curl -sf "http://127.0.0.1:$port/healthz" >/dev/null && break; sleep 0.1; done
sleep 1
d=$(rounds "receipt daemon" "$port" /v1/jobs application/json "$work/job.json")
echo "jobs the daemon holds: $(curl -s "http://127.0.0.1:$port/metrics" | awk '/^receipt_jobs\{/ {n += $2} END {print n}')"
awk -v d="$d" -v c="$c" 'BEGIN { printf "median: daemon %d/s (fsync-durable), cupsd %d/s: daemon %.1fx cupsd (target >= 3x)\n", d, c, d / c }'
