#!/usr/bin/env bash
# Builds everything with AddressSanitizer and UBSan into build-asan/ (clang 14, SPMDC_ASAN=ON and
# SPMDC_FUZZ=ON: the libraries are also instrumented for libFuzzer, so that scripts/fuzz.sh links
# its targets from the same build; -O1 -g; UBSan reports are fatal) and runs the unit and lit
# suites under the sanitizers. Any sanitizer report fails the test that triggered it, so this
# script exits non-zero.
#
# What runs: `ctest -L unit` and `ctest -L lit`, except the suites labelled slow or fresh (the
# fresh-machine test builds a chroot and would only sanitize its own non-ASan build).
# usage: scripts/sanitize.sh                      build everything, run the suites
#        scripts/sanitize.sh --build-only [TARGET...]   only build (those targets; fuzz.sh)
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh --sanitizers
CXX=${SANITIZE_CXX:-clang++-14} cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -g -DNDEBUG" -DSPMDC_ASAN=ON -DSPMDC_FUZZ=ON \
  -DSPMDC_BUILD_BENCH=OFF >/dev/null
if [ "${1:-}" = "--build-only" ]; then
  shift
  # shellcheck disable=SC2068
  cmake --build build-asan ${@:+--target "$@"}
  exit 0
fi
cmake --build build-asan
# detect_leaks: LeakSanitizer on (the default on Linux, stated); halt_on_error: the first UBSan
# report stops the process (the build also passes -fno-sanitize-recover=undefined).
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:strict_string_checks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}
cd build-asan
ctest --output-on-failure -j2 --timeout 1800 -L 'unit|lit' -LE 'slow|fresh'
