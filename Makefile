# receipt — the two quick-start commands are `make demo` and `make test`.
SHELL := /bin/bash
export PATH := /opt/swift/usr/bin:$(PATH)
OUT ?= out
# One build for shipping and testing (scripts/swift-build.sh: its flags, and one environment for
# every build so SwiftPM does not plan it again): release, with testability, without DWARF. The
# binaries link the Swift runtime and Foundation statically (Package.swift, `shippedLinking`):
# half the process start-up.
# The same flags as scripts/swift-build.sh, for `swift test --skip-build` to find that build.
BUILD_FLAGS := -c release -Xswiftc -enable-testing -debug-info-format none
RELEASE := scripts/swift-build.sh
# `receipt` (one-shot commands) and `receipt-daemon` (what `receipt serve` and `receipt design` run).
# A binary older than a source file after the build is touched: a build that changed no object
# does not relink, and the end-to-end tests refuse a binary older than the sources
# (Tests/Support/Tool.swift). Only then: SwiftPM relinks a binary touched since it made it.
RELEASE_BOTH := $(RELEASE) --product receipt && $(RELEASE) --product receipt-daemon \
	&& for binary in receipt receipt-daemon; do \
	  if [ -n "$$(find Sources Package.swift -newer .build/release/$$binary -print -quit)" ]; then \
	    touch .build/release/$$binary; fi; done

.PHONY: demo test setup setup-test build lint format release install deb bench benchmark side-by-side bench-batch bench-daemon bench-postgres bench-cloudprnt callgrind callgrind-batch \
	fuzz sanitize soak screenshots ipp-dnssd test-sequential

## Set up, build, and render the example order through Templates/receipt.xml to out/.
demo: setup
	$(RELEASE) --product receipt
	@mkdir -p $(OUT)
	.build/release/receipt render Templates/Examples/small.json -o $(OUT)/receipt.pdf
	.build/release/receipt render Templates/Examples/small.json -o $(OUT)/receipt.png
	.build/release/receipt render Templates/Examples/small.json -o $(OUT)/receipt.pwg
	.build/release/receipt measure Templates/Examples/small.json
	@echo "The receipt is at $(abspath $(OUT)/receipt.pdf) (PDF), $(abspath $(OUT)/receipt.png) (203-dpi print preview) and $(abspath $(OUT)/receipt.pwg) (PWG raster)"

## Set up (with test tools), check formatting and the vendored editor, build the shipped binary and its Debian package
## (the end-to-end tests run and install them), check that every promise of the manual has a
## test and every link a target, build the tests and run every test. The test tools (cupsd,
## PostgreSQL, chromium, poppler, Python's …) install while the package builds, which needs only
## the build's packages (`setup`): on a fresh machine their download and installation are off
## the critical path. Their log is printed once the build is done.
test: setup lint
	@mkdir -p .build; scripts/setup.sh --test >.build/setup-test.log 2>&1 & tools=$$!; \
	$(RELEASE) --build-tests; built=$$?; \
	wait $$tools; installed=$$?; cat .build/setup-test.log; \
	if [ $$installed -ne 0 ]; then echo "make test: installing the test tools failed (above)" >&2; exit $$installed; fi; \
	exit $$built
	$(RELEASE_BOTH)
	$(MAKE) --no-print-directory deb
	python3 scripts/promises.py
	python3 scripts/links.py
	@scripts/run-tests.sh

## PWG's IPP Everywhere self-certification DNS-SD group (browse, TXT, resolve, IPPS, HTTP
## upgrade) against the shipped daemon; sets up Avahi, dbus and mDNS names (libnss-mdns).
ipp-dnssd: setup-test
	$(RELEASE_BOTH)
	scripts/ipp-dnssd.sh

## `make test` with the test suites one after the other in two processes rather than four at
## once (slower; for a machine with one core, or to read one log in order).
test-sequential: setup-test lint
	$(RELEASE) --build-tests
	$(RELEASE_BOTH)
	$(MAKE) --no-print-directory deb
	RECEIPT_SEQUENTIAL_TESTS=1 scripts/run-tests.sh

setup:
	@scripts/setup.sh

setup-test:
	@scripts/setup.sh --test

lint:
	swift format lint --strict --recursive Sources Tests Benchmarks Fuzz Package.swift
	@# Layout and Render stay behind the facade: Print and Kit import them `package` (ARCHITECTURE.md).
	@if grep -rn '^public import Receipt\(Layout\|Render\)' Sources/ReceiptPrint Sources/ReceiptKit; then \
	  echo "lint: ReceiptPrint and ReceiptKit import Layout and Render with 'package import' (ARCHITECTURE.md)" >&2; exit 1; fi
	python3 scripts/vendor-codemirror.py --check
	python3 scripts/lint-numbers.py
	python3 scripts/caches.py

format:
	swift format format --in-place --recursive Sources Tests Benchmarks Fuzz Package.swift

release:
	$(RELEASE_BOTH)

## Installs the binary and the templates (PREFIX=/usr/local); see dist/ for the daemon's unit.
PREFIX ?= /usr/local
install: setup release
	install -D -m 755 .build/release/receipt $(DESTDIR)$(PREFIX)/bin/receipt
	install -D -m 755 .build/release/receipt-daemon $(DESTDIR)$(PREFIX)/bin/receipt-daemon
	mkdir -p $(DESTDIR)$(PREFIX)/share/receipt
	cp -R Templates $(DESTDIR)$(PREFIX)/share/receipt/

