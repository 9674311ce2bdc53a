#!/usr/bin/env bash
# Builds the libFuzzer targets (fuzz/*_fuzzer.cc) in scripts/sanitize.sh's build-asan/ and runs each one
# for SECONDS_PER_TARGET seconds (default 60), or until RUNS executions when RUNS is given, on a
# seed corpus made from tests/lit (fuzz/seeds.py) in a temporary folder. Prints executions,
# executions per second and findings per target; exits non-zero when any target finds a crash,
# a leak, a timeout or an out-of-memory (the input is copied to fuzz-findings/, with its log).
#
# usage: scripts/fuzz.sh [SECONDS_PER_TARGET] [RUNS]
# env:   FUZZ_TARGETS="hlo_parser_fuzzer ..." to run only some; FUZZ_NICE=N to run under nice -n N.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
runs=${2:--1}
targets=${FUZZ_TARGETS:-"hlo_parser_fuzzer sharding_text_fuzzer stablehlo_fuzzer pipeline_fuzzer"}
# The instrumented build scripts/sanitize.sh makes (build-asan/): after it, only links remain.
# shellcheck disable=SC2086
scripts/sanitize.sh --build-only $targets

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 fuzz/seeds.py "$work/seeds"
mkdir -p fuzz-findings
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}

failed=0
printf '%-22s %12s %9s %s\n' target executions exec/s findings
for t in $targets; do
  case $t in
    sharding_text_fuzzer) seeds=sharding; dict=sharding.dict ;;
    stablehlo_fuzzer) seeds=mlir; dict=mlir.dict ;;
    *) seeds=hlo; dict=hlo.dict ;;
  esac
  corpus="$work/corpus-$t" artifacts="$work/artifacts-$t"
  mkdir -p "$corpus" "$artifacts"
  cp "$work/seeds/$seeds"/* "$corpus"/
  # -timeout: one input taking 10 s is a hang (the pipeline target bounds its inputs to
  # milliseconds of work); -rss_limit_mb: libFuzzer's default, stated. A finding stops the run.
  rc=0
  ${FUZZ_NICE:+nice -n "$FUZZ_NICE"} "build-asan/fuzz/$t" -max_total_time="$seconds" -runs="$runs" \
    -timeout=10 -rss_limit_mb=2048 -dict="$work/seeds/$dict" -artifact_prefix="$artifacts/" \
    -print_final_stats=1 "$corpus" >"$work/$t.log" 2>&1 || rc=$?
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/$t.log" | tail -1)
  secs=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$work/$t.log" | tail -1)
  findings=$(find "$artifacts" -type f | wc -l)
  printf '%-22s %12s %9s %s\n' "$t" "${execs:-?}" "${secs:-?}" "$findings"
  if [ "$rc" -ne 0 ] || [ "$findings" -ne 0 ]; then
    failed=1
    cp "$work/$t.log" "fuzz-findings/$t.log"
    find "$artifacts" -type f -exec cp {} fuzz-findings/ \;
    echo "$t: exit $rc, findings in fuzz-findings/ (log: fuzz-findings/$t.log); the report:"
    grep -E -A30 'ERROR: |FUZZ FINDING|runtime error|Test unit written|ALARM|out-of-memory' \
      "$work/$t.log" | head -60
  fi
done
exit $failed
