#!/usr/bin/env python3
"""spmdc and XLA side by side on the realclient corpus (prints figures; asserts nothing about them).

For each model of tests/realclient/generate.py (its function, arguments, mesh and shardings,
imported, not copied), on 8 JAX host CPU devices:

  XLA:   jax.jit(fn, in_shardings, out_shardings).lower(*args).compile(), Shardy front end (JAX's
         default). Partitioning time = XLA's own pass timing (TF_CPP_VMODULE=hlo_pass_pipeline=1):
         the sum of the passes of the "spmd-partitioner" pipeline (flatten-call-graph,
         call-inliner, shardy-xla = propagation, spmd-partitioning with its nested spmd-cleanup,
         ...), less the verifier runs that the log counts in each pass's time. The collectives are counted in
         compiled.as_text() (the optimized per-device program).
  spmdc: build/spmdc compile tests/realclient/corpus/<model>/shardy.hlo --num-partitions 8
         --timing (the same module, as jax.jit(...).lower(...).as_text(dialect="hlo") prints it;
         spmdc takes the mesh from its Shardy attributes). Partitioning time = the in-process
         wall time of the same passes ("passes" of --timing: Shardy import, call inlining,
         constant splitting, propagation, partitioning, clean-up; not reading, parsing,
         verifying or printing, which XLA's figure leaves out too), best of --repeat runs; the
         CPU seconds of those passes and the wall time of the whole process (start, parse, ...,
         print) are printed beside it. The collectives are counted in the program it prints.

Both sides' pass times are wall-clock times in-process; XLA's is best of --xla-repeat runs
(each a fresh process), spmdc's best of --repeat, so that a busy machine inflates neither more.

How collectives are counted (the same function on both programs' text, so both sides count the
same thing): every instruction whose opcode is all-reduce, all-gather, reduce-scatter, all-to-all
or collective-permute, or one of their -start forms (the -done halves are not counted), in any
computation (a loop body counts once, as written, not times its trip count), is one collective.
Its bytes per device are max(sum of the byte sizes of its operands, byte size of its result),
where a -start's result is its largest array leaf (the -start tuple also holds the operand and
context scalars); byte sizes are element count x element size (pred/s8/u8/f8: 1, bf16/f16: 2,
f32/s32/u32: 4, f64/s64/u64/c64: 8, c128: 16). So an all-gather counts what it gathers (its
result), a reduce-scatter what it reduces (its operand), an all-reduce and a permute their
array. This is the rule of spmdc's own `compile --stats`; the script checks that its count of
spmdc's program equals --stats (a mismatch is printed).

Ratios: bytes spmdc/xla (below 1: spmdc moves less) and partition time xla/spmdc (above 1:
spmdc is faster). Geomeans over the modules where both sides are non-zero (a module where
neither program has a collective counts as ratio 1). Nothing is written into the repository
(temporary files only).

usage: .venv/bin/python bench/xla_compare.py [--spmdc build/spmdc] [--only MODEL,...] [--repeat 10] [--xla-repeat 3]
                                            [--details] [--keep DIR]
       python3 bench/xla_compare.py --self-test [--spmdc build/spmdc]   (ctest xla_compare_counter)
"""
import argparse
import contextlib
import json
import math
import os
import pathlib
import re
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True  # importing generate.py must not leave __pycache__ in the repository
REPO = pathlib.Path(__file__).resolve().parents[1]
CORPUS = REPO / "tests" / "realclient" / "corpus"
KINDS = ("all-reduce", "all-gather", "reduce-scatter", "all-to-all", "collective-permute")
ELEMENT_BYTES = {"pred": 1, "s8": 1, "u8": 1, "s4": 1, "u4": 1, "s2": 1, "u2": 1, "bf16": 2,
                 "f16": 2, "s16": 2, "u16": 2, "f32": 4, "s32": 4, "u32": 4, "f64": 8, "s64": 8,
                 "u64": 8, "c64": 8, "c128": 16}