## A Debian package with debhelper (dpkg-buildpackage): $(OUT)/receipt_<version>_<arch>.deb with
## the binaries, templates, the systemd unit, the receipt user, man pages and completions.
deb: setup-test
	dpkg-buildpackage -b -us -uc
	mkdir -p $(OUT)
	mv ../receipt_*.deb ../receipt_*.buildinfo ../receipt_*.changes $(OUT)/
	@echo "The package is at $$(ls $(abspath $(OUT))/receipt_*.deb)"

## The web app's screenshots in the README (docs/screenshots/), taken by the browser test.
screenshots: setup-test
	$(RELEASE) --build-tests
	$(RELEASE_BOTH)
	mkdir -p docs/screenshots
	RECEIPT_SCREENSHOTS=$(abspath docs/screenshots) swift test $(BUILD_FLAGS) --skip-build --disable-xctest --filter BrowserTests

## The daemon under load (wrk on loopback): submissions/s, p50/p99 latency, RSS.
bench-daemon: setup release
	scripts/bench-daemon.sh 15 8
	scripts/bench-cupsd.sh 10 4
	RECEIPT_HELD=1 scripts/bench-cupsd.sh 10 4

## 1,000 Star CloudPRNT printers polling one daemon every 5 s; the cost of a poll.
bench-cloudprnt: setup release
	scripts/bench-cloudprnt.sh 1000 5 60

## Instructions of one `receipt render`, by callgrind (repeatable where wall time is not).
callgrind: release
	scripts/callgrind-render.sh

## Instructions per receipt of a batch (PDF and ESC/POS, one worker), by callgrind.
callgrind-batch: release
	scripts/callgrind-batch.sh 100

## The daemon on SQLite, on PostgreSQL with one daemon and with three (private cluster, wrk).
bench-postgres: setup release
	scripts/bench-postgres.sh 10

## Layout benchmark (release build; medians, no assertions).
bench: setup
	$(RELEASE) --product receipt-bench
	.build/release/receipt-bench

## The benchmark suite on the ordo-one harness (p50/p99, allocations; instructions where perf allows).
benchmark: setup
	RECEIPT_BENCHMARKS=1 swift package --disable-sandbox benchmark --no-progress

## Whole-process timings beside pango-view, WeasyPrint and python-escpos (installs them if missing).
side-by-side: setup-test
	@PIP_ROOT_USER_ACTION=ignore python3 -m pip install --quiet --disable-pip-version-check weasyprint python-escpos
	$(RELEASE) --product receipt
	python3 scripts/side-by-side.py 15

## Every shipped locale one-shot, a fresh daemon's first German preview, and batches of 10,000
## orders beside pango-view, WeasyPrint and the cairo floor (scripts/bench-batch.py).
bench-batch: setup-test
	@PIP_ROOT_USER_ACTION=ignore python3 -m pip install --quiet --disable-pip-version-check weasyprint
	$(RELEASE_BOTH)
	$(RELEASE) --product receipt-bench
	python3 scripts/bench-batch.py 10000 21

## libFuzzer on templates, order JSON, images, job bodies and the configuration file, with
## AddressSanitizer (FUZZ_SECONDS per target; corpus in Fuzz/Corpus). Not part of `make test`.
FUZZ_SECONDS ?= 120
fuzz: setup
	swift build --scratch-path .build-fuzz -Xswiftc -sanitize=fuzzer,address -Xswiftc -DFUZZING --product receipt-fuzz
	scripts/fuzz.sh $(FUZZ_SECONDS)

## The layout, render and server suites under AddressSanitizer (leaks checked, with the test
## harnesses' own allocations suppressed: Tests/Support/lsan.supp), then ThreadSanitizer.
SANITIZE_SUITES := 'ReceiptMarkupTests|ReceiptLayoutTests|ReceiptRenderTests|ReceiptPrintTests|ReceiptServerTests|BatchWorkersTests'
## Under ThreadSanitizer the server suites run after the others: all at once on two cores, the
## PostgreSQL-backed tests waited past their 15 s (26 and 33 failures in two runs, no report).
SANITIZE_TSAN_DRAWING := 'ReceiptMarkupTests|ReceiptLayoutTests|ReceiptRenderTests|ReceiptPrintTests|BatchWorkersTests'
sanitize: setup-test
	swift build --build-tests --scratch-path .build-asan --sanitize=address
	LSAN_OPTIONS=suppressions=$(CURDIR)/Tests/Support/lsan.supp swift test --skip-build --disable-xctest \
	  --scratch-path .build-asan --filter $(SANITIZE_SUITES)
	swift build --build-tests --scratch-path .build-tsan --sanitize=thread
	swift test --skip-build --disable-xctest --scratch-path .build-tsan --filter $(SANITIZE_TSAN_DRAWING)
	swift test --skip-build --disable-xctest --scratch-path .build-tsan --filter ReceiptServerTests

## 30 minutes of mixed submissions, previews and idle connections against the release daemon.
SOAK_SECONDS ?= 1800
soak: setup-test release
	python3 scripts/soak.py $(SOAK_SECONDS)
