#!/usr/bin/env bash
# PWG's IPP Everywhere self-certification, DNS-SD group (istopwg/ippeveselfcert
# tests/dnssd-tests.sh: B-1 … B-5.5, browse, TXT keys and values, resolve, IPPS and the HTTP
# upgrade) against the shipped daemon, as a make target of its own (`make ipp-dnssd`): it needs
# Avahi, dbus and multicast DNS names (libnss-mdns in /etc/nsswitch.conf), which it sets up.
#
#   scripts/ipp-dnssd.sh [IPPEVESELFCERT_GIT_DIR]
#
# The suite's own files are read from a checkout of istopwg/ippeveselfcert (its git directory,
# default the tool library's mirror or $RECEIPT_IPPEVESELFCERT). Exit 0 when no test fails.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=${1:-${RECEIPT_IPPEVESELFCERT:-/work/.mirror/istopwg+ippeveselfcert/repo}}
if ! git --git-dir "$repo" rev-parse HEAD >/dev/null 2>&1; then
  echo "ipp-dnssd: no checkout of istopwg/ippeveselfcert at $repo (give its git directory)" >&2
  exit 2
fi
for pkg in libnss-mdns avahi-daemon avahi-utils dbus cups-ipp-utils; do
  if [[ "$(dpkg-query -W -f='${db:Status-Status}' "$pkg" 2>/dev/null || true)" != installed ]]; then
    apt-get install -y -qq --no-install-recommends "$pkg" >/dev/null
  fi
done
grep -q mdns4_minimal /etc/nsswitch.conf ||
  sed -i 's/^hosts:\s*files/hosts:          files mdns4_minimal [NOTFOUND=return]/' /etc/nsswitch.conf

work=$(mktemp -d)
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
source scripts/dnssd-daemons.sh
start_dnssd_daemons "$work"
pids+=("${dnssd_pids[@]}")

binary=.build/release/receipt
[[ -x $binary ]] || scripts/swift-build.sh --product receipt >/dev/null
[[ -x .build/release/receipt-daemon ]] || scripts/swift-build.sh --product receipt-daemon >/dev/null
host=$(hostname -s)
cat >"$work/serve.json" <<EOF
{"database": "$work/queue.sqlite", "templates": "$PWD/Templates", "printers": {"till": "dir:$work/out"},
 "ippHost": "0.0.0.0", "ippPort": 0, "ippAdvertise": true}
EOF
"$binary" serve --port 0 --config "$work/serve.json" >"$work/serve.log" 2>&1 &
pids+=($!)
for _ in $(seq 100); do grep -q "^receipt serve: ipp" "$work/serve.log" && break; sleep 0.1; done
grep "^receipt serve: ipp" "$work/serve.log"

mkdir "$work/suite"
for file in dnssd-tests.sh dnssd-value-tests.test dnssd-access-tests.test; do
  git --git-dir "$repo" show "HEAD:tests/$file" >"$work/suite/$file"
done
chmod +x "$work/suite/dnssd-tests.sh"
name="till @ $host"
# Let the advertisement settle on the network before browsing.
for _ in $(seq 100); do ippfind --literal-name "$name" "_ipps._tcp.local." -T 1 --quiet && break; done
(cd "$work/suite" && ./dnssd-tests.sh "$name") | tee "$work/result.txt"
grep -q "0 failed" "$work/result.txt"