ARRAY = re.compile(r"\b([a-z]\w*)\[([\d,]*)\]")


# ----------------------------------------------------------------------------------------------
# Counting collectives in HLO text.


def _array_bytes(shape_text):
  """Byte sizes of the array leaves of a printed shape (layouts ignored)."""
  out = []
  for dtype, dims in ARRAY.findall(shape_text):
    if dtype.startswith("f8") or dtype.startswith("f4"):
      size = 1
    elif dtype in ELEMENT_BYTES:
      size = ELEMENT_BYTES[dtype]
    else:
      continue  # token, opaque
    out.append(size * math.prod(int(d) for d in dims.split(",") if d))
  return out


def _matching(text, start):
  """Index just past the bracket closing the one at text[start]."""
  depth = 0
  pairs = {"(": ")", "[": "]", "{": "}"}
  closers = set(pairs.values())
  for i in range(start, len(text)):
    c = text[i]
    if c in pairs:
      depth += 1
    elif c in closers:
      depth -= 1
      if depth == 0:
        return i + 1
  return len(text)


def _split_top(text):
  """Splits at the commas outside brackets."""
  parts, depth, start = [], 0, 0
  for i, c in enumerate(text):
    if c in "([{":
      depth += 1
    elif c in ")]}":
      depth -= 1
    elif c == "," and depth == 0:
      parts.append(text[start:i])
      start = i + 1
  parts.append(text[start:])
  return parts


INSTR = re.compile(r"^\s*(?:ROOT\s+)?%?([\w.\-]+)\s*=\s*")


def collectives(hlo_text):
  """{kind: [count, bytes per device]} by the rule in the module docstring."""
  out = {}
  shapes = {}  # instruction name -> printed shape, per computation
  for raw in hlo_text.splitlines():
    line = re.sub(r"/\*.*?\*/", "", raw)
    if line.rstrip().endswith("{") and "=" not in line.split("(")[0]:
      shapes = {}  # a new computation
    m = INSTR.match(line)
    if not m:
      continue
    name, rest = m.group(1), line[m.end():]
    if rest.startswith("("):
      end = _matching(rest, 0)
    else:
      end = rest.find(" ")
      if rest[:end].find("{") >= 0:  # layout: f32[4]{0}
        end = _matching(rest, rest.index("{"))
    shape, rest = rest[:end], rest[end:].lstrip()
    shapes[name] = shape
    op = re.match(r"([\w\-]+)\(", rest)
    if not op:
      continue
    opcode = op.group(1)
    kind = opcode[:-len("-start")] if opcode.endswith("-start") else opcode
    if kind not in KINDS:
      continue
    args = rest[op.end() - 1:_matching(rest, op.end() - 1)][1:-1]
    operand_bytes = 0
    for a in _split_top(args):
      a = a.strip()
      if not a:
        continue
      ref = a.split()[-1].lstrip("%")
      operand_bytes += sum(_array_bytes(shapes.get(ref, a if " " in a else "")))
    leaves = _array_bytes(shape)
    result_bytes = (max(leaves) if leaves else 0) if opcode.endswith("-start") else sum(leaves)
    entry = out.setdefault(kind, [0, 0])
    entry[0] += 1
    entry[1] += max(operand_bytes, result_bytes)
  return out


def total(c):
  return sum(v[0] for v in c.values()), sum(v[1] for v in c.values())


# ----------------------------------------------------------------------------------------------
# XLA: one subprocess per model (XLA_FLAGS and TF_CPP_VMODULE are read when the backend starts;
# the pass timing goes to the C++ log on standard error).


