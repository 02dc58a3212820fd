#!/usr/bin/env bash
# Runs every libFuzzer target of receipt-fuzz for SECONDS each (default 120) over the corpus in
# Fuzz/Corpus/<target>, with AddressSanitizer; new inputs go to .build-fuzz/corpus/<target>.
# Prints executions and crashes per target and in all; exits non-zero if any target crashed.
#   scripts/fuzz.sh [SECONDS] [TARGET…]
set -uo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-120}"
shift || true
targets=("$@")
((${#targets[@]})) || targets=(template expression json image http config ipp document pdf pagefile)
binary=.build-fuzz/debug/receipt-fuzz
[[ -x "$binary" ]] || { echo "fuzz: build it first (make fuzz does)" >&2; exit 1; }
total=0
failed=0
for target in "${targets[@]}"; do
  # libFuzzer exits at once (1, no execution) when a corpus directory it is given is missing.
  [[ -d "Fuzz/Corpus/$target" ]] || { echo "fuzz: $target has no seed corpus in Fuzz/Corpus/$target" >&2; failed=1; continue; }
  work=".build-fuzz/corpus/$target"
  artifacts=".build-fuzz/crashes/$target/"
  mkdir -p "$work" "$artifacts"
  log=".build-fuzz/$target.log"
  FUZZ_TARGET="$target" ASAN_OPTIONS=detect_leaks=0 "$binary" "$work" "Fuzz/Corpus/$target" \
    -max_total_time="$seconds" -timeout=20 -rss_limit_mb=4096 -max_len=65536 -print_final_stats=1 \
    -artifact_prefix="$artifacts" >"$log" 2>&1
  status=$?
  runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' | tail -1)
  runs=${runs:-0}
  total=$((total + runs))
  crashes=$(find "$artifacts" -type f | wc -l)
  printf 'fuzz: %-8s %12d executions  %d crash(es)  exit %d  (log %s)\n' "$target" "$runs" "$crashes" "$status" "$log"
  if ((status != 0 || crashes > 0)); then failed=1; fi
done
printf 'fuzz: %d executions in all\n' "$total"
exit $failed
