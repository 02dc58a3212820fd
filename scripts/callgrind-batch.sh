#!/usr/bin/env bash
# Instructions per receipt of a batch (`receipt render - -o DIR/`, one worker), counted by
# callgrind: repeatable where wall time is not (a busy machine changes the batch rate, not
# this). The orders are the shipped examples in every shipped locale, mixed as
# `make bench-batch` mixes them (seed 35). Prints instructions per receipt for PDF and ESC/POS
# and the largest inclusive shares (binding, layout, drawing, encoding).
#   scripts/callgrind-batch.sh [ORDERS] [BINARY]    (KEEP=1 keeps the profiles in /tmp/receipt-callgrind-batch-*)
set -euo pipefail
cd "$(dirname "$0")/.."
command -v valgrind >/dev/null || { apt-get update -qq && apt-get install -y -qq valgrind >/dev/null; }
orders=${1:-100}
binary=${2:-.build/release/receipt}
[[ -x "$binary" ]] || scripts/swift-build.sh --product receipt
work=$(mktemp -d /tmp/receipt-callgrind-batch-XXXXXX)
trap '[[ -n "${KEEP:-}" ]] || rm -rf "$work"' EXIT
python3 - "$orders" "$work/orders.jsonl" <<'PY'
import glob, json, random, sys
random.seed(35)
examples = [json.load(open(f)) for f in sorted(glob.glob("Templates/Examples/*.json"))]
with open(sys.argv[2], "w") as out:
    for i in range(int(sys.argv[1])):
        order = dict(random.choice(examples), locale=random.choice(["en_US", "de_DE", "fr_FR", "ja_JP", "ar_SA"]),
                     number=str(100000 + i))
        out.write(json.dumps(order) + "\n")
PY
export RECEIPT_TEMPLATES="$PWD/Templates"
# A first run fills the font match and hyphenation caches, as on a machine after its first receipt.
"$binary" render - -o "$work/warm/" --quiet <"$work/orders.jsonl"
for format in pdf escpos; do
  valgrind --tool=callgrind --callgrind-out-file="$work/$format.out" "$binary" render - -o "$work/$format/" \
    --format "$format" --quiet --jobs 1 <"$work/orders.jsonl" >"$work/$format.log" 2>&1
  total=$(awk '/Collected :/ {print $4}' "$work/$format.log")
  echo "$format: $((total / orders)) instructions per receipt ($orders orders, $total in all)"
  callgrind_annotate --inclusive=yes "$work/$format.out" 2>/dev/null | awk -v total="$total" '
    function share(name, pattern) { if ($0 ~ pattern && !(name in seen)) { n = $1; gsub(",", "", n); seen[name] = n } }
    /^ *[0-9,]+ \(/ {
      share("binding the template", "ReceiptEngineC16templateDocument|0A6EngineC16templateDocument")
      share("layout", "0A6EngineC6layouty")
      share("drawing and encoding", "0A6EngineC6encode")
    }
    END { for (name in seen) printf "  %-22s %5.1f %%\n", name, 100 * seen[name] / total }'
done
