#!/usr/bin/env bash
# Runs `spmdc solve` on the IOPDDL contest instances of a checkout of github.com/google/iopddl,
# each with its contest time limit, as the contest's harness ran them (`iopddl FILE TIMEOUT`: the
# last stdout line is the solution vector), then checks every vector with an evaluator written
# apart from spmdc's reader (bench/iopddl_evaluate.py) and prints cost / best known and the gap.
#
#   bench/iopddl.sh DIR [--spmdc PATH] [--only A,G,M,S] [--threads N]
#
# DIR is the checkout (its benchmarks/ folder is used) or a folder of
# asplos-2025-iopddl-X.json[.gz] files. Time limits are the contest's tiers by instance letter
# (A-E 60 s, F-J 120 s, K-O 180 s, P-T 240 s, U-Y 300 s; google/iopddl's benchmark table). Best
# known costs (reference/AUTO.md §2.3) exist for the public instances A, G, M, S and Y; the others
# print their cost and spmdc's own certified lower bound only. The ratio column is cost / best
# known (1.0000 = the contest winner's). A run that exceeds its limit by more than 10 s (the
# contest's I/O slack) or prints an invalid vector is marked FAIL, and the script exits 1.
# Prints figures; the solver's seed and thread count are its defaults unless given.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
spmdc="$here/../build/spmdc"
only=""
threads=""
dir=""
while [ $# -gt 0 ]; do
  case "$1" in
    --spmdc) spmdc=$2; shift 2 ;;
    --only) only=$2; shift 2 ;;
    --threads) threads=$2; shift 2 ;;
    -h|--help) sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "iopddl.sh: unknown option $1" >&2; exit 2 ;;
    *) [ -z "$dir" ] || { echo "iopddl.sh: one DIR only" >&2; exit 2; }; dir=$1; shift ;;
  esac
done
[ -n "$dir" ] || { echo "usage: bench/iopddl.sh DIR [--spmdc PATH] [--only A,G,M,S] [--threads N]" >&2; exit 2; }
[ -d "$dir/benchmarks" ] && dir="$dir/benchmarks"
[ -x "$spmdc" ] || { echo "iopddl.sh: $spmdc is not built (scripts/build.sh)" >&2; exit 2; }

tier() {  # contest time limit of instance letter $1
  case "$1" in
    [A-E]) echo 60 ;; [F-J]) echo 120 ;; [K-O]) echo 180 ;; [P-T]) echo 240 ;; [U-Y]) echo 300 ;;
    *) echo "" ;;
  esac
}
best_known() {
  case "$1" in
    A) echo 6548641531 ;; G) echo 217039 ;; M) echo 49928157537 ;; S) echo 1521949307 ;;
    Y) echo 595085773411 ;; *) echo "" ;;
  esac
}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
status=0
found=0
printf '%-4s %6s %8s %22s %22s %8s %22s %9s  %s\n' inst limit wall cost best-known ratio lower-bound gap check
for f in "$dir"/asplos-2025-iopddl-?.json "$dir"/asplos-2025-iopddl-?.json.gz; do
  [ -e "$f" ] || continue
  base=$(basename "$f")
  letter=${base#asplos-2025-iopddl-}
  letter=${letter%%.*}
  if [ -n "$only" ] && [[ ",$only," != *",$letter,"* ]]; then continue; fi
  # A .json next to its .json.gz: run the plain one only.
  if [[ "$f" == *.gz ]] && [ -e "${f%.gz}" ]; then continue; fi
  limit=$(tier "$letter")
  [ -n "$limit" ] || continue
  found=$((found + 1))
  args=(solve "$f" --time-limit "$limit")
  [ -n "$threads" ] && args+=(--threads "$threads")
  start=$(date +%s.%N)
  timeout $((limit + 60)) "$spmdc" "${args[@]}" >"$tmp/out" 2>"$tmp/err"
  rc=$?
  wall=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
  cost="-" lb="-" gap="-" ratio="-" check="ok"
  line=$(grep 'spmdc solve: cost' "$tmp/err" | tail -n 1)
  if [ -n "$line" ]; then
    lb=$(echo "$line" | sed -n 's/.*lower bound \([0-9]*\).*/\1/p')
    gap=$(echo "$line" | sed -n 's/.*gap \([0-9.]*%\).*/\1/p')
  fi
  if [ "$rc" -ne 0 ]; then
    check="FAIL (exit $rc: $(tail -n 1 "$tmp/err"))"
    status=1
  elif ! eval_out=$(python3 "$here/iopddl_evaluate.py" "$f" "$tmp/out"); then
    check="FAIL ($eval_out)"
    status=1
  else
    cost=${eval_out#cost }
    if awk -v w="$wall" -v l="$limit" 'BEGIN { exit !(w > l + 10) }'; then
      check="FAIL (over the time limit)"
      status=1
    fi
    best=$(best_known "$letter")
    [ -n "$best" ] && ratio=$(awk -v c="$cost" -v b="$best" 'BEGIN { printf "%.4f", c / b }')
  fi
  printf '%-4s %5ss %7.1fs %22s %22s %8s %22s %9s  %s\n' "$letter" "$limit" "$wall" "$cost" \
    "$(best_known "$letter" | sed 's/^$/-/')" "$ratio" "$lb" "$gap" "$check"
done
[ "$found" -gt 0 ] || { echo "iopddl.sh: no asplos-2025-iopddl-X.json[.gz] in $dir" >&2; exit 2; }
exit $status
