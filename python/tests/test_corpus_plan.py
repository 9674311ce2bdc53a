"""spmdc.jax.plan on the real-model corpus's JAX programs (tests/realclient/generate.py: GPT-2
with AdamW, ViT, ResNet, MoE, U-Net, shard_map ring matmul and ring attention, a bf16 MLP
written for Explicit axes, an FFT layer), on 8 JAX host devices: the function jitted with the
plan's shardings computes what the unsharded function computes (the shard_map and Explicit-axes
programs, which need their mesh: what the corpus's own shardings compute), on random inputs.

Ways in: "annotated" (the example arguments carry the corpus's in_shardings, as a user's
arrays would, and they constrain spmdc auto's search, plan's default strategy), "free" (no
annotation: the search chooses everything) and "free-propagate" (strategy="propagate": plan's
data-parallel default and propagation choose everything); the free ways not for the
Explicit-axes program, whose code types its values by its shardings. The search takes every
program (GPT-2's scanned layers, MoE's top-k, the shard_map rings): plan() must not fall back
to propagation on any of them."""
import contextlib
import pathlib
import sys
import warnings

import numpy as np
import pytest

jax = pytest.importorskip("jax")
pytest.importorskip("flax")
pytest.importorskip("optax")
pytest.importorskip("equinox")
from jax.sharding import NamedSharding  # noqa: E402

import spmdc.jax  # noqa: E402

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "tests" / "realclient"))
import generate  # noqa: E402

# Programs that cannot run without their mesh: the reference is the corpus's own jit.
NEEDS_MESH = {"ring_allgather_matmul", "ring_attention", "mlp_bf16_explicit"}

CASES = [(m, way) for m in generate.MODELS for way in ("annotated", "free", "free-propagate")
         if not (m == "mlp_bf16_explicit" and way != "annotated")]


def random_values(args):
    """generate.py's reference inputs, as the argument tree."""
    values, treedef = generate.reference_inputs(args)
    return jax.tree_util.tree_unflatten(treedef, values)


@pytest.mark.parametrize("model,way", CASES, ids=[f"{m}-{w}" for m, w in CASES])
def test_plan_then_jit_computes_what_the_model_computes(model, way):
    if len(jax.devices()) < 8:
        pytest.fail("JAX sees fewer than 8 devices: XLA_FLAGS must be set before jax is imported")
    fn, args, in_sh, out_sh, _donate, *context = generate.MODELS[model]()
    leaves, treedef = jax.tree_util.tree_flatten(args)
    shardings = jax.tree_util.tree_leaves(in_sh, is_leaf=lambda s: isinstance(s, NamedSharding))
    assert len(shardings) == len(leaves)
    mesh = shardings[0].mesh
    examples = jax.tree_util.tree_unflatten(treedef, [
        jax.ShapeDtypeStruct(l.shape, l.dtype, sharding=s if way == "annotated" else None)
        for l, s in zip(leaves, shardings)])
    scope = (lambda: jax.set_mesh(context[0])) if context else contextlib.nullcontext
    with scope(), warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)  # a fallback to propagation fails the test
        if way == "free-propagate":
            p = spmdc.jax.plan(fn, *examples, mesh=mesh, strategy="propagate")
        else:
            p = spmdc.jax.plan(fn, *examples, mesh=mesh, time_limit=60)
            assert p.strategy == "auto"
    specs = [s.spec for s in jax.tree_util.tree_leaves(
        p.in_shardings, is_leaf=lambda s: isinstance(s, NamedSharding))]
    if p.strategy == "propagate":  # the search may rightly keep a small program whole
        assert any(any(a is not None for a in s) for s in specs), "the plan shards nothing"
    values = random_values(args)
    with scope():
        got = p.jit(fn)(*p.put(*values))
        if model in NEEDS_MESH:
            want = jax.jit(fn, in_shardings=in_sh, out_shardings=out_sh)(
                *jax.tree.map(jax.device_put, values, in_sh))
        else:
            want = jax.jit(fn)(*values)
    bad = mismatches(got, want)
    if bad and model not in NEEDS_MESH:
        # An output that XLA computes wrongly by itself, asked only for the plan's output
        # shardings (inputs replicated), is XLA's miscompile, not the plan's (JAX 0.10.2 CPU:
        # unet_grad's transposed-convolution kernel gradients under P('data', None, 'space'));
        # then spmdc's own partitioning of the plan must compute the model on 8 devices.
        with scope():
            alone = jax.jit(fn, out_shardings=p.out_shardings)(*values)
        xla_wrong = {k for k, _ in mismatches(alone, want)}
        bad = [(k, err) for k, err in bad if k not in xla_wrong]
        if xla_wrong:
            assert p.module.verify()["outputs"] == len(jax.tree.leaves(want))
    assert not bad, "; ".join(f"output {k}: relative error {err:.3g}" for k, err in bad)


def mismatches(got, want):
    """(output, relative error) of every output of `got` that differs from `want`'s beyond the
    tolerance of its type."""
    got_leaves, want_leaves = jax.tree.leaves(got), jax.tree.leaves(want)
    assert len(got_leaves) == len(want_leaves)
    out = []
    for k, (g, w) in enumerate(zip(got_leaves, want_leaves)):
        g64, w64 = np.asarray(g, np.float64), np.asarray(w, np.float64)
        assert g64.shape == w64.shape
        if g64.size == 0:
            continue
        scale = max(float(np.max(np.abs(w64))), 1e-30)
        tolerance = 2e-2 if np.asarray(w).dtype.itemsize <= 2 else 1e-4
        err = float(np.max(np.abs(g64 - w64))) / scale
        if err > tolerance:
            out.append((k, err))
    return out
