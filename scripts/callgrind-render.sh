#!/usr/bin/env bash
# Instructions executed by one `receipt render` (text → PDF), counted by callgrind: repeatable
# where wall time is not. Prints the total and the largest shares (dynamic linking, Swift's
# protocol-conformance scan, fontconfig's configuration parse, the rest).
#   scripts/callgrind-render.sh [BINARY]
set -euo pipefail
cd "$(dirname "$0")/.."
command -v valgrind >/dev/null || { apt-get update -qq && apt-get install -y -qq valgrind >/dev/null; }
binary=${1:-.build/release/receipt}
[[ -x "$binary" ]] || scripts/swift-build.sh --product receipt
work=$(mktemp -d /tmp/receipt-callgrind-XXXXXX)
trap 'rm -rf "$work"' EXIT
# Valgrind 3.19 cannot read the Swift binary's DWARF 5: a copy without it (symbols kept).
strip --strip-debug -o "$work/receipt" "$binary"
printf 'Corner Café\n2 × Espresso      5.00\n1 × Croissant     2.80\nTotal             7.80\n' >"$work/order.txt"
# The font match cache as at a till after the first receipt: filled by a first run; the cold
# count (no cache: fontconfig parses its configuration) is shown beside it.
export RECEIPT_FONT_CACHE="$work/font-matches"
valgrind --tool=callgrind --callgrind-out-file="$work/cold.out" "$work/receipt" render "$work/order.txt" \
  -o "$work/out.pdf" >"$work/cold.log" 2>&1
valgrind --tool=callgrind --callgrind-out-file="$work/cg.out" "$work/receipt" render "$work/order.txt" \
  -o "$work/out.pdf" >"$work/valgrind.log" 2>&1
total=$(awk '/Collected :/ {print $4}' "$work/valgrind.log")
cold=$(awk '/Collected :/ {print $4}' "$work/cold.log")
echo "receipt render (4 lines, PDF): $total instructions (first run, font match cache empty: $cold)"
callgrind_annotate --inclusive=no "$work/cg.out" 2>/dev/null | awk -v total="$total" -v bin="$binary" '
  /^ *[0-9,]+ \(/ && !/PROGRAM TOTALS/ {
    n = $1; gsub(",", "", n)
    what = "other"
    if ($0 ~ /ld-linux|dl-lookup|dl-machine|do-rel|_dl_/) what = "dynamic linking (ld.so)"
    else if ($0 ~ /libfontconfig|libexpat/) what = "fontconfig + expat (configuration parse)"
    else if ($0 ~ /conformsToProtocol|ConformanceCandidate|ConformanceSection/) what = "Swift runtime: protocol conformance scan"
    share[what] += n
  }
  END { for (w in share) printf "  %-45s %5.1f%%\n", w, 100 * share[w] / total }' | sort -k1,1
