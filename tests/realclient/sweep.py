#!/usr/bin/env python3
"""A sweep of small JAX programs of forms the corpus (generate.py) lacks, through every spmdc
command. Not part of ctest: it needs the project virtual environment and writes its dumps to a
folder of the caller's choosing (they are not committed; the corpus's size is fixed).

Each program is jitted on a mesh of 8 host CPU devices with NamedSharding in/out shardings
(Shardy, JAX's default) and dumped as HLO (`lowered.as_text(dialect="hlo")`, `P.hlo`),
StableHLO (`lowered.as_text()`, `P.mlir`) and jax.export's StableHLO (`P.export.mlir`:
`jax.export.export(jitted)(*args).mlir_module()`), and XLA's own dump of the compiled jit
before its passes (`P.xla.hlo`, from --xla_dump_to). Then, for every file:

  check F;  propagate F -o /dev/null;  compile F --num-partitions 8 -o /dev/null;
  verify F --num-partitions 8 --propagate --seed 1
and on the HLO:   auto F --mesh <the program's mesh> -o /dev/null
and for each: run F --num-partitions 8 on the inputs JAX ran the compiled jit on (fixed seed,
OUT/P.ref/input_K.npy), outputs compared with JAX's (OUT/P.ref/output_K.npy; rtol 1e-3, 5e-3
with bf16): the one check that does not compare spmdc with itself (a wrong translation of the
StableHLO, say, passes verify).

It prints a table of programs x commands: ok, or the exit code (2 bad input, 3
unsupported, other: a crash) and the last line of the error.

usage: .venv/bin/python tests/realclient/sweep.py OUT [--spmdc build/spmdc] [--only P,...]
                                                     [--no-generate] [--timeout S] [--gspmd]
"""

import argparse
import glob
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
EXTS = ("hlo", "xla.hlo", "mlir", "export.mlir")
REPO = os.path.dirname(os.path.dirname(HERE))


def _mesh(shape, names):
  import jax
  return jax.make_mesh(shape, names, axis_types=(jax.sharding.AxisType.Auto,) * len(shape))


def _abstract(tree):
  import jax
  return jax.tree.map(lambda a: jax.ShapeDtypeStruct(a.shape, a.dtype), tree)


# ----------------------------------------------------------------------------------------------
# The programs. Each returns (fn, args, in_shardings, out_shardings, mesh spec for spmdc auto).


