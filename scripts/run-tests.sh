#!/usr/bin/env bash
# Runs the test suites once, in a temporary directory of their own that is removed when every test
# passes (kept for inspection when one fails), and ends a failing run with the failures gathered:
# a CI log that keeps only its tail still names the test that failed and why.
#
# Two phases: the daemon's in-process suites (ReceiptServerTests: servers, stores and workers on
# Swift's concurrency pool) run apart from the rest, whose tests block or busy their threads on
# purpose (the shipped binary run and waited for, layouts, renders) — on two cores they would
# starve the pool the in-process daemons need, and their timeouts would measure the test run, not
# the daemon. Extra arguments go to both phases. Prints the wall time of each. The tests are the
# release build's (`make test` builds it once, with testability: see the Makefile).
set -uo pipefail
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
  local name=$1
  shift
  local started=$SECONDS
  TMPDIR="$run_dir/tmp" swift test -c release -Xswiftc -enable-testing --skip-build --disable-xctest "$@" 2>&1 |
    tee -a "$log"
  local result=${PIPESTATUS[0]}
  echo "tests: $name took $((SECONDS - started)) s (exit $result)" | tee -a "$log"
  ((result == 0)) || status=$result
}
phase "all but the daemon's in-process suites" --skip ReceiptServerTests "$@"
phase "the daemon's in-process suites" --filter ReceiptServerTests "$@"
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
