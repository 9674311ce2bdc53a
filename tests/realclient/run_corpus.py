#!/usr/bin/env python3
"""Runs spmdc on every HLO-text module of the JAX-exported corpus (tests/realclient/corpus/) and
compares the two front ends of each model.

Per module (<model>/<front>.hlo and <model>/<front>.xla.hlo, front = shardy | gspmd):
  check                                   parse + verify
  propagate                               every instruction's sharding
  compile --num-partitions 8 --stats      propagate + partition + clean up; collectives by kind
  verify --num-partitions 8 --propagate   1 device vs 8 devices (the compiled program) on random
                                          inputs; modules with shard_map regions, which one
                                          device cannot run, against the module with only the
                                          regions' boundaries annotated
  reference                               for models with <model>/reference/ (generate.py's
                                          REFERENCE): run --num-partitions 8 on the inputs JAX
                                          ran, outputs compared with what JAX's compiled jit
                                          returned (XLA's own SPMD partitioner on 8 CPU devices),
                                          |spmdc - jax| <= rtol (|jax| + max |jax| of the output),
                                          rtol 1e-3 (5e-3 for modules with bf16); the one check
                                          that does not compare spmdc with itself
Per model, the Shardy and GSPMD exports (as lowered, and as XLA dumps them) must give the same
propagated shardings on the entry parameters and results and the same collectives (count per
kind) after compile.

A step that fails must be listed in expected_failures.txt (model/file step exit-code
message-substring); a listed failure that no longer happens fails the run too, so the list
stays what spmdc does today.

usage: run_corpus.py --spmdc build/spmdc [--corpus DIR] [--work DIR] [--only MODEL,...]
prints one line per step and a table; exit 0 when everything matches expectations.
"""

import argparse
import ast
import os
import re
import struct
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
STEPS = ("check", "propagate", "compile", "verify", "reference")
N = 8


def load_expected(path):
  """{(module, step): (exit code, substring)}"""
  out = {}
  if not os.path.exists(path):
    return out
  with open(path) as f:
    for lineno, line in enumerate(f, 1):
      line = line.strip()
      if not line or line.startswith("#"):
        continue
      parts = line.split(None, 3)
      if len(parts) < 3 or parts[1] not in STEPS:
        sys.exit(f"{path}:{lineno}: expected 'model/file step exit-code [message substring]'")
      out[(parts[0], parts[1])] = (int(parts[2]), parts[3] if len(parts) > 3 else "")
  return out


def entry_signature(text):
  """(parameter shardings by parameter number, root sharding) of a printed module's entry."""
  entry = text[text.index("\nENTRY "):]
  entry = entry[: entry.index("\n}\n") if "\n}\n" in entry else len(entry)]
  params, root = {}, None
  for line in entry.splitlines():
    m = re.search(r"\sparameter\((\d+)\)", line)
    s = re.search(r"sharding=(\{.*?\})(?:, [a-z_]+=|$)", line)
    sharding = s.group(1) if s else "{replicated}"
    if m:
      params[int(m.group(1))] = sharding
    if line.lstrip().startswith("ROOT "):
      root = sharding
  return params, root


def read_npy(path):
  """(shape, flat list of values) of a little-endian .npy file (numpy is not needed)."""
  with open(path, "rb") as f:
    data = f.read()
  if data[:6] != b"\x93NUMPY":
    raise ValueError(f"{path}: not a .npy file")
  major = data[6]
  hlen = int.from_bytes(data[8:10] if major == 1 else data[8:12], "little")
  start = (10 if major == 1 else 12) + hlen
  header = ast.literal_eval(data[10 if major == 1 else 12:start].decode("latin1"))
  if header["fortran_order"]:
    raise ValueError(f"{path}: Fortran order")
  descr = header["descr"]
  code = {"<f4": "f", "<f8": "d", "<i4": "i", "<i8": "q", "<u4": "I", "|b1": "B", "|u1": "B",
          "|i1": "b", "<f2": "e"}.get(descr)
  if code is None:
    raise ValueError(f"{path}: dtype {descr}")
  n = 1
  for d in header["shape"]:
    n *= d
  values = struct.unpack_from(f"<{n}{code}", data, start)
  return tuple(header["shape"]), values


