#!/usr/bin/env bash
# `swift build` of .build in the one configuration the package is built and tested in, and in
# the same environment whoever runs it: make, dpkg-buildpackage (debian/rules), a script or a
# shell. SwiftPM plans the whole build again (~10 s here) whenever its environment differs from
# the previous build's — and make, dpkg-buildpackage and debian/rules each add variables of their
# own (MAKELEVEL, SOURCE_DATE_EPOCH, DEB_*), so `make test` planned three times instead of once.
#
# The configuration: release with testability (`@testable import`; +0.6 % of instructions per
# receipt, `make callgrind-batch`), without DWARF (the Debian package strips it; symbols stay for
# backtraces, perf and callgrind; docs/development.md has the build time it saves). A build of
# .build with other flags compiles everything again (the Makefile's BUILD_FLAGS are these, for
# `swift test --skip-build`).
#   scripts/swift-build.sh [swift build options, e.g. --product receipt]
set -euo pipefail
cd "$(dirname "$0")/.."

# PATH with the toolchain first and each directory once (makes nested in makes prepend it again).
path=/opt/swift/usr/bin
IFS=: read -ra dirs <<<"$PATH"
for dir in "${dirs[@]}"; do
  [[ -n $dir && ":$path:" != *":$dir:"* ]] && path+=":$dir"
done

# What a build may need besides, when set: its home (SwiftPM's caches and configuration), a
# proxy and certificates to fetch packages, a temporary directory, and the switch that adds the
# benchmark harness to the package (Package.swift). An unset HOME no longer stops the build.
keep=()
for name in HOME TMPDIR http_proxy https_proxy HTTP_PROXY HTTPS_PROXY no_proxy NO_PROXY SSL_CERT_FILE SSL_CERT_DIR \
  GIT_SSL_CAINFO RECEIPT_BENCHMARKS; do
  [[ -n ${!name:-} ]] && keep+=("$name=${!name}")
done
exec env -i PATH="$path" "${keep[@]}" swift build -c release -Xswiftc -enable-testing -debug-info-format none "$@"
