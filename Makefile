# receipt — the two quick-start commands are `make demo` and `make test`.
SHELL := /bin/bash
export PATH := /opt/swift/usr/bin:$(PATH)
OUT ?= out
# Release builds link the Swift runtime and Foundation statically: half the process start-up.
RELEASE := swift build -c release -Xswiftc -static-stdlib

.PHONY: demo test setup setup-test build lint format release install bench benchmark side-by-side bench-daemon

## Set up, build, and render the example order through Templates/receipt.xml to out/.
demo: setup
	$(RELEASE) --product receipt
	@mkdir -p $(OUT)
	.build/release/receipt render Templates/Examples/small.json -o $(OUT)/receipt.pdf
	.build/release/receipt render Templates/Examples/small.json -o $(OUT)/receipt.png
	.build/release/receipt render Templates/Examples/small.json -o $(OUT)/receipt.pwg
	.build/release/receipt measure Templates/Examples/small.json
	@echo "The receipt is at $(abspath $(OUT)/receipt.pdf) (PDF), $(abspath $(OUT)/receipt.png) (203-dpi print preview) and $(abspath $(OUT)/receipt.pwg) (PWG raster)"

## Set up (with test tools), check formatting, build, and run every test.
test: setup-test lint
	swift build --build-tests
	swift test --skip-build --disable-xctest

setup:
	@scripts/setup.sh

setup-test:
	@scripts/setup.sh --test

lint:
	swift format lint --strict --recursive Sources Tests Benchmarks Package.swift

format:
	swift format format --in-place --recursive Sources Tests Benchmarks Package.swift

release:
	$(RELEASE) --product receipt

## Installs the binary and the templates (PREFIX=/usr/local); see dist/ for the daemon's unit.
PREFIX ?= /usr/local
install: setup release
	install -D -m 755 .build/release/receipt $(DESTDIR)$(PREFIX)/bin/receipt
	mkdir -p $(DESTDIR)$(PREFIX)/share/receipt
	cp -R Templates $(DESTDIR)$(PREFIX)/share/receipt/

## The daemon under load (wrk on loopback): submissions/s, p50/p99 latency, RSS.
bench-daemon: setup release
	scripts/bench-daemon.sh 15 8

## Layout benchmark (release build; medians, no assertions).
bench: setup
	swift build -c release --product receipt-bench
	.build/release/receipt-bench

## The benchmark suite on the ordo-one harness (p50/p99, allocations; instructions where perf allows).
benchmark: setup
	swift package --disable-sandbox benchmark --no-progress

## Whole-process timings beside pango-view, WeasyPrint and python-escpos (installs them if missing).
side-by-side: setup-test
	@PIP_ROOT_USER_ACTION=ignore python3 -m pip install --quiet --disable-pip-version-check weasyprint python-escpos
	$(RELEASE) --product receipt
	python3 scripts/side-by-side.py 15