def worker(name, hlo_out):
  sys.path.insert(0, str(REPO / "tests" / "realclient"))
  import contextlib
  import jax
  import generate
  assert len(jax.devices()) == 8, jax.devices()
  fn, args, in_sh, out_sh, donate, *context = generate.MODELS[name]()
  with jax.set_mesh(context[0]) if context else contextlib.nullcontext():
    lowered = jax.jit(fn, in_shardings=in_sh, out_shardings=out_sh,
                      donate_argnums=donate).lower(*args)
  t = time.perf_counter()
  compiled = lowered.compile()
  took = time.perf_counter() - t
  with open(hlo_out, "w") as f:
    f.write(compiled.as_text())
  sys.stderr.flush()
  print(json.dumps({"module": f"jit_{fn.__name__}", "compile_seconds": took}), flush=True)


PIPELINE = re.compile(r"Running HLO pass pipeline on module (\S+): (.*)$")
PASS_START = re.compile(r"\]\s+HLO pass (\S+)\s*$")
PASS_TIME = re.compile(r"HLO pass: (\S+) time: .*?\((\d+) us\)")
CHECKER = re.compile(r"^I\d{4} (\d\d):(\d\d):(\d\d)\.(\d{6}) .*\]\s+Invariant checker (done )?(\S+)\s*$")


def spmd_pass_seconds(log, module):
  """Sum of the top-level passes of the spmd-partitioner pipeline, from hlo_pass_pipeline's log,
  less the invariant checkers (hlo-verifier) run inside them.
  A pipeline that starts while a pass is running is nested in that pass (spmd-cleanup runs
  inside spmd-partitioning); its passes are part of the outer pass's time, not summed again.
  A pass's logged time spans the pass and the verifier run after it (the "Invariant checker"
  lines fall between the pass's start and time lines), so the verifier's share, measured from
  the log lines' microsecond timestamps, is subtracted: spmdc's figure leaves its verifier out
  too."""
  stack = []  # [pipeline, open pass or None]
  total_us, checker_us, seen = 0, 0, False
  checker_start = None
  for line in log.splitlines():
    m = PIPELINE.search(line)
    if m:
      if m.group(1) != module:
        stack = []
        continue
      if stack and stack[-1][1] is not None:
        stack.append([m.group(2), None])
      else:
        stack = stack[:-1] + [[m.group(2), None]] if stack else [[m.group(2), None]]
      continue
    if not stack:
      continue
    m = CHECKER.search(line)
    if m:
      us = ((int(m.group(1)) * 60 + int(m.group(2))) * 60 + int(m.group(3))) * 1000000 + int(m.group(4))
      counted = stack[0][0] == "spmd-partitioner" and stack[0][1] is not None
      if not m.group(5):
        checker_start = us if counted else None
      elif checker_start is not None:
        checker_us += (us - checker_start) % (24 * 3600 * 1000000)  # past midnight
        checker_start = None
      continue
    m = PASS_START.search(line)
    if m:
      stack[-1][1] = m.group(1)
      continue
    m = PASS_TIME.search(line)
    if m:
      if stack[-1][1] is None and len(stack) > 1:
        stack.pop()  # the nested pipeline is over; this line ends the outer pass
      if stack[-1][0] == "spmd-partitioner" and len(stack) == 1:
        total_us += int(m.group(2))
        seen = True
      stack[-1][1] = None
  return (total_us - checker_us) / 1e6 if seen else None


def run_xla(name, tmp, repeat=1):
  hlo = os.path.join(tmp, f"{name}.xla.compiled.hlo")
  env = dict(os.environ, XLA_FLAGS="--xla_force_host_platform_device_count=8",
             JAX_PLATFORMS="cpu", TF_CPP_MIN_LOG_LEVEL="0", TF_CPP_VMODULE="hlo_pass_pipeline=1")
  env["PYTHONDONTWRITEBYTECODE"] = "1"
  best, compile_best = None, None
  for _ in range(repeat):
    p = subprocess.run([sys.executable, __file__, "--worker", name, "--worker-out", hlo],
                       env=env, capture_output=True, text=True, cwd=tmp)
    if p.returncode != 0:
      tail = "\n".join(l for l in p.stderr.splitlines() if not l.startswith("I"))[-2000:]
      raise RuntimeError(f"XLA worker for {name} failed (exit {p.returncode}):\n{tail}")
    info = json.loads(p.stdout.strip().splitlines()[-1])
    t = spmd_pass_seconds(p.stderr, info["module"])
    if t is not None:
      best = t if best is None else min(best, t)
    compile_best = info["compile_seconds"] if compile_best is None else min(compile_best, info["compile_seconds"])
  with open(hlo) as f:
    text = f.read()
  return {"partition_seconds": best, "compile_seconds": compile_best, "collectives": collectives(text)}


