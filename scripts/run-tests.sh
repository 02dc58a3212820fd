#!/usr/bin/env bash
# Runs the test suites once, in a temporary directory of their own that is removed when every test
# passes (kept for inspection when one fails), and ends a failing run with the failures gathered:
# a CI log that keeps only its tail still names the test that failed and why.
#
# Four processes at once, each with its own log printed in turn: the end-to-end suites of the
# command line and of the daemon, the libraries' and the daemon's in-process suites — most tests
# wait on one of the pool's threads and a process has as many as cores, so one process keeps two
# cores half idle; four take ~170 s where one after the other take ~330. Each process owns a
# slice of the loopback ports tests give their servers (Tests/Support/TestPorts.swift): picked by
# binding and closing a port of the kernel's, the same port could go to two processes at once.
# With RECEIPT_SEQUENTIAL_TESTS=1 (`make test-sequential`), two phases one after the other
# instead: every suite but the daemon's in-process ones, then those. dbus and avahi (DNS-SD for
# ippeveprinter and the IPP printers) are started here for the whole run: started by one test
# process (Tests/Support/PrintRig.swift), they would stop when it ends, under another. Extra
# arguments go to every process. Prints the wall time of each. The tests are the release build's
# (`make test` builds it once, with testability: see the Makefile).
set -uo pipefail
cd "$(dirname "$0")/.."
# The directories of failed runs older than half a day go (a run takes well under that; each can
# hold PostgreSQL clusters of ~450 MB).
find /tmp -maxdepth 1 -name 'receipt-tests.*' -type d -mmin +720 -exec rm -rf {} + 2>/dev/null
run_dir=$(mktemp -d /tmp/receipt-tests.XXXXXX)
log="$run_dir/test.log"
mkdir -p "$run_dir/tmp"
# PostgreSQL (run as postgres) and cupsd's filters (as lp) reach their files in there.
chmod 711 "$run_dir" "$run_dir/tmp"
status=0
phase() {
  local name=$1 tag=$2 slice=$3
  shift 3
  local started=$SECONDS
  # The test bundle itself: `swift test` would hold the build directory's lock while it runs.
  TMPDIR="$run_dir/tmp" RECEIPT_TEST_PORT_SLICE=$slice RECEIPT_TEST_PORT_SLICES=4 \
    .build/release/receiptPackageTests.xctest --testing-library swift-testing "$@" \
    >"$run_dir/$tag.log" 2>&1
  local result=$?
  echo "tests: $name took $((SECONDS - started)) s (exit $result)" >>"$run_dir/$tag.log"
  echo "$result" >"$run_dir/$tag.status"
}

# dbus and avahi for the whole run, unless the machine runs them (a rig's left over from an
# earlier run is stopped by its watchdog first: wait for it to go).
for _ in $(seq 30); do
  stale=0
  for owner in /run/receipt-rig-*.owner; do
    [[ -e $owner ]] && ! kill -0 "$(cat "$owner")" 2>/dev/null && stale=1
  done
  ((stale)) || break
  sleep 0.1
done
rm -f /run/receipt-rig-*.owner
source scripts/dnssd-daemons.sh
start_dnssd_daemons "$run_dir"

if [[ ${RECEIPT_SEQUENTIAL_TESTS:-0} != 1 ]]; then
  # The end-to-end suites in two processes: the command line's and the daemon's.
  cli='ReceiptEndToEndTests\.(CLI|Batch|Browser|CodeHyphenation|OrderCrash|DaemonCrash|ParagraphIndent|RasterAgreement|StreamStrictness|Template|Archive|Webhook|Contract|EReceipt|SquareOrder|DebianPackage)'
  phase "the command line's end-to-end suites" e2e-cli 0 --filter "$cli" "$@" &
  phases=($!)
  phase "the daemon's end-to-end suites" e2e-daemon 1 --filter ReceiptEndToEndTests --skip "$cli" "$@" &
  phases+=($!)
  phase "the libraries' suites" libraries 2 --skip ReceiptEndToEndTests --skip ReceiptServerTests "$@" &
  phases+=($!)
  phase "the daemon's in-process suites" server 3 --filter ReceiptServerTests "$@" &
  phases+=($!)
  wait "${phases[@]}"
  tags=(libraries server e2e-cli e2e-daemon)
else
  # One after the other: the daemon's in-process suites (servers, stores and workers on Swift's
  # concurrency pool) apart from the rest, which block their threads on purpose.
  phase "all but the daemon's in-process suites" rest 0 --skip ReceiptServerTests "$@"
  phase "the daemon's in-process suites" server 1 --filter ReceiptServerTests "$@"
  tags=(rest server)
fi
for tag in "${tags[@]}"; do
  cat "$run_dir/$tag.log" >>"$log"
  cat "$run_dir/$tag.log"
  result=$(cat "$run_dir/$tag.status" 2>/dev/null || echo 1)
  ((result == 0)) || status=$result
done
grep -h "^tests: " "$log"
for pid in "${dnssd_pids[@]}"; do kill "$pid" 2>/dev/null; done
if [ "$status" -eq 0 ]; then
  rm -rf "$run_dir"
  exit 0
fi
# A failed run's PostgreSQL clusters keep their logs, not their data (~450 MB of WAL each).
find "$run_dir/tmp" -path '*/pg-*/data' -prune -type d -exec rm -rf {} + 2>/dev/null
echo
echo "==== failures (the whole log and the tests' files are kept in $run_dir) ===="
grep -E -A8 '✘|Fatal error|Program crashed|crashed:' "$log" | grep -v -E '^> |Test run with' | head -150
exit "$status"
