#!/usr/bin/env python3
"""Figures of the Python package on the realclient corpus (prints them; asserts nothing).

Per corpus program of tests/realclient/generate.py, on 8 JAX host devices, what the cost model
(`report`, hardware h100) predicts per device for
  corpus:  the program's own shardings, propagated by spmdc.jax.plan (strategy "propagate")
  default: no annotation, plan's data-parallel default + propagation
and, per corpus shardy.mlir, the collectives of propagate + partition with each `calls` mode
(keep: a callee shared by several call sites left shared; flatten: cloned per site; inline, the
default: every call replaced by its callee, as XLA's SPMD pipeline and the CLI do).

usage: .venv/bin/python bench/python_plan_bench.py   (after .venv/bin/pip install .)
"""
import contextlib
import os
import pathlib
import sys
import time

os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=8")
os.environ.setdefault("JAX_PLATFORMS", "cpu")
REPO = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests" / "realclient"))

import jax  # noqa: E402
from jax.sharding import NamedSharding  # noqa: E402

import generate  # noqa: E402
import spmdc  # noqa: E402
import spmdc.jax  # noqa: E402


def summary(r):
    comm = sum(c["bytes_per_device"] for c in r["collectives"])
    count = sum(c["count"] for c in r["collectives"])
    return (f"step {r['step_time_seconds'] * 1e6:7.1f} us  peak {r['peak_memory_bytes'] / 1e3:7.1f} KB"
            f"  collectives {count:3d} / {comm:8d} B")


def plans():
    print("plan: predicted per device (h100), corpus shardings vs plan's default")
    for name, build in generate.MODELS.items():
        fn, args, in_sh, _out_sh, _donate, *context = build()
        leaves, treedef = jax.tree_util.tree_flatten(args)
        shardings = jax.tree_util.tree_leaves(in_sh, is_leaf=lambda s: isinstance(s, NamedSharding))
        mesh = shardings[0].mesh
        scope = (lambda: jax.set_mesh(context[0])) if context else contextlib.nullcontext
        row = []
        for way in ("corpus", "default"):
            if way == "default" and context:
                row.append("(Explicit axes: n/a)")
                continue
            examples = jax.tree_util.tree_unflatten(treedef, [
                jax.ShapeDtypeStruct(l.shape, l.dtype, sharding=s if way == "corpus" else None)
                for l, s in zip(leaves, shardings)])
            t = time.perf_counter()
            with scope():
                p = spmdc.jax.plan(fn, *examples, mesh=mesh)
            took = time.perf_counter() - t
            row.append(f"{summary(p.module.report())}  plan {took:.2f} s")
        print(f"  {name:22s} corpus:  {row[0]}\n  {'':22s} default: {row[1]}", flush=True)


def flattening():
    print("propagate + partition, collectives (count / bytes per device) by calls mode")
    for path in sorted((REPO / "tests" / "realclient" / "corpus").glob("*/shardy.mlir")):
        try:
            m = spmdc.Module.parse(path.read_text(), str(path))
        except spmdc.UnsupportedError as e:
            print(f"  {path.parent.name:22s} {str(e).splitlines()[0]}")
            continue
        row = []
        for calls in ("keep", "flatten", "inline"):
            c = m.propagate(calls=calls).partition().collectives()
            row.append(f"{calls} {sum(v[0] for v in c.values()):3d} / {sum(v[1] for v in c.values()):8d} B")
        print(f"  {path.parent.name:22s} " + "   ".join(row), flush=True)


if __name__ == "__main__":
    if len(jax.devices()) < 8:
        sys.exit("python_plan_bench.py: JAX sees fewer than 8 devices (XLA_FLAGS set too late?)")
    flattening()
    plans()