# ----------------------------------------------------------------------------------------------
# spmdc.


STATS = re.compile(r"^\s+(\S+)\s+count=(\d+)\s+bytes=(\d+)", re.M)
TIMING = re.compile(r"^\s+(\S+)\s+([\d.]+)\s+([\d.]+)$", re.M)


def timing_of(text):
  """{phase: (wall, cpu)} from `spmdc compile --timing`."""
  return {name: (float(w), float(c)) for name, w, c in TIMING.findall(text)}


def run_spmdc(spmdc, name, tmp, repeat):
  src = CORPUS / name / "shardy.hlo"
  out = os.path.join(tmp, f"{name}.spmdc.compiled.hlo")
  best = {"passes": None, "cpu": None, "process": None}
  for _ in range(repeat):
    t = time.perf_counter()
    p = subprocess.run([spmdc, "compile", str(src), "--num-partitions", "8", "--stats", "--timing", "-o", out],
                       capture_output=True, text=True)
    took = time.perf_counter() - t
    if p.returncode != 0:
      raise RuntimeError(f"spmdc compile {src} failed (exit {p.returncode}): {p.stderr.strip()[-2000:]}")
    phases = timing_of(p.stdout)
    if "passes" not in phases:
      raise RuntimeError(f"spmdc compile --timing printed no 'passes' line: {p.stdout[-2000:]}")
    for key, value in (("passes", phases["passes"][0]), ("cpu", phases["passes"][1]), ("process", took)):
      best[key] = value if best[key] is None else min(best[key], value)
  with open(out) as f:
    c = collectives(f.read())
  stats = {k: [int(n), int(b)] for k, n, b in STATS.findall(p.stdout + p.stderr)}
  mismatch = None if stats == c else f"counted {c} but --stats says {stats}"
  return {"partition_seconds": best["passes"], "passes_cpu_seconds": best["cpu"],
          "process_seconds": best["process"], "collectives": c, "mismatch": mismatch}


# ----------------------------------------------------------------------------------------------


def _kinds(c):
  short = {"all-reduce": "AR", "all-gather": "AG", "reduce-scatter": "RS", "all-to-all": "A2A",
           "collective-permute": "CP"}
  return " ".join(f"{short[k]}{c[k][0]}" for k in KINDS if k in c) or "-"


def _ratio(a, b):
  if a == 0 and b == 0:
    return 1.0
  if a == 0 or b == 0:
    return None
  return a / b


def _fmt(r):
  return "n/a" if r is None else f"{r:.2f}"


def geomean(xs):
  xs = [x for x in xs if x is not None]
  return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


# ----------------------------------------------------------------------------------------------
# --self-test (ctest xla_compare_counter; needs no JAX): the counter and the pass-log reader on
# hand-written text with known answers, and the counter against spmdc's own --stats on every
# corpus module.

