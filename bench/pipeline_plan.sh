#!/usr/bin/env bash
# `spmdc auto --pipeline` against the program it writes: runs the stage search on a training step
# (by default `spmdc example gpt3`, the 96-layer GPT-3 175B shape, unrolled) over a mesh, writes
# the pipelined program of the plan it emits (-o) and the stage plan (--plan), prices the program
# with `spmdc report`, and prints the search's estimate for that plan beside the program's step
# time and peak memory under the same cost model, with their ratios, and the search's CPU time.
#
#   bench/pipeline_plan.sh [--spmdc PATH] [--model FILE] [--mesh AXES] [--microbatches M]
#                          [--pipeline auto|S] [--keep DIR]
#
# Defaults: the GPT-3 shape, --mesh data=64, --pipeline auto, the search's default microbatches,
# the h100 profile. --keep DIR keeps the module, plan, program and report there. Prints figures;
# it asserts nothing.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
spmdc="$here/../build/spmdc"
model=""
mesh="data=64"
pipeline="auto"
micro=()
keep=""
while [ $# -gt 0 ]; do
  case "$1" in
    --spmdc) spmdc=$2; shift 2 ;;
    --model) model=$2; shift 2 ;;
    --mesh) mesh=$2; shift 2 ;;
    --pipeline) pipeline=$2; shift 2 ;;
    --microbatches) micro=(--microbatches "$2"); shift 2 ;;
    --keep) keep=$2; shift 2 ;;
    -h|--help) sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "pipeline_plan.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
work=${keep:-$(mktemp -d)}
mkdir -p "$work"
[ -n "$keep" ] || trap 'rm -rf "$work"' EXIT
if [ -z "$model" ]; then
  "$spmdc" example gpt3 > "$work/model.hlo" || exit 1
  model="$work/model.hlo"
fi
if ! /usr/bin/time -f '%U %S %e %M' -o "$work/time.txt" \
    "$spmdc" auto "$model" --mesh "$mesh" --pipeline "$pipeline" "${micro[@]}" --ignore-annotations \
    --plan "$work/plan.json" -o "$work/program.hlo" 2> "$work/auto.err"; then
  cat "$work/auto.err" >&2
  exit 1
fi
"$spmdc" report "$work/program.hlo" --format json > "$work/report.json" || exit 1
grep -E "^spmdc auto --pipeline: (chosen|best uniform|the (chosen )?stages|layer [0-9]+'s plan|the pipelined program)" "$work/auto.err"
python3 - "$work" <<'EOF'
import json, sys
work = sys.argv[1]
plan = json.load(open(f"{work}/plan.json"))
report = json.load(open(f"{work}/report.json"))
user, sys_, wall, rss = open(f"{work}/time.txt").read().split()
emitted = plan["chosen"] if plan["pipeline"]["plan"] == "chosen" else plan["best_uniform"]
estimate = emitted["step_time_seconds"]
memory = max(s["memory_bytes"] for s in emitted["stages"])
step, peak = report["step_time_seconds"], report["peak_memory_bytes"]
gib = 1 << 30
print(f"plan: {len(emitted['stages'])} stages on {emitted['stages'][0]['mesh']}, "
      f"{plan['microbatches']} microbatches ({plan['pipeline']['schedule']})")
print(f"step time: estimate {estimate:.3f} s, program {step:.3f} s, program/estimate {step / estimate:.2f}")
print(f"memory per device: estimate {memory / gib:.2f} GiB, program peak {peak / gib:.2f} GiB, "
      f"program/estimate {peak / memory:.2f}")
print(f"search: {float(user) + float(sys_):.1f} s CPU, {float(wall):.1f} s wall, {int(rss) / 1024:.0f} MiB peak RSS")
kinds = {}
for c in report["collectives"]:
    kinds[c["kind"]] = kinds.get(c["kind"], 0) + c["count"]
print("collectives executed per step: " + ", ".join(f"{k} {n}" for k, n in sorted(kinds.items())))
EOF