def compare_outputs(got_dir, want_dir, count, rtol):
  """'' when the count outputs match, else what differs: each element within rtol of JAX's,
  relative to the element plus the largest magnitude of its output (a different summation
  order moves small elements of a sum by the rounding of its large terms)."""
  for k in range(count):
    gs, gv = read_npy(os.path.join(got_dir, f"output_{k}.npy"))
    ws, wv = read_npy(os.path.join(want_dir, f"output_{k}.npy"))
    if gs != ws:
      return f"output_{k}: shape {gs}, JAX's {ws}"
    scale = max((abs(w) for w in wv), default=0.0)
    for i, (g, w) in enumerate(zip(gv, wv)):
      if not (abs(g - w) <= rtol * (abs(w) + scale)):  # also catches NaN
        return f"output_{k}[{i}] (flat): {g}, JAX's {w} (tolerance {rtol} x (|x| + {scale:.3g}))"
  return ""


def collectives(stats):
  """{kind: count} from compile --stats."""
  out = {}
  for line in stats.splitlines():
    m = re.match(r"\s+(\S+)\s+count=(\d+)", line)
    if m:
      out[m.group(1)] = int(m.group(2))
  return out


def main():
  ap = argparse.ArgumentParser()
  ap.add_argument("--spmdc", required=True)
  ap.add_argument("--corpus", default=os.path.join(HERE, "corpus"))
  ap.add_argument("--expected", default=os.path.join(HERE, "expected_failures.txt"))
  ap.add_argument("--work")
  ap.add_argument("--only", default="")
  ap.add_argument("--timeout", type=int, default=600)
  a = ap.parse_args()
  expected = load_expected(a.expected)
  work = a.work or tempfile.mkdtemp(prefix="spmdc-corpus-")
  os.makedirs(work, exist_ok=True)
  models = sorted(d for d in os.listdir(a.corpus) if os.path.isdir(os.path.join(a.corpus, d)))
  if a.only:
    models = [m for m in models if m in a.only.split(",")]
  problems, rows, seen = [], [], set()
  results = {}  # module -> {"propagated": text, "stats": text}

  def run(module, step, argv):
    t0 = time.time()
    try:
      p = subprocess.run([a.spmdc] + argv, capture_output=True, text=True, timeout=a.timeout)
      rc, out, err = p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired:
      rc, out, err = 124, "", f"timed out after {a.timeout} s"
    dt = time.time() - t0
    msg = err.strip().splitlines()[-1] if err.strip() else ""
    key = (module, step)
    seen.add(key)
    if key in expected:
      want_rc, want_msg = expected[key]
      if rc == 0:
        problems.append(f"{module} {step}: passes now; remove it from expected_failures.txt")
        status = "PASS (listed as failing)"
      elif rc != want_rc or want_msg not in err:
        problems.append(f"{module} {step}: exit {rc}, expected {want_rc} '{want_msg}': {msg}")
        status = f"exit {rc}"
      else:
        status = f"xfail {rc}"
    elif rc != 0:
      problems.append(f"{module} {step}: exit {rc}: {msg}")
      status = f"FAIL {rc}"
    else:
      status = "ok"
    print(f"  {module:<40} {step:<10} {status:<10} {dt:6.1f}s  {msg if rc else ''}", flush=True)
    return rc, out, err, status

  for model in models:
    for f in sorted(os.listdir(os.path.join(a.corpus, model))):
      if not f.endswith(".hlo"):
        continue
      module = f"{model}/{f}"
      path = os.path.join(a.corpus, model, f)
      base = os.path.join(work, model + "." + f[:-4])
      row = {"module": module}
      rc, _, _, row["check"] = run(module, "check", ["check", path])
      if rc != 0:
        rows.append(row)
        continue
      rc, _, _, row["propagate"] = run(module, "propagate", ["propagate", path, "-o", base + ".propagated.hlo"])
      res = results.setdefault(module, {})
      if rc == 0:
        res["propagated"] = open(base + ".propagated.hlo").read()
      # With -o, --stats prints to standard output.
      rc, out, _, row["compile"] = run(module, "compile",
                                       ["compile", path, "--num-partitions", str(N), "--stats",
                                        "-o", base + ".compiled.hlo"])
      if rc == 0:
        res["stats"] = out
      # --propagate: the program compile makes (propagated, then partitioned), not the module
      # partitioned as annotated; for modules with shard_map regions the reference is the module
      # with only the regions' boundaries annotated, run on the same devices.
      _, out, _, row["verify"] = run(module, "verify", ["verify", path, "--num-partitions", str(N),
                                                        "--seed", "1", "--propagate"])
      ref = os.path.join(a.corpus, model, "reference")
      if os.path.isdir(ref):
        files = os.listdir(ref)
        n_in = sum(f.startswith("input_") for f in files)
        n_out = sum(f.startswith("output_") for f in files)
        inputs = ",".join(os.path.join(ref, f"input_{k}.npy") for k in range(n_in))
        rc, _, _, row["reference"] = run(module, "reference",
                                         ["run", path, "--num-partitions", str(N), "--inputs", inputs,
                                          "--outputs", base + ".out"])
        if rc == 0:
          # bf16 arithmetic rounds differently in XLA's CPU kernels and spmdc's interpreter:
          # a few units of bf16 roundoff (2^-8); f32 modules much tighter.
          rtol = 5e-3 if "bf16[" in open(path).read() else 1e-3
          diff = compare_outputs(base + ".out", ref, n_out, rtol)
          if diff:
            problems.append(f"{module} reference: {diff}")
            row["reference"] = "MISMATCH"
            print(f"  {module:<40} reference  MISMATCH  {diff}", flush=True)
      rows.append(row)

  for key in sorted(set(expected) - seen):
    if key[0].split("/")[0] in models:
      problems.append(f"{key[0]} {key[1]}: listed in expected_failures.txt but not run")

  # The two front ends of each model agree.
  compare = []
  for model in models:
    for suffix in (".hlo", ".xla.hlo"):
      a_mod, b_mod = f"{model}/shardy{suffix}", f"{model}/gspmd{suffix}"
      ra, rb = results.get(a_mod, {}), results.get(b_mod, {})
      if "propagated" in ra and "propagated" in rb:
        pa, oa = entry_signature(ra["propagated"])
        pb, ob = entry_signature(rb["propagated"])
        diff = [i for i in sorted(set(pa) | set(pb)) if pa.get(i) != pb.get(i)]
        for i in diff[:5]:
          problems.append(f"{model}{suffix}: parameter {i}: shardy {pa.get(i)} vs gspmd {pb.get(i)}")
        if oa != ob:
          problems.append(f"{model}{suffix}: result: shardy {oa} vs gspmd {ob}")
        compare.append(f"{model}{suffix}: shardings {'same' if not diff and oa == ob else 'DIFFER'}"
                       f" ({len(pa)} parameters)")
      if "stats" in ra and "stats" in rb:
        ca, cb = collectives(ra["stats"]), collectives(rb["stats"])
        same = ca == cb
        if not same:
          problems.append(f"{model}{suffix}: collectives: shardy {ca} vs gspmd {cb}")
        compare.append(f"{model}{suffix}: collectives {'same' if same else 'DIFFER'} "
                       + ", ".join(f"{k}={v}" for k, v in sorted(ca.items())))

  print("\nmodule                                   " + " ".join(f"{s:<10}" for s in STEPS))
  for row in rows:
    print(f"{row['module']:<40} " + " ".join(f"{row.get(s, '-'):<10}" for s in STEPS))
  print("\nshardy vs gspmd:")
  for line in compare:
    print("  " + line)
  if not a.work:
    shutil.rmtree(work, ignore_errors=True)
  if problems:
    print(f"\nrun_corpus: {len(problems)} unexpected results:")
    for p in problems:
      print("  " + p)
    return 1
  print(f"\nrun_corpus: {len(rows)} modules as expected")
  return 0


if __name__ == "__main__":
  sys.exit(main())