SELF_TEST_HLO = """HloModule t, is_scheduled=true

%add (a: f32[], b: f32[]) -> f32[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %s = f32[] add(f32[] %a, f32[] %b)
}

%body (p: (s32[], f32[8,4])) -> (s32[], f32[8,4]) {
  %p = (s32[], f32[8,4]{1,0}) parameter(0)
  %x = f32[8,4]{1,0} get-tuple-element(%p), index=1
  %cp = f32[8,4]{1,0} collective-permute(%x), channel_id=1, source_target_pairs={{0,1},{1,0}}
  %i = s32[] get-tuple-element(%p), index=0
  ROOT %t = (s32[], f32[8,4]{1,0}) tuple(%i, %cp)
}

ENTRY %main (x: f32[16,4], y: bf16[32]) -> f32[64,4] {
  %x = f32[16,4]{1,0} parameter(0)
  %y = bf16[32]{0} parameter(1)
  %ar = (f32[16,4]{1,0}, bf16[32]{0}) all-reduce(%x, /*index=1*/%y), channel_id=2, replica_groups={{0,1}}, to_apply=%add
  %g = f32[16,4]{1,0} get-tuple-element(%ar), index=0
  %ags = (f32[16,4]{1,0}, f32[64,4]{1,0}) all-gather-start(f32[16,4]{1,0} %g), channel_id=3, dimensions={0}
  %agd = f32[64,4]{1,0} all-gather-done(%ags)
  %rs = f32[4,4]{1,0} reduce-scatter(%g), channel_id=4, dimensions={0}, to_apply=%add
  %cps = (f32[4,4]{1,0}, f32[4,4]{1,0}, u32[], u32[]) collective-permute-start(%rs), channel_id=5, source_target_pairs={{0,1}}
  %cpd = f32[4,4]{1,0} collective-permute-done(%cps)
  %a2a = f32[16,4]{1,0} all-to-all(%g), channel_id=6, dimensions={0}
  ROOT %r = f32[64,4]{1,0} copy(%agd)
}
"""
# all-reduce 256 + 64 operand bytes; all-gather-start: result leaf 1024 > operand 256;
# reduce-scatter: operand 256; permutes: 128 (loop body, once) and 64; all-to-all 256.
SELF_TEST_WANT = {"all-reduce": [1, 320], "all-gather": [1, 1024], "reduce-scatter": [1, 256],
                  "collective-permute": [2, 192], "all-to-all": [1, 256]}

SELF_TEST_LOG = """I0 hlo_pass_pipeline.cc:303] Running HLO pass pipeline on module jit_f: pre-spmd-partitioner
I0 hlo_pass_pipeline.cc:181]   HLO pass strip
I0 hlo_pass_pipeline.cc:176] HLO pass: strip time: 5 us (5 us) (cumulative: 5 us)
I0 hlo_pass_pipeline.cc:303] Running HLO pass pipeline on module jit_f: spmd-partitioner
I1204 23:59:59.999000   13631 hlo_pass_pipeline.cc:86]     Invariant checker hlo-verifier
I1204 23:59:59.999900   13631 hlo_pass_pipeline.cc:89]     Invariant checker done hlo-verifier
I0 hlo_pass_pipeline.cc:181]   HLO pass call-inliner
I1204 23:59:59.999990   13631 hlo_pass_pipeline.cc:86]     Invariant checker hlo-verifier
I1205 00:00:00.000020   13631 hlo_pass_pipeline.cc:89]     Invariant checker done hlo-verifier
I0 hlo_pass_pipeline.cc:176] HLO pass: call-inliner time: 100 us (100 us) (cumulative: 105 us)
I0 hlo_pass_pipeline.cc:181]   HLO pass spmd-partitioning
I0 hlo_pass_pipeline.cc:303] Running HLO pass pipeline on module jit_f: spmd-cleanup
I0 hlo_pass_pipeline.cc:181]   HLO pass dce
I1205 00:00:00.000100   13631 hlo_pass_pipeline.cc:86]     Invariant checker hlo-verifier
I1205 00:00:00.000150   13631 hlo_pass_pipeline.cc:89]     Invariant checker done hlo-verifier
I0 hlo_pass_pipeline.cc:176] HLO pass: dce time: 7 us (7 us) (cumulative: 112 us)
I0 hlo_pass_pipeline.cc:176] HLO pass: spmd-partitioning time: 2.5 ms (2500 us) (cumulative: 2.6 ms)
I0 hlo_pass_pipeline.cc:181]   HLO pass call-inliner
I0 hlo_pass_pipeline.cc:176] HLO pass: call-inliner time: 1 ms (1000 us) (cumulative: 3.6 ms)
I0 hlo_pass_pipeline.cc:303] Running HLO pass pipeline on module jit_f: simplification
I0 hlo_pass_pipeline.cc:181]   HLO pass algsimp
I1205 00:00:01.000000   13631 hlo_pass_pipeline.cc:86]     Invariant checker hlo-verifier
I1205 00:00:01.000500   13631 hlo_pass_pipeline.cc:89]     Invariant checker done hlo-verifier
I0 hlo_pass_pipeline.cc:176] HLO pass: algsimp time: 9 us (9 us) (cumulative: 3.6 ms)
I0 hlo_pass_pipeline.cc:303] Running HLO pass pipeline on module jit_g: spmd-partitioner
I0 hlo_pass_pipeline.cc:181]   HLO pass shardy-xla
I0 hlo_pass_pipeline.cc:176] HLO pass: shardy-xla time: 9 ms (9000 us) (cumulative: 9 ms)
"""