def llama_train():
  """Llama-style decoder training step (Flax linen): RMSNorm, RoPE, grouped-query attention with
  a causal mask, SwiGLU; layers as nn.scan(nn.remat(Block)) with a checkpoint policy; bf16
  activations over f32 master weights; optax adamw chained after clip_by_global_norm."""
  import jax
  import jax.numpy as jnp
  import flax.linen as nn
  import optax
  from jax.sharding import NamedSharding, PartitionSpec as P

  vocab, d, heads, kv_heads, hd, ff, layers, seq, batch = 64, 32, 4, 2, 8, 64, 2, 16, 8

  class RMSNorm(nn.Module):
    @nn.compact
    def __call__(self, x):
      w = self.param("scale", nn.initializers.ones, (x.shape[-1],), jnp.float32)
      x32 = x.astype(jnp.float32)
      y = x32 * jax.lax.rsqrt(jnp.mean(x32 * x32, -1, keepdims=True) + 1e-6)
      return (y * w).astype(x.dtype)

  def rope(x, pos):  # x [b, t, h, hd]
    half = hd // 2
    freq = 1.0 / (10000 ** (jnp.arange(half, dtype=jnp.float32) / half))
    ang = pos[:, None].astype(jnp.float32) * freq[None, :]
    sin, cos = jnp.sin(ang)[None, :, None, :], jnp.cos(ang)[None, :, None, :]
    x1, x2 = x[..., :half].astype(jnp.float32), x[..., half:].astype(jnp.float32)
    return jnp.concatenate([x1 * cos - x2 * sin, x2 * cos + x1 * sin], -1).astype(x.dtype)

  dense = lambda n, name: nn.Dense(n, use_bias=False, dtype=jnp.bfloat16,
                                   param_dtype=jnp.float32, name=name)

  class Block(nn.Module):
    @nn.compact
    def __call__(self, x, _):
      b, t, _ = x.shape
      h = RMSNorm(name="attn_norm")(x)
      q = dense(heads * hd, "wq")(h).reshape(b, t, heads, hd)
      k = dense(kv_heads * hd, "wk")(h).reshape(b, t, kv_heads, hd)
      v = dense(kv_heads * hd, "wv")(h).reshape(b, t, kv_heads, hd)
      pos = jnp.arange(t)
      q, k = rope(q, pos), rope(k, pos)
      k = jnp.repeat(k, heads // kv_heads, axis=2)
      v = jnp.repeat(v, heads // kv_heads, axis=2)
      s = jnp.einsum("bthd,bshd->bhts", q, k).astype(jnp.float32) / jnp.sqrt(hd)
      mask = jnp.tril(jnp.ones((t, t), bool))
      s = jnp.where(mask[None, None], s, -1e30)
      p = jax.nn.softmax(s, -1).astype(jnp.bfloat16)
      o = jnp.einsum("bhts,bshd->bthd", p, v).reshape(b, t, heads * hd)
      x = x + dense(d, "wo")(o)
      h = RMSNorm(name="mlp_norm")(x)
      g = nn.silu(dense(ff, "w1")(h)) * dense(ff, "w3")(h)
      return x + dense(d, "w2")(g), None

  class Llama(nn.Module):
    @nn.compact
    def __call__(self, tokens):
      emb = nn.Embed(vocab, d, dtype=jnp.bfloat16, param_dtype=jnp.float32, name="embed")
      x = emb(tokens)
      Stack = nn.scan(nn.remat(Block, policy=jax.checkpoint_policies.dots_with_no_batch_dims_saveable),
                      variable_axes={"params": 0}, split_rngs={"params": True}, length=layers)
      x, _ = Stack(name="layers")(x, None)
      x = RMSNorm(name="final_norm")(x)
      return dense(vocab, "lm_head")(x).astype(jnp.float32)

  model = Llama()
  tokens = jnp.zeros((batch, seq), jnp.int32)
  params = jax.eval_shape(model.init, jax.random.key(0), tokens)
  tx = optax.chain(optax.clip_by_global_norm(1.0), optax.adamw(1e-3, weight_decay=0.1))
  opt_state = jax.eval_shape(tx.init, params)
  mesh = _mesh((2, 4), ("data", "model"))

  def spec(path, leaf):
    name = jax.tree_util.keystr(path)
    if leaf.ndim == 0 or "norm" in name:
      return P()
    if any(w in name for w in ("wq", "wk", "wv", "w1", "w3")):
      return P(None, None, "model")
    if any(w in name for w in ("wo", "w2")):
      return P(None, "model", None)
    if "embed" in name:
      return P("model", None)
    if "lm_head" in name:
      return P(None, "model")
    return P()

  psh = jax.tree.map(lambda s: NamedSharding(mesh, s),
                     jax.tree_util.tree_map_with_path(spec, params))
  osh = jax.tree.map(lambda _: NamedSharding(mesh, P()), opt_state)
  tsh = NamedSharding(mesh, P("data", None))

  def llama_train_step(params, opt_state, tokens):
    def loss_fn(p):
      logits = model.apply(p, tokens[:, :-1])
      return optax.softmax_cross_entropy_with_integer_labels(logits, tokens[:, 1:]).mean()
    loss, g = jax.value_and_grad(loss_fn)(params)
    upd, opt_state = tx.update(g, opt_state, params)
    return optax.apply_updates(params, upd), opt_state, loss

  return (llama_train_step, (params, opt_state, _abstract(tokens)), (psh, osh, tsh),
          (psh, osh, NamedSharding(mesh, P())), "data=2,model=4")


def mobilenet_sgd():
  """MobileNet-style conv net (Flax linen): depthwise convs (feature_group_count), strides,
  BatchNorm with running statistics, global average pool; SGD with momentum."""
  import jax
  import jax.numpy as jnp
  import flax.linen as nn
  import optax
  from jax.sharding import NamedSharding, PartitionSpec as P

  class DWBlock(nn.Module):
    features: int
    stride: int

    @nn.compact
    def __call__(self, x, train):
      c = x.shape[-1]
      x = nn.Conv(c, (3, 3), (self.stride, self.stride), feature_group_count=c, use_bias=False)(x)
      x = nn.relu6(nn.BatchNorm(use_running_average=not train)(x))
      x = nn.Conv(self.features, (1, 1), use_bias=False)(x)
      return nn.relu6(nn.BatchNorm(use_running_average=not train)(x))

  class Net(nn.Module):
    @nn.compact
    def __call__(self, x, train):
      x = nn.Conv(8, (3, 3), (2, 2), use_bias=False)(x)
      x = nn.relu6(nn.BatchNorm(use_running_average=not train)(x))
      x = DWBlock(16, 1)(x, train)
      x = DWBlock(32, 2)(x, train)
      return nn.Dense(10)(x.mean((1, 2)))

  model = Net()
  images = jnp.zeros((16, 16, 16, 3))
  labels = jnp.zeros((16,), jnp.int32)
  variables = jax.eval_shape(lambda k: model.init(k, images, False), jax.random.key(0))
  tx = optax.sgd(0.1, momentum=0.9)
  opt_state = jax.eval_shape(tx.init, variables["params"])
  mesh = _mesh((8,), ("data",))
  repl = NamedSharding(mesh, P())
  vsh = jax.tree.map(lambda _: repl, variables)
  osh = jax.tree.map(lambda _: repl, opt_state)
  dsh = NamedSharding(mesh, P("data"))

  def mobilenet_train_step(variables, opt_state, images, labels):
    def loss_fn(params):
      logits, upd = model.apply({"params": params, "batch_stats": variables["batch_stats"]},
                                images, True, mutable=["batch_stats"])
      return optax.softmax_cross_entropy_with_integer_labels(logits, labels).mean(), upd
    (loss, upd), g = jax.value_and_grad(loss_fn, has_aux=True)(variables["params"])
    u, opt_state = tx.update(g, opt_state)
    params = optax.apply_updates(variables["params"], u)
    return {"params": params, "batch_stats": upd["batch_stats"]}, opt_state, loss

  return (mobilenet_train_step, (variables, opt_state, _abstract(images), _abstract(labels)),
          (vsh, osh, dsh, dsh), (vsh, osh, repl), "data=8")


def embed_gather_scatter():
  """Embedding lookups with jnp.take and their gradient (scatter-add), an explicit .at[].add
  into a table, jax.ops.segment_sum over segment ids."""
  import jax
  import jax.numpy as jnp
  from jax.sharding import NamedSharding, PartitionSpec as P

  vocab, d, b, t, segs = 64, 16, 8, 12, 10
  mesh = _mesh((2, 4), ("data", "model"))

  def embed_step(table, ids, seg, upd):
    def loss(tbl):
      e = jnp.take(tbl, ids, axis=0)  # [b, t, d]
      return jnp.sum(jnp.tanh(e) ** 2)
    l, g = jax.value_and_grad(loss)(table)
    counts = jnp.zeros((vocab,), jnp.float32).at[ids.reshape(-1)].add(1.0)
    pooled = jax.ops.segment_sum(upd, seg, num_segments=segs)  # [segs, d]
    table2 = table.at[ids[:, 0]].add(upd[:b])
    return l, g, counts, pooled, table2

  args = (jax.ShapeDtypeStruct((vocab, d), jnp.float32), jax.ShapeDtypeStruct((b, t), jnp.int32),
          jax.ShapeDtypeStruct((b * t,), jnp.int32), jax.ShapeDtypeStruct((b * t, d), jnp.float32))
  ns = lambda *s: NamedSharding(mesh, P(*s))
  in_sh = (ns(None, "model"), ns("data", None), ns("data"), ns("data", None))
  out_sh = (ns(), ns(None, "model"), ns(), ns(), ns(None, "model"))
  return embed_step, args, in_sh, out_sh, "data=2,model=4"


def control_flow():
  """lax.switch over three branches, lax.cond, fori_loop with a carried tuple, while_loop."""
  import jax
  import jax.numpy as jnp
  from jax import lax
  from jax.sharding import NamedSharding, PartitionSpec as P

  mesh = _mesh((4, 2), ("data", "model"))

  def control_step(x, w, k):
    y = lax.switch(k % 3, [lambda a: a @ w, lambda a: jnp.tanh(a) @ w, lambda a: -a @ w], x)
    y = lax.cond(jnp.sum(y) > 0, lambda a: a * 2.0, lambda a: a - 1.0, y)

    def body(i, carry):
      acc, h, n = carry
      h = jnp.tanh(h @ w.T @ w)
      return acc + h.sum(0), h, n + i
    acc, h, n = lax.fori_loop(0, 3, body, (jnp.zeros(w.shape[1]), y, jnp.int32(0)))
    z = lax.while_loop(lambda c: c[1] < 4, lambda c: (c[0] * 0.5 + 1.0, c[1] + 1), (h, 0))[0]
    return acc, z, n

  args = (jax.ShapeDtypeStruct((16, 32), jnp.float32), jax.ShapeDtypeStruct((32, 32), jnp.float32),
          jax.ShapeDtypeStruct((), jnp.int32))
  ns = lambda *s: NamedSharding(mesh, P(*s))
  return (control_step, args, (ns("data", None), ns(None, "model"), ns()),
          (ns(), ns("data", None), ns()), "data=4,model=2")


def sort_topk():
  """jnp.cumsum, jnp.sort, jnp.argsort, lax.top_k, jnp.argmax over a batch-sharded operand."""
  import jax
  import jax.numpy as jnp
  from jax.sharding import NamedSharding, PartitionSpec as P

  mesh = _mesh((8,), ("data",))

  def sort_step(x):
    c = jnp.cumsum(x, axis=1)
    s = jnp.sort(x, axis=1)
    i = jnp.argsort(x, axis=1)
    v, ti = jax.lax.top_k(x, 4)
    am = jnp.argmax(x, axis=1)
    cs0 = jnp.cumsum(x, axis=0)  # along the sharded dimension
    return c, s, i, v, ti, am, cs0

  args = (jax.ShapeDtypeStruct((16, 32), jnp.float32),)
  ns = lambda *s: NamedSharding(mesh, P(*s))
  d = ns("data", None)
  return sort_step, args, (d,), (d, d, d, d, d, ns("data"), d), "data=8"


def dropout_rng():
  """Dropout with jax.random: a threefry key split and folded per layer (the default impl), and
  an 'rbg' key (rng_bit_generator)."""
  import jax
  import jax.numpy as jnp
  from jax.sharding import NamedSharding, PartitionSpec as P

  mesh = _mesh((4, 2), ("data", "model"))

  def dropout_step(x, w, seed):
    key = jax.random.key(seed)
    k1, k2 = jax.random.split(key)
    h = x @ w
    keep = jax.random.bernoulli(jax.random.fold_in(k1, 1), 0.9, h.shape)
    h = jnp.where(keep, h / 0.9, 0.0)
    noise = jax.random.normal(k2, h.shape)
    rk = jax.random.key(seed, impl="rbg")
    u = jax.random.uniform(rk, h.shape)
    return h + 0.01 * noise, u

  args = (jax.ShapeDtypeStruct((16, 32), jnp.float32), jax.ShapeDtypeStruct((32, 16), jnp.float32),
          jax.ShapeDtypeStruct((), jnp.uint32))
  ns = lambda *s: NamedSharding(mesh, P(*s))
  return (dropout_step, args, (ns("data", None), ns(None, "model"), ns()),
          (ns("data", "model"), ns("data", None)), "data=4,model=2")


def dpa_attention():
  """jax.nn.dot_product_attention (XLA implementation) with a causal mask, and its gradient."""
  import jax
  import jax.numpy as jnp
  from jax.sharding import NamedSharding, PartitionSpec as P

  mesh = _mesh((2, 4), ("data", "model"))

  def dpa_step(q, k, v):
    def f(q, k, v):
      return jnp.sum(jax.nn.dot_product_attention(q, k, v, is_causal=True) ** 2)
    return jax.value_and_grad(f, argnums=(0, 1, 2))(q, k, v)

  s = jax.ShapeDtypeStruct((4, 16, 8, 8), jnp.float32)  # [B, T, N, H]
  sh = NamedSharding(mesh, P("data", None, "model", None))
  return dpa_step, (s, s, s), (sh, sh, sh), (NamedSharding(mesh, P()), (sh, sh, sh)), "data=2,model=4"


def einsum_batch():
  """jnp.einsum with several batch dimensions and contractions, sharded on batch and contracting
  dimensions, and a with_sharding_constraint inside."""
  import jax
  import jax.numpy as jnp
  from jax.sharding import NamedSharding, PartitionSpec as P

  mesh = _mesh((2, 4), ("data", "model"))
  ns = lambda *s: NamedSharding(mesh, P(*s))

  def einsum_step(a, b, c):
    x = jnp.einsum("bgnk,bgkm->bgnm", a, b)
    x = jax.lax.with_sharding_constraint(x, ns("data", "model", None, None))
    y = jnp.einsum("bgnm,gmr->bnr", x, c)
    y = jax.lax.with_sharding_constraint(y, ns(None, "data", "model"))
    return y, jnp.einsum("bgnk->gk", a)

  args = (jax.ShapeDtypeStruct((4, 4, 8, 16), jnp.float32),
          jax.ShapeDtypeStruct((4, 4, 16, 8), jnp.float32),
          jax.ShapeDtypeStruct((4, 8, 12), jnp.float32))
  return (einsum_step, args, (ns("data", None, None, "model"), ns("data", None, "model", None),
                              ns(None, None, "model")),
          (ns("data", None, None), ns()), "data=2,model=4")


def shard_map_collectives():
  """jax.shard_map over both axes with psum, all_gather, ppermute, all_to_all, psum_scatter, axis_index;
  then automatic code after the region."""
  import jax
  import jax.numpy as jnp
  from jax.sharding import NamedSharding, PartitionSpec as P

  mesh = _mesh((2, 4), ("data", "model"))
  ns = lambda *s: NamedSharding(mesh, P(*s))

  def body(x, w):  # x [8/2, 16/4], w [16/4, 8]
    idx = jax.lax.axis_index("model")
    y = x @ w  # partial sums over 'model'
    y = jax.lax.psum(y, "model")
    g = jax.lax.all_gather(x, "model", axis=1, tiled=True)  # [4, 16]
    r = jax.lax.ppermute(x, "model", [(i, (i + 1) % 4) for i in range(4)])
    a = jax.lax.all_to_all(g, "model", 1, 0, tiled=True)  # [16, 4]
    s = jax.lax.psum_scatter(g, "model", scatter_dimension=1, tiled=True)  # [4, 4]
    return y, r * 2.0 + idx.astype(r.dtype) + s, a

  def smap_step(x, w):
    y, r, a = jax.shard_map(body, mesh=mesh, in_specs=(P("data", "model"), P("model", None)),
                            out_specs=(P("data", None), P("data", "model"), P("data", "model")))(x, w)
    return jnp.tanh(y) @ w.T, r, a

  args = (jax.ShapeDtypeStruct((8, 16), jnp.float32), jax.ShapeDtypeStruct((16, 8), jnp.float32))
  return (smap_step, args, (ns("data", "model"), ns("model", None)),
          (ns("data", None), ns("data", "model"), ns("data", "model")), "data=2,model=4")


def checkpoint_custom_vjp():
  """jax.checkpoint (remat) around a layer and a custom_vjp activation (a clipped gradient),
  differentiated."""
  import jax
  import jax.numpy as jnp
  from jax.sharding import NamedSharding, PartitionSpec as P

  mesh = _mesh((4, 2), ("data", "model"))
  ns = lambda *s: NamedSharding(mesh, P(*s))

  @jax.custom_vjp
  def clip_act(x):
    return jnp.tanh(x)

  def fwd(x):
    y = jnp.tanh(x)
    return y, y

  def bwd(y, g):
    return (jnp.clip(g * (1 - y * y), -1.0, 1.0),)

  clip_act.defvjp(fwd, bwd)

  @jax.checkpoint
  def layer(x, w):
    return clip_act(x @ w)

  def ckpt_step(x, w1, w2):
    def loss(ws):
      h = layer(x, ws[0])
      return jnp.mean(layer(h, ws[1]) ** 2)
    return jax.value_and_grad(loss)((w1, w2))

  args = (jax.ShapeDtypeStruct((16, 32), jnp.float32), jax.ShapeDtypeStruct((32, 32), jnp.float32),
          jax.ShapeDtypeStruct((32, 32), jnp.float32))
  wsh = ns(None, "model")
  return (ckpt_step, args, (ns("data", None), wsh, wsh), (ns(), (wsh, wsh)), "data=4,model=2")


def kv_cache_decode():
  """One decoding step with a KV cache (the inference loop's body): dynamic_update_slice of the
  new key/value at a traced position into a head-sharded cache, attention over the cache with a
  position mask, greedy argmax; the cache donated."""
  import jax
  import jax.numpy as jnp
  from jax.sharding import NamedSharding, PartitionSpec as P

  mesh = _mesh((2, 4), ("data", "model"))
  ns = lambda *s: NamedSharding(mesh, P(*s))
  b, L, h, hd, d, vocab = 4, 16, 4, 8, 32, 64

  def decode_step(params, k_cache, v_cache, tok, pos):
    x = params["embed"][tok]  # [b, d]
    q = (x @ params["wq"]).reshape(b, h, hd)
    k = (x @ params["wk"]).reshape(b, 1, h, hd)
    v = (x @ params["wv"]).reshape(b, 1, h, hd)
    k_cache = jax.lax.dynamic_update_slice(k_cache, k, (0, pos, 0, 0))
    v_cache = jax.lax.dynamic_update_slice(v_cache, v, (0, pos, 0, 0))
    s = jnp.einsum("bhd,blhd->bhl", q, k_cache) / jnp.sqrt(hd)
    s = jnp.where(jnp.arange(L)[None, None, :] <= pos, s, -1e9)
    o = jnp.einsum("bhl,blhd->bhd", jax.nn.softmax(s, -1), v_cache).reshape(b, d)
    logits = o @ params["wo"] @ params["embed"].T
    return jnp.argmax(logits, -1).astype(jnp.int32), k_cache, v_cache

  f32 = jnp.float32
  params = {"embed": jax.ShapeDtypeStruct((vocab, d), f32), "wq": jax.ShapeDtypeStruct((d, d), f32),
            "wk": jax.ShapeDtypeStruct((d, d), f32), "wv": jax.ShapeDtypeStruct((d, d), f32),
            "wo": jax.ShapeDtypeStruct((d, d), f32)}
  psh = {"embed": ns(None, "model"), "wq": ns(None, "model"), "wk": ns(None, "model"),
         "wv": ns(None, "model"), "wo": ns("model", None)}
  cache = jax.ShapeDtypeStruct((b, L, h, hd), f32)
  csh = ns("data", None, "model", None)
  args = (params, cache, cache, jax.ShapeDtypeStruct((b,), jnp.int32), jax.ShapeDtypeStruct((), jnp.int32))
  return decode_step, args, (psh, csh, csh, ns("data"), ns()), (ns("data"), csh, csh), "data=2,model=4"


def gelu_quant():
  """Exact GELU (lax.erf), log_softmax with one_hot labels, LayerNorm by hand, and an int8
  weight-quantized matmul (round, clip, convert, int32 accumulation, rescale)."""
  import jax
  import jax.numpy as jnp
  from jax.sharding import NamedSharding, PartitionSpec as P

  mesh = _mesh((4, 2), ("data", "model"))
  ns = lambda *s: NamedSharding(mesh, P(*s))

  def gelu_quant_step(x, w, labels):
    mu = x.mean(-1, keepdims=True)
    var = ((x - mu) ** 2).mean(-1, keepdims=True)
    h = (x - mu) * jax.lax.rsqrt(var + 1e-5)
    h = jax.nn.gelu(h, approximate=False)
    scale = jnp.max(jnp.abs(w), axis=0, keepdims=True) / 127.0
    wq = jnp.clip(jnp.round(w / scale), -127, 127).astype(jnp.int8)
    hq = jnp.clip(jnp.round(h * 16.0), -127, 127).astype(jnp.int8)
    acc = jax.lax.dot(hq, wq, preferred_element_type=jnp.int32)
    logits = acc.astype(jnp.float32) * scale / 16.0
    lp = jax.nn.log_softmax(logits, -1)
    return -jnp.mean(jnp.sum(jax.nn.one_hot(labels, logits.shape[-1]) * lp, -1)), logits

  args = (jax.ShapeDtypeStruct((16, 32), jnp.float32), jax.ShapeDtypeStruct((32, 16), jnp.float32),
          jax.ShapeDtypeStruct((16,), jnp.int32))
  return (gelu_quant_step, args, (ns("data", None), ns(None, "model"), ns("data")),
          (ns(), ns("data", "model")), "data=4,model=2")


def random_ops():
  """jax.random beyond dropout: categorical sampling (gumbel argmax), a permutation (sort by
  random keys), randint, truncated_normal init."""
  import jax
  import jax.numpy as jnp
  from jax.sharding import NamedSharding, PartitionSpec as P

  mesh = _mesh((8,), ("data",))
  ns = lambda *s: NamedSharding(mesh, P(*s))

  def random_step(logits, seed):
    key = jax.random.key(seed)
    k1, k2, k3, k4 = jax.random.split(key, 4)
    sample = jax.random.categorical(k1, logits, axis=-1)
    perm = jax.random.permutation(k2, 16)
    ri = jax.random.randint(k3, (16, 4), 0, 10)
    tn = jax.random.truncated_normal(k4, -2.0, 2.0, (16, 8))
    return sample, logits[perm], ri, tn

  args = (jax.ShapeDtypeStruct((16, 32), jnp.float32), jax.ShapeDtypeStruct((), jnp.uint32))
  return (random_step, args, (ns("data", None), ns()),
          (ns("data"), ns("data", None), ns("data", None), ns("data", None)), "data=8")


def array_manip():
  """jnp.pad, jnp.roll, jnp.flip, jnp.tile, jnp.repeat, reverse cumsum, cummax
  (reduce_window), jnp.triu, jnp.diagonal, jnp.linalg.norm, on sharded operands."""
  import jax
  import jax.numpy as jnp
  from jax.sharding import NamedSharding, PartitionSpec as P

  mesh = _mesh((2, 4), ("data", "model"))
  ns = lambda *s: NamedSharding(mesh, P(*s))

  def manip_step(x, y):
    a = jnp.pad(x, ((1, 1), (2, 0)), mode="reflect")
    b = jnp.roll(x, 3, axis=1) + jnp.flip(x, 0)
    c = jnp.tile(y, (2, 1)) + jnp.repeat(y, 2, axis=0)
    d = jax.lax.cumsum(x, axis=1, reverse=True) + jax.lax.cummax(x, axis=0)
    e = jnp.triu(y @ y.T) + jnp.diag(jnp.diagonal(y @ y.T))
    return a, b, c, d, e, jnp.linalg.norm(x, axis=1)

  args = (jax.ShapeDtypeStruct((8, 16), jnp.float32), jax.ShapeDtypeStruct((8, 8), jnp.float32))
  return (manip_step, args, (ns("data", "model"), ns("data", None)),
          (ns(), ns("data", "model"), ns(), ns("data", "model"), ns(), ns("data")), "data=2,model=4")


def adafactor_step():
  """optax.adafactor (factored second moments: row/column statistics, update clipping) on a
  two-layer MLP whose weights are sharded on both axes."""
  import jax
  import jax.numpy as jnp
  import optax
  from jax.sharding import NamedSharding, PartitionSpec as P

  mesh = _mesh((2, 4), ("data", "model"))
  ns = lambda *s: NamedSharding(mesh, P(*s))
  params = {"w1": jnp.zeros((32, 64)), "w2": jnp.zeros((64, 8)), "b": jnp.zeros((64,))}
  tx = optax.adafactor(1e-2)
  opt_state = jax.eval_shape(tx.init, params)
  psh = {"w1": ns("data", "model"), "w2": ns("model", None), "b": ns("model")}
  osh = jax.tree.map(lambda _: ns(), opt_state)

  def adafactor_train(params, opt_state, x, y):
    def loss(p):
      h = jax.nn.relu(x @ p["w1"] + p["b"])
      return jnp.mean((h @ p["w2"] - y) ** 2)
    l, g = jax.value_and_grad(loss)(params)
    u, opt_state = tx.update(g, opt_state, params)
    return optax.apply_updates(params, u), opt_state, l

  args = (_abstract(params), opt_state, jax.ShapeDtypeStruct((16, 32), jnp.float32),
          jax.ShapeDtypeStruct((16, 8), jnp.float32))
  return (adafactor_train, args, (psh, osh, ns("data", None), ns("data", None)), (psh, osh, ns()),
          "data=2,model=4")


def scan_vmap():
  """lax.scan with stacked per-step outputs (forward and reverse), jax.vmap of a per-example
  matmul+loss with a sharding constraint leaving a dimension UNCONSTRAINED."""
  import jax
  import jax.numpy as jnp
  from jax.sharding import NamedSharding, PartitionSpec as P

  mesh = _mesh((4, 2), ("data", "model"))
  ns = lambda *s: NamedSharding(mesh, P(*s))

  def scan_step(xs, w):
    def cell(h, x):
      h = jnp.tanh(h @ w + x)
      return h, h.sum(-1)
    h, ys = jax.lax.scan(cell, jnp.zeros((xs.shape[1], w.shape[0])), xs)
    _, rs = jax.lax.scan(cell, h, xs, reverse=True)
    per = jax.vmap(lambda x: jnp.sum(jnp.tanh(x @ w) ** 2))(xs.reshape(-1, xs.shape[-1]))
    z = jax.lax.with_sharding_constraint(xs * 2.0, ns(None, "data", P.UNCONSTRAINED))
    return ys, rs, per, z

  args = (jax.ShapeDtypeStruct((6, 8, 16), jnp.float32), jax.ShapeDtypeStruct((16, 16), jnp.float32))
  return (scan_step, args, (ns(None, "data", None), ns(None, "model")),
          (ns(), ns(), ns(), ns(None, "data", None)), "data=4,model=2")


def partial_manual():
  """jax.shard_map manual over 'model' only ('data' stays automatic): a Megatron MLP block
  written by hand, psum over 'model', all_gather and all_to_all over 'model'; outside it,
  data-parallel."""
  import jax
  import jax.numpy as jnp
  from jax.sharding import NamedSharding, PartitionSpec as P

  mesh = _mesh((2, 4), ("data", "model"))
  ns = lambda *s: NamedSharding(mesh, P(*s))

  def mlp(x, w1, w2):  # x [b, d] (data auto), w1 [d, f/4], w2 [f/4, d]
    y = jax.lax.psum(jax.nn.relu(x @ w1) @ w2, "model")
    a = jax.lax.all_to_all(jnp.tanh(x @ w1), "model", 1, 1, tiled=True)  # [b, f/4]
    return y, jax.lax.all_gather(w1, "model", axis=1, tiled=True).sum(0), a  # [f] per device

  def pm_step(x, w1, w2):
    y, g, a = jax.shard_map(mlp, mesh=mesh, in_specs=(P(), P(None, "model"), P("model", None)),
                         out_specs=(P(), P("model"), P(None, "model")), axis_names={"model"})(x, w1, w2)
    return jnp.tanh(y).sum(), y * 2.0, g, a

  args = (jax.ShapeDtypeStruct((8, 16), jnp.float32), jax.ShapeDtypeStruct((16, 32), jnp.float32),
          jax.ShapeDtypeStruct((32, 16), jnp.float32))
  return (pm_step, args, (ns("data", None), ns(None, "model"), ns("model", None)),
          (ns(), ns("data", None), ns("model"), ns("data", "model")), "data=2,model=4")



def moe_ragged():
  """Dropless MoE (MegaBlocks style): top-2 routing, tokens sorted by expert (argsort), grouped
  matmul with jax.lax.ragged_dot over the group sizes, unsorted back, take_along_axis for the
  gate weights; gradients."""
  import jax
  import jax.numpy as jnp
  from jax.sharding import NamedSharding, PartitionSpec as P

  mesh = _mesh((8,), ("data",))
  ns = lambda *s: NamedSharding(mesh, P(*s))
  t, d, f, e, k = 32, 16, 32, 4, 2

  def moe_step(x, router, w_in, w_out):
    def loss(params):
      router, w_in, w_out = params
      logits = x @ router  # [t, e]
      gates, experts = jax.lax.top_k(jax.nn.softmax(logits, -1), k)  # [t, k]
      flat = experts.reshape(-1)
      order = jnp.argsort(flat)
      xs = jnp.repeat(x, k, axis=0)[order]  # tokens grouped by expert
      sizes = jnp.bincount(flat, length=e).astype(jnp.int32)
      h = jax.nn.gelu(jax.lax.ragged_dot(xs, w_in, sizes))
      y = jax.lax.ragged_dot(h, w_out, sizes)
      y = y[jnp.argsort(order)].reshape(t, k, d)
      w = jnp.take_along_axis(gates, jnp.argsort(gates, -1), -1)
      return jnp.mean((jnp.einsum("tkd,tk->td", y, w) - x) ** 2)
    return jax.value_and_grad(loss)((router, w_in, w_out))

  args = (jax.ShapeDtypeStruct((t, d), jnp.float32), jax.ShapeDtypeStruct((d, e), jnp.float32),
          jax.ShapeDtypeStruct((e, d, f), jnp.float32), jax.ShapeDtypeStruct((e, f, d), jnp.float32))
  return (moe_step, args, (ns("data", None), ns(), ns(), ns()), (ns(), (ns(), ns(), ns())), "data=8")


def vmapped_indexing():
  """Batched indexing as vmap writes it (gather/scatter with batching dims): per-example
  x[i, idx[i]], per-example .at[idx].set / .add, jnp.take_along_axis, jnp.unique(size=)."""
  import jax
  import jax.numpy as jnp
  from jax.sharding import NamedSharding, PartitionSpec as P

  mesh = _mesh((4, 2), ("data", "model"))
  ns = lambda *s: NamedSharding(mesh, P(*s))

  def index_step(x, idx, upd):
    picked = jax.vmap(lambda r, i: r[i])(x, idx)  # [b, k, d]
    written = jax.vmap(lambda r, i, u: r.at[i].set(u))(x, idx, upd)
    added = jax.vmap(lambda r, i, u: r.at[i].add(u))(x, idx, upd)
    along = jnp.take_along_axis(x, idx[..., None], axis=1)
    uniq = jnp.unique(idx[0], size=4, fill_value=-1)
    return picked, written, added, along, uniq

  args = (jax.ShapeDtypeStruct((8, 16, 4), jnp.float32), jax.ShapeDtypeStruct((8, 3), jnp.int32),
          jax.ShapeDtypeStruct((8, 3, 4), jnp.float32))
  d3 = ns("data", None, None)
  return (index_step, args, (d3, ns("data", None), d3), (d3, d3, d3, d3, ns()), "data=4,model=2")


def collectives_2d():
  """jax.shard_map over both axes with pmean/pmax over both, psum_scatter (not tiled),
  axis_index of the 2-D position, ppermute along 'data'."""
  import jax
  import jax.numpy as jnp
  from jax.sharding import NamedSharding, PartitionSpec as P

  mesh = _mesh((2, 4), ("data", "model"))
  ns = lambda *s: NamedSharding(mesh, P(*s))

  def body(x):  # [4, 4]
    m = jax.lax.pmean(x, ("data", "model"))
    mx = jax.lax.pmax(x, ("data", "model"))
    rs = jax.lax.psum_scatter(x, "model", scatter_dimension=0, tiled=False)  # [4]
    pos = jax.lax.axis_index(("data", "model")).astype(x.dtype)
    sh = jax.lax.ppermute(x, "data", [(0, 1), (1, 0)])
    return m + mx, rs[None, :] + pos, sh

  def coll2d_step(x):
    return jax.shard_map(body, mesh=mesh, in_specs=P("data", "model"),
                         out_specs=(P(), P(("data", "model")), P("data", "model")))(x)

  args = (jax.ShapeDtypeStruct((8, 16), jnp.float32),)
  return (coll2d_step, args, (ns("data", "model"),),
          (ns(), ns(("data", "model")), ns("data", "model")), "data=2,model=4")


def linalg_ops():
  """jnp.linalg as second-order optimizers (Shampoo) use it: cholesky, triangular solve, eigh
  (LAPACK custom calls on CPU: spmdc refuses them, naming the target)."""
  import jax
  import jax.numpy as jnp
  from jax.sharding import NamedSharding, PartitionSpec as P

  mesh = _mesh((8,), ("data",))
  ns = lambda *s: NamedSharding(mesh, P(*s))

  def linalg_step(g):
    s = g.T @ g + jnp.eye(g.shape[1])
    c = jnp.linalg.cholesky(s)
    sol = jax.scipy.linalg.solve_triangular(c, g.T, lower=True)
    w, v = jnp.linalg.eigh(s)
    return sol, (v * jnp.power(w, -0.25)) @ v.T

  args = (jax.ShapeDtypeStruct((16, 8), jnp.float32),)
  return linalg_step, args, (ns("data", None),), (ns(), ns()), "data=8"


def assoc_scan():
  """jax.lax.associative_scan (a linear recurrence, as state-space models write it: strided
  slices, pads, interleaving concatenates) over a sharded batch."""
  import jax
  import jax.numpy as jnp
  from jax.sharding import NamedSharding, PartitionSpec as P

  mesh = _mesh((8,), ("data",))
  ns = lambda *s: NamedSharding(mesh, P(*s))

  def ssm_step(a, b):
    def combine(l, r):
      return r[0] * l[0], r[0] * l[1] + r[1]
    _, h = jax.lax.associative_scan(combine, (a, b), axis=1)
    return h, jax.lax.associative_scan(jnp.maximum, b, axis=1, reverse=True)

  s = jax.ShapeDtypeStruct((8, 16, 4), jnp.float32)
  d = ns("data", None, None)
  return ssm_step, (s, s), (d, d), (d, d), "data=8"



def fsdp_3d():
  """An MLP training step on a 3-axis mesh (data, fsdp, tensor) built from a permuted device
  order (jax.sharding.Mesh over an explicit device array, as multi-host code writes it), FSDP
  weights sharded over a compound axis P(('data', 'fsdp'), 'tensor'), SGD."""
  import jax
  import jax.numpy as jnp
  import numpy as np
  from jax.sharding import Mesh, NamedSharding, PartitionSpec as P

  devs = np.array(jax.devices())[[0, 2, 4, 6, 1, 3, 5, 7]].reshape(2, 2, 2)
  mesh = Mesh(devs, ("data", "fsdp", "tensor"))
  ns = lambda *s: NamedSharding(mesh, P(*s))

  def fsdp_step(w1, w2, x, y):
    def loss(ws):
      h = jax.nn.gelu(x @ ws[0])
      return jnp.mean((h @ ws[1] - y) ** 2)
    l, (g1, g2) = jax.value_and_grad(loss)((w1, w2))
    return w1 - 0.1 * g1, w2 - 0.1 * g2, l

  args = (jax.ShapeDtypeStruct((16, 32), jnp.float32), jax.ShapeDtypeStruct((32, 16), jnp.float32),
          jax.ShapeDtypeStruct((16, 16), jnp.float32), jax.ShapeDtypeStruct((16, 16), jnp.float32))
  w1s, w2s, ds = ns(("data", "fsdp"), "tensor"), ns("tensor", ("data", "fsdp")), ns(("data", "fsdp"), None)
  return fsdp_step, args, (w1s, w2s, ds, ds), (w1s, w2s, ns()), "data=2,fsdp=2,tensor=2"


def fp8_matmul():
  """FP8 matmuls as fp8 training recipes write them: per-tensor scales, float8_e4m3fn inputs,
  dot with f32 accumulation (preferred_element_type), float8_e5m2 gradient cast, bf16 output."""
  import jax
  import jax.numpy as jnp
  from jax.sharding import NamedSharding, PartitionSpec as P

  mesh = _mesh((4, 2), ("data", "model"))
  ns = lambda *s: NamedSharding(mesh, P(*s))
  e4, e5 = jnp.float8_e4m3fn, jnp.float8_e5m2

  def fp8_step(x, w):
    sx = jnp.max(jnp.abs(x)) / 448.0
    sw = jnp.max(jnp.abs(w)) / 448.0
    xq = (x / sx).astype(e4)
    wq = (w / sw).astype(e4)
    y = jax.lax.dot(xq, wq, preferred_element_type=jnp.float32) * sx * sw
    gq = (y / (jnp.max(jnp.abs(y)) / 57344.0)).astype(e5)
    return y.astype(jnp.bfloat16), gq.astype(jnp.float32)

  args = (jax.ShapeDtypeStruct((16, 32), jnp.float32), jax.ShapeDtypeStruct((32, 16), jnp.float32))
  return (fp8_step, args, (ns("data", None), ns(None, "model")), (ns("data", "model"), ns("data", "model")),
          "data=4,model=2")



def grad_accum():
  """Gradient accumulation: lax.fori_loop over microbatches cut with dynamic_slice from the
  data-sharded batch, a lax.cond inside a lax.scan (skip a step on a non-finite loss)."""
  import jax
  import jax.numpy as jnp
  from jax.sharding import NamedSharding, PartitionSpec as P

  mesh = _mesh((4, 2), ("data", "model"))
  ns = lambda *s: NamedSharding(mesh, P(*s))
  micro, mb = 4, 8

  def accum_step(w, x, y):
    def loss(w, xb, yb):
      return jnp.mean((jnp.tanh(xb @ w) - yb) ** 2)

    def body(i, carry):
      g_acc, l_acc = carry
      xb = jax.lax.dynamic_slice_in_dim(x, i * mb, mb, axis=0)
      yb = jax.lax.dynamic_slice_in_dim(y, i * mb, mb, axis=0)
      l, g = jax.value_and_grad(loss)(w, xb, yb)
      return g_acc + g, l_acc + l
    g, l = jax.lax.fori_loop(0, micro, body, (jnp.zeros_like(w), 0.0))

    def sgd(w, lr):
      nw = w - lr * g / micro
      ok = jnp.isfinite(jnp.sum(nw))
      return jax.lax.cond(ok, lambda: nw, lambda: w), ok
    w, oks = jax.lax.scan(sgd, w, jnp.array([0.1, 0.05]))
    return w, l / micro, oks

  args = (jax.ShapeDtypeStruct((16, 16), jnp.float32), jax.ShapeDtypeStruct((micro * mb, 16), jnp.float32),
          jax.ShapeDtypeStruct((micro * mb, 16), jnp.float32))
  return (accum_step, args, (ns(None, "model"), ns("data", None), ns("data", None)),
          (ns(None, "model"), ns(), ns()), "data=4,model=2")


def misc_ops():
  """jnp.take with mode='clip' and mode='fill', jnp.searchsorted, jax.image.resize (bilinear),
  1-D and 3-D convolutions, jnp.histogram-style bincount."""
  import jax
  import jax.numpy as jnp
  from jax.sharding import NamedSharding, PartitionSpec as P

  mesh = _mesh((8,), ("data",))
  ns = lambda *s: NamedSharding(mesh, P(*s))

  def misc_step(x, idx, img, vol, k1, k3):
    a = jnp.take(x, idx, axis=1, mode="clip")
    b = jnp.take(x, idx, axis=1, mode="fill", fill_value=-1.0)
    c = jnp.searchsorted(jnp.sort(x[0]), x[:, :4])
    r = jax.image.resize(img, (img.shape[0], 12, 12, img.shape[3]), "bilinear")
    c1 = jax.lax.conv_general_dilated(x[:, None, :], k1, (1,), "SAME", dimension_numbers=("NCH", "OIH", "NCH"))
    c3 = jax.lax.conv_general_dilated(vol, k3, (1, 1, 1), "VALID",
                                      dimension_numbers=("NDHWC", "DHWIO", "NDHWC"))
    h = jnp.bincount(jnp.clip(idx, 0, 7), length=8)
    return a, b, c, r, c1, c3, h

  args = (jax.ShapeDtypeStruct((16, 32), jnp.float32), jax.ShapeDtypeStruct((6,), jnp.int32),
          jax.ShapeDtypeStruct((8, 6, 6, 3), jnp.float32), jax.ShapeDtypeStruct((8, 4, 4, 4, 2), jnp.float32),
          jax.ShapeDtypeStruct((4, 1, 3), jnp.float32), jax.ShapeDtypeStruct((2, 2, 2, 2, 3), jnp.float32))
  d2, d5 = ns("data", None), ns("data", None, None, None, None)
  return (misc_step, args, (d2, ns(), ns("data", None, None, None), d5, ns(), ns()),
          (d2, d2, d2, ns("data", None, None, None), ns("data", None, None), d5, ns()), "data=8")


PROGRAMS = {f.__name__: f for f in (llama_train, mobilenet_sgd, embed_gather_scatter,
                                    control_flow, sort_topk, dropout_rng, dpa_attention,
                                    einsum_batch, shard_map_collectives, checkpoint_custom_vjp,
                                    kv_cache_decode, gelu_quant, random_ops, array_manip,
                                    adafactor_step, scan_vmap, partial_manual, moe_ragged,
                                    vmapped_indexing, collectives_2d, linalg_ops, assoc_scan, fsdp_3d,
                                    fp8_matmul, grad_accum, misc_ops)}


def reference_run(compiled, args, in_sh, d, kept=None):
  """Runs `compiled` on generate.py's reference inputs (also Adafactor's factored second moments,
  'v_row' and 'v_col', not negative); writes d/input_K.npy and d/output_K.npy."""
  import jax
  import numpy as np
  import generate
  values, treedef = generate.reference_inputs(args, ("nu", "var", "v_row", "v_col"))
  os.makedirs(d, exist_ok=True)
  for f in os.listdir(d):
    os.remove(os.path.join(d, f))
  for k, i in enumerate(sorted(kept) if kept is not None else range(len(values))):
    np.save(os.path.join(d, f"input_{k}.npy"), values[i])
  placed = jax.tree.map(jax.device_put, jax.tree.unflatten(treedef, values), in_sh)
  for k, v in enumerate(jax.tree.leaves(compiled(*placed))):
    np.save(os.path.join(d, f"output_{k}.npy"), np.asarray(v))


def _load(path):
  """A .npy as float64; bf16 (numpy writes it as 2-byte void) read through ml_dtypes."""
  import ml_dtypes
  import numpy as np
  a = np.load(path)
  if a.dtype.kind == "V" and a.dtype.itemsize == 2:
    a = a.view(ml_dtypes.bfloat16)
  return a.astype(np.float64)


def compare(got, want, count, rtol):
  """'' when the count outputs match, else what differs (each element within rtol of JAX's,
  relative to it plus its output's largest magnitude, as run_corpus.py compares)."""
  import numpy as np
  for k in range(count):
    g, w = (_load(os.path.join(d, f"output_{k}.npy")) for d in (got, want))
    if g.shape != w.shape:
      return f"output_{k}: shape {g.shape}, JAX's {w.shape}"
    scale = np.max(np.abs(w[np.isfinite(w)]), initial=0.0)
    bad = ~((np.abs(g - w) <= rtol * (np.abs(w) + scale)) | (np.isnan(g) & np.isnan(w)) | (g == w))
    if bad.any():
      i = int(np.flatnonzero(bad)[0])
      return f"output_{k}[{i}] (flat): {g.flat[i]}, JAX's {w.flat[i]} ({int(bad.sum())} of {w.size} differ)"
  return ""


def generate(out, only, gspmd):
  """Lowers every program in this process (XLA_FLAGS must already give 8 host devices)."""
  import jax
  jax.config.update("jax_use_shardy_partitioner", not gspmd)
  assert len(jax.devices()) == 8, jax.devices()
  path = os.path.join(out, "meshes.txt")
  meshes = dict(l.split() for l in open(path) if l.strip()) if os.path.exists(path) else {}
  for name in only:
    try:
      fn, args, in_sh, out_sh, mesh = PROGRAMS[name]()
      lowered = jax.jit(fn, in_shardings=in_sh, out_shardings=out_sh).lower(*args)
      with open(os.path.join(out, name + ".hlo"), "w") as f:
        f.write(lowered.as_text(dialect="hlo"))
      with open(os.path.join(out, name + ".mlir"), "w") as f:
        f.write(lowered.as_text())
      # jax.export's serialized module (constants hoisted out of regions, composites, locations
      # as #loc aliases), as tools that store or exchange JAX models hold it.
      from jax import export
      with open(os.path.join(out, name + ".export.mlir"), "w") as f:
        f.write(export.export(jax.jit(fn, in_shardings=in_sh, out_shardings=out_sh))(*args).mlir_module())
      # jit drops arguments the function does not use: the module's parameters are the kept ones.
      kept = lowered._lowering.compile_args.get("kept_var_idx")
      reference_run(lowered.compile(), args, in_sh, os.path.join(out, name + ".ref"), kept)
      meshes[name] = mesh
      print(f"sweep.py: lowered {name}", flush=True)
    except Exception as e:  # a program JAX itself refuses is reported, not fatal
      print(f"sweep.py: {name}: JAX failed: {type(e).__name__}: {e}", flush=True)
  with open(path, "w") as f:
    for k, v in meshes.items():
      f.write(f"{k} {v}\n")


def main():
  ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
  ap.add_argument("out")
  ap.add_argument("--spmdc", default=os.path.join(REPO, "build", "spmdc"))
  ap.add_argument("--only", default=",".join(PROGRAMS))
  ap.add_argument("--no-generate", action="store_true", help="reuse the dumps already in OUT")
  ap.add_argument("--timeout", type=float, default=300)
  ap.add_argument("--gspmd", action="store_true",
                  help="lower with JAX's GSPMD front end (jax_use_shardy_partitioner=False) instead of Shardy")
  ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
  a = ap.parse_args()
  only = [p for p in a.only.split(",") if p]
  for p in only:
    if p not in PROGRAMS:
      sys.exit(f"sweep.py: unknown program '{p}' (known: {', '.join(PROGRAMS)})")
  os.makedirs(a.out, exist_ok=True)
  if a.worker:
    generate(a.out, only, a.gspmd)
    return
  if not a.no_generate:
    # One process per program: JAX (XLA) aborting on one, as it does compiling partial_manual
    # with the GSPMD front, loses only that one.
    for name in only:
      for ext in EXTS:  # a program JAX fails on leaves no stale dump behind
        if os.path.exists(os.path.join(a.out, f"{name}.{ext}")):
          os.remove(os.path.join(a.out, f"{name}.{ext}"))
      dump = tempfile.mkdtemp(prefix="sweep-xla-dump-")
      env = dict(os.environ, JAX_PLATFORMS="cpu",
                 XLA_FLAGS=f"--xla_force_host_platform_device_count=8 --xla_dump_to={dump} "
                           "--xla_dump_hlo_as_text --xla_dump_hlo_module_re=^jit_")
      p = subprocess.run([sys.executable, os.path.abspath(__file__), a.out, "--worker", "--only", name]
                         + (["--gspmd"] if a.gspmd else []), env=env, capture_output=True, text=True)
      # XLA's own dump of the compiled jit before its passes: the largest jit_ module (the
      # others are small eager ops JAX compiles on the way).
      found = [f for f in glob.glob(os.path.join(dump, "module_*.before_optimizations.txt"))
               if "jit_" in f and not any(t in f for t in ("jit_convert_element_type", "jit_broadcast_in_dim",
                                                           "jit__threefry", "jit_stage"))]
      if p.returncode == 0 and found:
        shutil.copy(max(found, key=os.path.getsize), os.path.join(a.out, name + ".xla.hlo"))
      shutil.rmtree(dump, ignore_errors=True)
      print(f"sweep.py: lowered {name}" if p.returncode == 0 and f"lowered {name}" in p.stdout else
            f"sweep.py: {name}: JAX failed (exit {p.returncode}): " +
            ((p.stdout + p.stderr).strip().splitlines() or [""])[-1], flush=True)
  meshes = dict(l.split() for l in open(os.path.join(a.out, "meshes.txt")) if l.strip())

  def run(argv):
    try:
      p = subprocess.run([a.spmdc] + argv, capture_output=True, text=True, timeout=a.timeout)
    except subprocess.TimeoutExpired:
      return f"HANG >{a.timeout:.0f}s"
    if p.returncode == 0:
      return "ok"
    # The diagnostic's first line (file:line:col: error: ...), not the source excerpt after it.
    err = [l for l in p.stderr.splitlines() if "error" in l or "spmdc" in l] or p.stderr.strip().splitlines()
    return f"exit {p.returncode}: {err[0].strip() if err else ''}"

  cols = ("check", "propagate", "compile", "verify", "auto", "reference")
  failures = []
  print(f"{'program':<35}" + "".join(f"{c:<10}" for c in cols))
  for name in only:
    if name not in meshes or not os.path.exists(os.path.join(a.out, name + ".hlo")):
      print(f"{name:<35}(not lowered)")
      continue
    for ext in EXTS:
      f = os.path.join(a.out, f"{name}.{ext}")
      if not os.path.exists(f):
        continue
      res = {
          "check": run(["check", f]),
          "propagate": run(["propagate", f, "-o", os.devnull]),
          "compile": run(["compile", f, "--num-partitions", "8", "-o", os.devnull]),
          "verify": run(["verify", f, "--num-partitions", "8", "--propagate", "--seed", "1"]),
      }
      if ext.endswith("hlo"):
        res["auto"] = run(["auto", f, "--mesh", meshes[name], "-o", os.devnull])
      ref = os.path.join(a.out, name + ".ref")
      n_in = sum(x.startswith("input_") for x in os.listdir(ref))
      n_out = sum(x.startswith("output_") for x in os.listdir(ref))
      got = os.path.join(a.out, f"{name}.{ext}.out")
      os.makedirs(got, exist_ok=True)
      r = run(["run", f, "--num-partitions", "8", "--outputs", got, "--inputs",
               ",".join(os.path.join(ref, f"input_{k}.npy") for k in range(n_in))])
      if r == "ok":
        diff = compare(got, ref, n_out, 5e-3 if "bf16[" in open(os.path.join(a.out, name + ".hlo")).read() else 1e-3)
        r = f"MISMATCH: {diff}" if diff else r
      res["reference"] = r
      row = f"{name + '.' + ext:<35}"
      for c in cols:
        r = res.get(c, "-")
        row += f"{r if r in ('ok', '-') else r.split(':')[0].split(' >')[0]:<10}"
        if r not in ("ok", "-"):
          failures.append(f"{name}.{ext} {c}: {r}")
      print(row, flush=True)
  print()
  for fl in failures:
    print(fl)
  sys.exit(1 if failures else 0)


if __name__ == "__main__":
  main()
