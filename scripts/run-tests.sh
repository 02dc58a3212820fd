#!/usr/bin/env bash
# Runs the test suites once, in a temporary directory of their own that is removed when every test
# passes (kept for inspection when one fails), and ends a failing run with the failures gathered:
# a CI log that keeps only its tail still names the test that failed and why.
set -uo pipefail
run_dir=$(mktemp -d /tmp/receipt-tests.XXXXXX)
log="$run_dir/test.log"
mkdir -p "$run_dir/tmp"
TMPDIR="$run_dir/tmp" swift test --skip-build --disable-xctest "$@" 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
if [ "$status" -eq 0 ]; then
  rm -rf "$run_dir"
  exit 0
fi
echo
echo "==== failures (the whole log and the tests' files are kept in $run_dir) ===="
grep -E -A8 '✘|Fatal error|Program crashed|crashed:' "$log" | grep -v -E '^> |Test run with' | head -150
exit "$status"