SELF_TEST_TIMING = """collectives (per device):
  all-reduce           count=28   bytes=77796
timing (seconds):                wall       cpu
  parse                      0.014712  0.004584
  propagate                  0.003168  0.003171
  passes                     0.037856  0.013752
  total                      0.056545  0.022281
"""


def self_test(spmdc):
  failures = []
  t = timing_of(SELF_TEST_TIMING)
  if t.get("passes") != (0.037856, 0.013752) or t.get("propagate") != (0.003168, 0.003171) or "all-reduce" in t:
    failures.append(f"timing reader: {t}")
  got = collectives(SELF_TEST_HLO)
  if got != SELF_TEST_WANT:
    failures.append(f"counter on the hand-written module: {got}, want {SELF_TEST_WANT}")
  t = spmd_pass_seconds(SELF_TEST_LOG, "jit_f")
  if t is None or abs(t - 0.00352) > 1e-9:
    failures.append(f"pass log: {t} s, want 0.00352 (call-inliner + spmd-partitioning + call-inliner, less "
                    "the 30 + 50 us of verifier runs inside them)")
  if spmd_pass_seconds(SELF_TEST_LOG, "jit_h") is not None:
    failures.append("pass log: a module that is not in the log has a time")
  with tempfile.TemporaryDirectory(prefix="xla-compare-") as tmp:
    modules = sorted(p.parent.name for p in CORPUS.glob("*/shardy.hlo"))
    for name in modules:
      s = run_spmdc(spmdc, name, tmp, 1)
      if s["mismatch"]:
        failures.append(f"{name}: {s['mismatch']}")
      elif not s["collectives"]:
        failures.append(f"{name}: no collectives counted (and none in --stats)")
  for f in failures:
    print(f"xla_compare.py --self-test: FAIL {f}")
  if failures:
    sys.exit(1)
  print(f"xla_compare.py --self-test: ok (hand-written module, pass log, timing lines, {len(modules)} corpus "
        "modules against spmdc --stats)")


