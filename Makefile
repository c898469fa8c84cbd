SHELL := /bin/bash
# marionette — two commands:
#   make demo    install what is missing, build, run `marionette demo` (a voxel character built,
#                exported, played back and rendered into build/marionette-demo)
#   make check   check the include rules (scripts/check-includes), then build and run every
#                test: Release, then ASan+UBSan, then the scalar-only build (MN_NO_SIMD),
#                then each fuzz target; scripts/check-summary closes with the counts and, when
#                the sample assets are missing, the tests that were skipped for want of them
# The sample assets are in MN_ASSETS, else ../shared/assets (tests/support/assets.h); without
# them what needs them is skipped, and MN_REQUIRE_ASSETS=1 (.ci/run) makes that a failure.
JOBS      ?= $(shell nproc 2>/dev/null || echo 2)
FUZZ_SECS ?= 15
# Inputs up to 256 KiB reach size-dependent paths (a quadratic loop shows there); an input
# that runs longer than FUZZ_TIMEOUT seconds is a failure, as a crash is.
FUZZ_MAX_LEN ?= 262144
FUZZ_TIMEOUT ?= 5
BUILD     ?= build

# scripts/deps installs libdraco-dev and libwebp-dev, so these builds require them (CMake's default,
# AUTO, uses each when found and leaves it out otherwise).
CMAKE_COMMON = -DMN_WERROR=ON -DMN_DRACO=ON -DMN_WEBP=ON

.PHONY: all deps build demo contact-sheet check test asan scalar fuzz bench web web-serve web-bench install clean

all: build

deps:
	@scripts/deps

build: deps
	cmake -S . -B $(BUILD)/release -DCMAKE_BUILD_TYPE=Release $(CMAKE_COMMON) >/dev/null
	cmake --build $(BUILD)/release -j $(JOBS)

demo: build
	$(BUILD)/release/marionette demo --out $(BUILD)/marionette-demo

# Every sample model variant rendered into one labelled sheet (docs/variants_sheet.png).
contact-sheet: build
	scripts/contact-sheet $(BUILD)/release $(BUILD)/contact_sheet.png

# Each run starts without the skip records of an earlier one (tests/support/assets.h).
test: build
	rm -rf $(BUILD)/release/skipped-assets
	cd $(BUILD)/release && ctest --output-on-failure -j $(JOBS) | tee ctest.log; exit $${PIPESTATUS[0]}

asan: deps
	cmake -S . -B $(BUILD)/asan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DMN_SANITIZE=ON \
	      -DMN_BUILD_BENCH=OFF $(CMAKE_COMMON) >/dev/null
	cmake --build $(BUILD)/asan -j $(JOBS)
	rm -rf $(BUILD)/asan/skipped-assets
	cd $(BUILD)/asan && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
	    UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 ctest --output-on-failure -j $(JOBS) \
	    | tee ctest.log; exit $${PIPESTATUS[0]}

scalar: deps
	cmake -S . -B $(BUILD)/scalar -DCMAKE_BUILD_TYPE=Release -DMN_NO_SIMD=ON \
	      -DMN_BUILD_BENCH=OFF $(CMAKE_COMMON) >/dev/null
	cmake --build $(BUILD)/scalar -j $(JOBS)
	rm -rf $(BUILD)/scalar/skipped-assets
	cd $(BUILD)/scalar && ctest --output-on-failure -j $(JOBS) | tee ctest.log; exit $${PIPESTATUS[0]}

fuzz: deps
	cmake -S . -B $(BUILD)/fuzz -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
	      -DCMAKE_BUILD_TYPE=RelWithDebInfo -DMN_FUZZ=ON -DMN_BUILD_TESTS=OFF \
	      -DMN_BUILD_BENCH=OFF $(CMAKE_COMMON) >/dev/null
	cmake --build $(BUILD)/fuzz -j $(JOBS)
	@set -e; for f in fuzz/fuzz_*.c; do \
	  name=$$(basename $$f .c); corpus=fuzz/corpus/$${name#fuzz_}; \
	  work=$$(mktemp -d); \
	  echo "fuzz: $$name for $(FUZZ_SECS)s"; \
	  dict=""; [ -f fuzz/dict/$${name#fuzz_}.dict ] && dict="-dict=fuzz/dict/$${name#fuzz_}.dict"; \
	  $(BUILD)/fuzz/$$name -max_total_time=$(FUZZ_SECS) -max_len=$(FUZZ_MAX_LEN) -timeout=$(FUZZ_TIMEOUT) \
	      -rss_limit_mb=2048 \
	      -print_final_stats=1 -artifact_prefix=$(BUILD)/fuzz/crash- $$dict $$work $$corpus 2>&1 | tail -n 12; \
	  status=$${PIPESTATUS[0]}; rm -rf $$work; \
	  [ "$$status" -eq 0 ] || { echo "fuzz: $$name FAILED"; exit 1; }; \
	done

# The WebAssembly module and its JavaScript API, into $(BUILD)/web (docs/web.md).
web: deps
	scripts/web-build $(BUILD)/web

# wasm vs three.js in headless Chromium, beside the native build (scripts/web-bench.mjs).
web-bench: web build
	node scripts/web-bench.mjs $(BUILD)

# The viewer page on http://127.0.0.1:8080/ (PORT=...).
web-serve: web
	node scripts/web-serve.mjs $(BUILD)/web $${PORT:-8080}

bench: build
	@for b in $(BUILD)/release/bench_*; do case $$b in *_native) ;; *) $$b ;; esac; done

check: deps
	scripts/check-includes
	$(MAKE) test
	$(MAKE) asan
	$(MAKE) scalar
	$(MAKE) fuzz
	@scripts/check-summary $(BUILD)/release/ctest.log $(BUILD)/asan/ctest.log $(BUILD)/scalar/ctest.log

install: build
	cmake --install $(BUILD)/release

clean:
	rm -rf $(BUILD)