def main():
  ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  ap.add_argument("--spmdc", default=str(REPO / "build" / "spmdc"), help="the spmdc binary")
  ap.add_argument("--only", default=None, help="comma-separated models (default: all)")
  ap.add_argument("--repeat", type=int, default=10, help="spmdc runs per module, best kept (a run takes milliseconds)")
  ap.add_argument("--xla-repeat", type=int, default=3, help="XLA compiles per module, best pass time kept")
  ap.add_argument("--details", action="store_true", help="also print the collectives by kind and bytes")
  ap.add_argument("--keep", metavar="DIR", help="keep both compiled programs in DIR (outside the repository)")
  ap.add_argument("--self-test", action="store_true",
                  help="check the counter and the pass-log reader (no JAX needed), then exit")
  ap.add_argument("--worker", help=argparse.SUPPRESS)
  ap.add_argument("--worker-out", help=argparse.SUPPRESS)
  a = ap.parse_args()
  if a.worker:
    return worker(a.worker, a.worker_out)
  if not os.access(a.spmdc, os.X_OK):
    sys.exit(f"xla_compare.py: no spmdc binary at {a.spmdc} (build it, or pass --spmdc)")
  if a.self_test:
    return self_test(a.spmdc)
  sys.path.insert(0, str(REPO / "tests" / "realclient"))
  import generate  # the model list only; the models run in the workers
  names = a.only.split(",") if a.only else list(generate.MODELS)
  for n in names:
    if n not in generate.MODELS:
      sys.exit(f"xla_compare.py: unknown model '{n}' (known: {', '.join(generate.MODELS)})")
  head = (f"{'module':22s} {'xla part s':>10s} {'spmdc s':>8s} {'x/s':>6s} {'cpu s':>7s} {'process s':>9s} | "
          f"{'xla coll':>8s} {'xla bytes':>10s} | {'spmdc coll':>10s} {'spmdc bytes':>11s} | {'bytes s/x':>9s}  "
          f"kinds xla / spmdc")
  print(head)
  print("-" * len(head))
  byte_ratios, time_ratios, process_ratios, notes = [], [], [], []
  if a.keep:
    keep = pathlib.Path(a.keep).resolve()
    if keep == REPO or REPO in keep.parents:
      sys.exit("xla_compare.py: --keep must be outside the repository")
    keep.mkdir(parents=True, exist_ok=True)
  with (contextlib.nullcontext(str(keep)) if a.keep else
        tempfile.TemporaryDirectory(prefix="xla-compare-")) as tmp:
    for name in names:
      x = run_xla(name, tmp, a.xla_repeat)
      s = run_spmdc(a.spmdc, name, tmp, a.repeat)
      xn, xb = total(x["collectives"])
      sn, sb = total(s["collectives"])
      br = _ratio(sb, xb)
      tr = None if x["partition_seconds"] is None else x["partition_seconds"] / s["partition_seconds"]
      byte_ratios.append(br)
      time_ratios.append(tr)
      xt = "n/a" if x["partition_seconds"] is None else f"{x['partition_seconds']:.4f}"
      print(f"{name:22s} {xt:>10s} {s['partition_seconds']:8.4f} {_fmt(tr):>6s} {s['passes_cpu_seconds']:7.4f} "
            f"{s['process_seconds']:9.4f} | {xn:8d} {xb:10d} | {sn:10d} {sb:11d} | {_fmt(br):>9s}  "
            f"{_kinds(x['collectives'])} / {_kinds(s['collectives'])}", flush=True)
      process_ratios.append(None if x["partition_seconds"] is None
                            else x["partition_seconds"] / s["process_seconds"])
      if a.details:
        for side, c in (("xla", x["collectives"]), ("spmdc", s["collectives"])):
          print(f"    {side:5s} " + ", ".join(f"{k} {v[0]}x {v[1]} B" for k, v in sorted(c.items())))
        print(f"    xla whole compile {x['compile_seconds']:.2f} s")
      if s["mismatch"]:
        notes.append(f"{name}: spmdc {s['mismatch']}")
  for n in notes:
    print(f"note: {n}")
  print(f"xla_compare: {len(names)} modules, bytes spmdc/xla geomean {geomean(byte_ratios):.2f}, "
        f"partition time xla/spmdc geomean {geomean(time_ratios):.2f} (passes in-process; "
        f"against spmdc's whole process {geomean(process_ratios):.2f})")


if __name__ == "__main__":
  main()
