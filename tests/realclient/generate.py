#!/usr/bin/env python3
"""Regenerates the corpus of real models exported by JAX (tests/realclient/corpus/).

Each model is written the way its users write it (Flax linen, Flax nnx, Equinox, optax,
jax.shard_map), in a small configuration, and jitted on a mesh of 8 host CPU devices with
NamedSharding in_shardings/out_shardings. For each model and each of JAX's two partitioner
front ends (Shardy, JAX's default, and GSPMD via jax_use_shardy_partitioner=False) it writes:

  corpus/<model>/<front>.hlo         jax.jit(f).lower(*args).as_text(dialect="hlo")
  corpus/<model>/<front>.mlir        the StableHLO text, lowered.as_text() (GSPMD front: only
                                     for the models in GSPMD_MLIR, to keep the corpus small)
  corpus/<model>/<front>.xla.hlo     XLA's own dump of the same jit before optimizations
                                     (--xla_dump_to, *.before_optimizations.txt: stack-frame
                                     tables, stack_frame_id, metadata)
  corpus/<model>/reference/          for the models in REFERENCE: the compiled jit run by JAX
                                     (XLA's CPU SPMD partitioner, 8 host devices) on fixed-seed
                                     inputs: input_K.npy per entry parameter, output_K.npy per
                                     result leaf (the ground truth for spmdc run)

Arguments are abstract (jax.ShapeDtypeStruct) and parameter shapes come from the models' own
init functions, so nothing depends on random values; paths under the repository are written
relative to it. The output is the same on every run with the pinned versions
(python/requirements.lock).

usage: .venv/bin/python tests/realclient/generate.py [--out DIR] [--only MODEL,...] [--reference-all]
"""

import argparse
import contextlib
import glob
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
FRONTS = ("shardy", "gspmd")


# ----------------------------------------------------------------------------------------------
# The models. Each builder returns (fn, args, in_shardings, out_shardings, donate_argnums) and,
# for a model written with Explicit mesh axes, the mesh to lower under (jax.set_mesh).
# Imports are inside the worker (after XLA_FLAGS is set).


def _abstract(tree):
  import jax
  return jax.tree.map(lambda a: jax.ShapeDtypeStruct(a.shape, a.dtype), tree)


def gpt2_adamw():
  """GPT-2-shaped decoder (Flax linen), next-token loss, optax AdamW; the layers are one
  rematerialized block scanned over stacked parameters (nn.scan + nn.remat, as large Flax
  models do: a while loop, optimization barriers); Megatron-style tensor parallelism on 'model'
  (column-parallel qkv/fc, row-parallel projections, vocab-sharded tied embedding) and data
  parallelism on 'data'. Params and optimizer state donated."""
  import jax
  import jax.numpy as jnp
  import flax.linen as nn
  import optax
  from jax.sharding import NamedSharding, PartitionSpec as P

  vocab, d, heads, layers, seq, batch = 64, 32, 4, 2, 16, 8

  class Block(nn.Module):
    @nn.compact
    def __call__(self, x, _):
      b, t, _ = x.shape
      h = nn.LayerNorm(name="ln_1")(x)
      qkv = nn.Dense(3 * d, name="c_attn")(h)
      q, k, v = jnp.split(qkv, 3, axis=-1)
      q, k, v = (a.reshape(b, t, heads, d // heads) for a in (q, k, v))
      att = jnp.einsum("bthd,bshd->bhts", q, k) / jnp.sqrt(d // heads).astype(x.dtype)
      mask = jnp.tril(jnp.ones((t, t), bool))
      att = jnp.where(mask, att, jnp.finfo(att.dtype).min)
      att = jax.nn.softmax(att, axis=-1)
      y = jnp.einsum("bhts,bshd->bthd", att, v).reshape(b, t, d)
      x = x + nn.Dense(d, name="c_proj")(y)
      h = nn.LayerNorm(name="ln_2")(x)
      h = nn.gelu(nn.Dense(4 * d, name="c_fc")(h))
      return x + nn.Dense(d, name="mlp_proj")(h), None

  class GPT2(nn.Module):
    @nn.compact
    def __call__(self, tokens):
      wte = nn.Embed(vocab, d, name="wte")
      wpe = self.param("wpe", nn.initializers.normal(0.02), (seq, d))
      x = wte(tokens) + wpe[None, : tokens.shape[1]]
      blocks = nn.scan(nn.remat(Block), variable_axes={"params": 0}, split_rngs={"params": True},
                       length=layers)
      x, _ = blocks(name="h")(x, None)
      x = nn.LayerNorm(name="ln_f")(x)
      return wte.attend(x)

  model = GPT2()
  tx = optax.adamw(learning_rate=3e-4, b1=0.9, b2=0.95, weight_decay=0.1)
  params = jax.eval_shape(lambda: model.init(jax.random.key(0), jnp.zeros((batch, seq), jnp.int32)))
  opt_state = jax.eval_shape(tx.init, params)

  mesh = jax.make_mesh((2, 4), ("data", "model"), axis_types=(jax.sharding.AxisType.Auto,) * 2)

  def spec(path, leaf):
    name = "/".join(str(getattr(k, "key", k)) for k in path)
    layer = (None,) if "/h/" in name else ()  # scanned parameters: a leading layer dim
    if name.endswith("wte/embedding"):
      return P("model", None)
    if any(name.endswith(f"{m}/kernel") for m in ("c_attn", "c_fc")):
      return P(*layer, None, "model")
    if any(name.endswith(f"{m}/bias") for m in ("c_attn", "c_fc")):
      return P(*layer, "model")
    if any(name.endswith(f"{m}/kernel") for m in ("c_proj", "mlp_proj")):
      return P(*layer, "model", None)
    return P()

  param_specs = jax.tree_util.tree_map_with_path(spec, params)
  param_sh = jax.tree.map(lambda s: NamedSharding(mesh, s), param_specs)
  opt_sh = optax.tree_map_params(tx, lambda _, s: s, opt_state, param_sh,
                                 transform_non_params=lambda _: NamedSharding(mesh, P()))
  batch_sh = NamedSharding(mesh, P("data", None))
  scalar_sh = NamedSharding(mesh, P())

  def gpt2_train_step(params, opt_state, tokens):
    def loss_fn(p):
      logits = model.apply(p, tokens[:, :-1])
      return optax.softmax_cross_entropy_with_integer_labels(logits, tokens[:, 1:]).mean()
    loss, grads = jax.value_and_grad(loss_fn)(params)
    updates, opt_state = tx.update(grads, opt_state, params)
    return optax.apply_updates(params, updates), opt_state, loss

  tokens = jax.ShapeDtypeStruct((batch, seq + 1), jnp.int32)
  return (gpt2_train_step, (params, opt_state, tokens), (param_sh, opt_sh, batch_sh),
          (param_sh, opt_sh, scalar_sh), (0, 1))


def vit_grad():
  """ViT (Flax nnx): conv patch embedding, class token, a pre-norm encoder block, classifier;
  forward + backward (loss and gradients). Parameters carry their partitioning as users write
  it (nnx.with_partitioning); batch on 'data', heads and MLP on 'model'."""
  import jax
  import jax.numpy as jnp
  from flax import nnx
  import optax
  from jax.sharding import NamedSharding, PartitionSpec as P

  img, patch, ch, d, heads, layers, classes, batch = 16, 4, 3, 32, 4, 1, 10, 8
  init = nnx.initializers.lecun_normal()

  def dense(i, o, spec, rngs):
    return nnx.Linear(i, o, kernel_init=nnx.with_partitioning(init, spec),
                      bias_init=nnx.with_partitioning(nnx.initializers.zeros_init(), spec[1:]),
                      rngs=rngs)

  class Block(nnx.Module):
    def __init__(self, rngs):
      self.ln1 = nnx.LayerNorm(d, rngs=rngs)
      self.qkv = dense(d, 3 * d, (None, "model"), rngs)
      self.proj = dense(d, d, ("model", None), rngs)
      self.ln2 = nnx.LayerNorm(d, rngs=rngs)
      self.fc1 = dense(d, 2 * d, (None, "model"), rngs)
      self.fc2 = dense(2 * d, d, ("model", None), rngs)

    def __call__(self, x):
      b, t, _ = x.shape
      q, k, v = jnp.split(self.qkv(self.ln1(x)), 3, axis=-1)
      q, k, v = (a.reshape(b, t, heads, d // heads) for a in (q, k, v))
      att = jax.nn.softmax(jnp.einsum("bqhd,bkhd->bhqk", q, k) * (d // heads) ** -0.5, axis=-1)
      x = x + self.proj(jnp.einsum("bhqk,bkhd->bqhd", att, v).reshape(b, t, d))
      return x + self.fc2(nnx.gelu(self.fc1(self.ln2(x))))

  class ViT(nnx.Module):
    def __init__(self, rngs):
      self.patch = nnx.Conv(ch, d, kernel_size=(patch, patch), strides=(patch, patch), rngs=rngs)
      self.cls = nnx.Param(jnp.zeros((1, 1, d)))
      self.pos = nnx.Param(jax.random.normal(rngs.params(), (1, (img // patch) ** 2 + 1, d)) * 0.02)
      self.blocks = nnx.List([Block(rngs) for _ in range(layers)])
      self.ln = nnx.LayerNorm(d, rngs=rngs)
      self.head = nnx.Linear(d, classes, rngs=rngs)

    def __call__(self, x):
      x = self.patch(x)
      b = x.shape[0]
      x = x.reshape(b, -1, d)
      x = jnp.concatenate([jnp.broadcast_to(self.cls[...], (b, 1, d)), x], axis=1) + self.pos[...]
      for blk in self.blocks:
        x = blk(x)
      return self.head(self.ln(x)[:, 0])

  mesh = jax.make_mesh((4, 2), ("data", "model"), axis_types=(jax.sharding.AxisType.Auto,) * 2)
  with jax.set_mesh(mesh):  # nnx.with_partitioning needs the mesh to annotate the variables
    abstract = nnx.eval_shape(lambda: ViT(nnx.Rngs(0)))
  graphdef, state = nnx.split(abstract)
  state_sh = nnx.get_named_sharding(state, mesh)
  data_sh = NamedSharding(mesh, P("data"))

  def vit_loss_and_grad(state, images, labels):
    def loss_fn(state):
      logits = nnx.merge(graphdef, state)(images)
      return optax.softmax_cross_entropy_with_integer_labels(logits, labels).mean()
    return jax.value_and_grad(loss_fn)(state)

  args = (_abstract(state), jax.ShapeDtypeStruct((batch, img, img, ch), jnp.float32),
          jax.ShapeDtypeStruct((batch,), jnp.int32))
  return (vit_loss_and_grad, args, (state_sh, data_sh, data_sh),
          (NamedSharding(mesh, P()), state_sh), ())


def resnet_sgd():
  """ResNet (Flax linen): conv stem, max pool, a strided basic block with a projection shortcut,
  batch norm in training mode (running statistics updated), global average pool, classifier; a
  flax TrainState step with optax SGD + momentum; pure data parallelism over 8 devices."""
  import jax
  import jax.numpy as jnp
  import flax.linen as nn
  import optax
  from flax.training import train_state
  from jax.sharding import NamedSharding, PartitionSpec as P

  batch, img, classes = 16, 16, 10

  class BasicBlock(nn.Module):
    features: int
    strides: int = 1

    @nn.compact
    def __call__(self, x, train):
      norm = lambda name: nn.BatchNorm(use_running_average=not train, momentum=0.9, name=name)
      y = nn.Conv(self.features, (3, 3), (self.strides, self.strides), use_bias=False)(x)
      y = nn.relu(norm("bn1")(y))
      y = nn.Conv(self.features, (3, 3), use_bias=False)(y)
      y = norm("bn2")(y)
      if x.shape != y.shape:
        x = nn.Conv(self.features, (1, 1), (self.strides, self.strides), use_bias=False)(x)
        x = norm("bn_proj")(x)
      return nn.relu(x + y)

  class ResNet(nn.Module):
    @nn.compact
    def __call__(self, x, train):
      x = nn.Conv(8, (3, 3), use_bias=False)(x)
      x = nn.relu(nn.BatchNorm(use_running_average=not train, momentum=0.9)(x))
      x = nn.max_pool(x, (3, 3), strides=(2, 2), padding="SAME")
      x = BasicBlock(16, strides=2)(x, train)  # with a projection shortcut
      return nn.Dense(classes)(jnp.mean(x, axis=(1, 2)))

  class TrainState(train_state.TrainState):
    batch_stats: dict

  model = ResNet()
  tx = optax.sgd(0.1, momentum=0.9)

  def create():
    v = model.init(jax.random.key(0), jnp.zeros((1, img, img, 3)), train=False)
    return TrainState.create(apply_fn=model.apply, params=v["params"], tx=tx,
                             batch_stats=v["batch_stats"])

  state = jax.eval_shape(create)
  mesh = jax.make_mesh((8,), ("data",), axis_types=(jax.sharding.AxisType.Auto,))
  repl = NamedSharding(mesh, P())
  state_sh = jax.tree.map(lambda _: repl, state)
  data_sh = NamedSharding(mesh, P("data"))

  def resnet_train_step(state, images, labels):
    def loss_fn(params):
      logits, updates = state.apply_fn({"params": params, "batch_stats": state.batch_stats},
                                       images, train=True, mutable=["batch_stats"])
      loss = optax.softmax_cross_entropy_with_integer_labels(logits, labels).mean()
      return loss, updates
    (loss, updates), grads = jax.value_and_grad(loss_fn, has_aux=True)(state.params)
    state = state.apply_gradients(grads=grads, batch_stats=updates["batch_stats"])
    return state, loss

  args = (state, jax.ShapeDtypeStruct((batch, img, img, 3), jnp.float32),
          jax.ShapeDtypeStruct((batch,), jnp.int32))
  return (resnet_train_step, args, (state_sh, data_sh, data_sh), (state_sh, repl), (0,))


def moe_adam():
  """Mixture-of-experts feed-forward layer (Equinox), GShard-style top-2 gating with expert
  capacity: dispatch and combine einsums, experts sharded over 'expert', token groups over
  'data', a sharding constraint putting the dispatched tokens on their experts (the all-to-all),
  load-balancing auxiliary loss; an optax Adam training step."""
  import jax
  import jax.numpy as jnp
  import equinox as eqx
  import optax
  from jax.sharding import NamedSharding, PartitionSpec as P

  groups, tokens, d, hidden, experts = 4, 16, 16, 32, 4
  capacity = 2 * tokens * 2 // experts  # capacity factor 2, top-2
  mesh = jax.make_mesh((2, 4), ("data", "expert"), axis_types=(jax.sharding.AxisType.Auto,) * 2)

  class MoE(eqx.Module):
    gate: jax.Array
    w_in: jax.Array
    w_out: jax.Array

    def __init__(self, key):
      k1, k2, k3 = jax.random.split(key, 3)
      self.gate = jax.random.normal(k1, (d, experts)) * d ** -0.5
      self.w_in = jax.random.normal(k2, (experts, d, hidden)) * d ** -0.5
      self.w_out = jax.random.normal(k3, (experts, hidden, d)) * hidden ** -0.5

    def __call__(self, x):  # x: [groups, tokens, d]
      probs = jax.nn.softmax(jnp.einsum("gsd,de->gse", x, self.gate), axis=-1)
      top_p, top_e = jax.lax.top_k(probs, 2)
      masks = jax.nn.one_hot(top_e, experts, dtype=x.dtype)  # [g, s, 2, e]
      # Position of each (token, choice) in its expert's buffer: choice 0 before choice 1.
      flat = masks.transpose(0, 2, 1, 3).reshape(groups, 2 * tokens, experts)
      pos = (jnp.cumsum(flat, axis=1) - 1.0) * flat
      pos = pos.reshape(groups, 2, tokens, experts).transpose(0, 2, 1, 3)
      keep = masks * (pos < capacity)
      slot = jax.nn.one_hot(jnp.sum(pos * keep, axis=-1).astype(jnp.int32), capacity, dtype=x.dtype)
      combine = jnp.einsum("gske,gsk,gskc->gsec", keep, top_p, slot)
      dispatch = (combine > 0).astype(x.dtype)
      expert_in = jnp.einsum("gsec,gsd->egcd", dispatch, x)
      expert_in = jax.lax.with_sharding_constraint(
          expert_in, NamedSharding(mesh, P("expert", None, None, None)))
      h = jax.nn.relu(jnp.einsum("egcd,edh->egch", expert_in, self.w_in))
      expert_out = jnp.einsum("egch,ehd->egcd", h, self.w_out)
      y = jnp.einsum("gsec,egcd->gsd", combine, expert_out)
      aux = jnp.mean(jnp.mean(probs, axis=1) * jnp.mean(masks[:, :, 0], axis=1)) * experts ** 2
      return y, aux

  model = eqx.filter_eval_shape(MoE, jax.random.key(0))
  tx = optax.adam(1e-3)
  opt_state = eqx.filter_eval_shape(tx.init, model)
  model_sh = eqx.tree_at(lambda m: (m.gate, m.w_in, m.w_out), model,
                         (NamedSharding(mesh, P()), NamedSharding(mesh, P("expert")),
                          NamedSharding(mesh, P("expert"))))
  opt_sh = optax.tree_map_params(tx, lambda _, s: s, opt_state, model_sh,
                                 transform_non_params=lambda _: NamedSharding(mesh, P()))
  x_sh = NamedSharding(mesh, P("data"))

  def moe_train_step(model, opt_state, x, target):
    @eqx.filter_value_and_grad(has_aux=True)
    def loss_fn(model):
      y, aux = model(x)
      mse = jnp.mean((y - target) ** 2)
      return mse + 0.01 * aux, mse
    (loss, mse), grads = loss_fn(model)
    updates, opt_state = tx.update(grads, opt_state, model)
    return eqx.apply_updates(model, updates), opt_state, mse

  x = jax.ShapeDtypeStruct((groups, tokens, d), jnp.float32)
  return (moe_train_step, (model, opt_state, x, x), (model_sh, opt_sh, x_sh, x_sh),
          (model_sh, opt_sh, NamedSharding(mesh, P())), ())


def unet_grad():
  """U-Net (Flax linen): two resolution levels with strided-conv downsampling, transposed-conv
  upsampling, skip concatenations, group norm and swish; MSE loss, forward + backward. Spatially
  partitioned as the GSPMD paper does for large images: batch on 'data', image height on
  'space' (convolutions exchange halos)."""
  import jax
  import jax.numpy as jnp
  import flax.linen as nn
  from jax.sharding import NamedSharding, PartitionSpec as P

  batch, img, ch = 4, 16, 2

  class ConvBlock(nn.Module):
    features: int

    @nn.compact
    def __call__(self, x):
      x = nn.Conv(self.features, (3, 3))(x)
      return nn.swish(nn.GroupNorm(num_groups=4)(x))

  class UNet(nn.Module):
    @nn.compact
    def __call__(self, x):
      s1 = ConvBlock(8)(x)
      s2 = ConvBlock(16)(nn.Conv(8, (3, 3), strides=(2, 2))(s1))
      mid = ConvBlock(16)(nn.Conv(16, (3, 3), strides=(2, 2))(s2))
      u2 = ConvBlock(16)(jnp.concatenate([nn.ConvTranspose(16, (2, 2), strides=(2, 2))(mid), s2], -1))
      u1 = ConvBlock(8)(jnp.concatenate([nn.ConvTranspose(8, (2, 2), strides=(2, 2))(u2), s1], -1))
      return nn.Conv(ch, (1, 1))(u1)

  model = UNet()
  params = jax.eval_shape(lambda: model.init(jax.random.key(0), jnp.zeros((1, img, img, ch))))
  mesh = jax.make_mesh((2, 4), ("data", "space"), axis_types=(jax.sharding.AxisType.Auto,) * 2)
  params_sh = jax.tree.map(lambda _: NamedSharding(mesh, P()), params)
  img_sh = NamedSharding(mesh, P("data", "space"))

  def unet_loss_and_grad(params, noisy, clean):
    def loss_fn(params):
      return jnp.mean((model.apply(params, noisy) - clean) ** 2)
    return jax.value_and_grad(loss_fn)(params)

  x = jax.ShapeDtypeStruct((batch, img, img, ch), jnp.float32)
  return (unet_loss_and_grad, (params, x, x), (params_sh, img_sh, img_sh),
          (NamedSharding(mesh, P()), params_sh), ())


def ring_allgather_matmul():
  """Collective matmul with jax.shard_map: the row-sharded activations travel around a ring of
  8 devices (ppermute in a fori_loop) while each device multiplies the block it holds with its
  column shard of the weights, instead of all-gathering the activations first."""
  import jax
  import jax.numpy as jnp
  from jax.sharding import NamedSharding, PartitionSpec as P

  rows, k, cols, n = 64, 32, 64, 8
  mesh = jax.make_mesh((n,), ("x",), axis_types=(jax.sharding.AxisType.Auto,))

  def block(x_blk, w_blk):  # x_blk [rows/n, k], w_blk [k, cols/n]
    idx = jax.lax.axis_index("x")
    perm = [(i, (i + 1) % n) for i in range(n)]

    def step(i, carry):
      out, x_cur = carry
      src = (idx - i) % n  # the device whose rows x_cur holds
      out = jax.lax.dynamic_update_slice_in_dim(out, x_cur @ w_blk, src * (rows // n), axis=0)
      return out, jax.lax.ppermute(x_cur, "x", perm)

    # The accumulator differs per device (varying over 'x') like the carry it becomes.
    out0 = jax.lax.pcast(jnp.zeros((rows, cols // n), x_blk.dtype), ("x",), to="varying")
    out, _ = jax.lax.fori_loop(0, n, step, (out0, x_blk))
    return out

  def ring_matmul(x, w):
    y = jax.shard_map(block, mesh=mesh, in_specs=(P("x", None), P(None, "x")),
                      out_specs=P(None, "x"))(x, w)
    return jax.nn.relu(y)

  args = (jax.ShapeDtypeStruct((rows, k), jnp.float32), jax.ShapeDtypeStruct((k, cols), jnp.float32))
  return (ring_matmul, args, (NamedSharding(mesh, P("x", None)), NamedSharding(mesh, P(None, "x"))),
          NamedSharding(mesh, P(None, "x")), ())


def ring_attention():
  """Ring attention (jax.shard_map over 'seq', with 'data' left to the automatic partitioner):
  each device keeps its query block and passes key/value blocks around the ring with ppermute,
  accumulating a numerically stable online softmax with a causal mask from axis_index;
  forward + backward (gradients of a loss with respect to q, k, v)."""
  import jax
  import jax.numpy as jnp
  from jax.sharding import NamedSharding, PartitionSpec as P

  batch, seq, heads, dim, n = 4, 32, 2, 8, 4
  blk = seq // n
  mesh = jax.make_mesh((2, n), ("data", "seq"), axis_types=(jax.sharding.AxisType.Auto,) * 2)

  def ring_block(q, k, v):  # [b, blk, h, d] each
    idx = jax.lax.axis_index("seq")
    perm = [(i, (i + 1) % n) for i in range(n)]
    qpos = idx * blk + jnp.arange(blk)

    def step(i, carry):
      o, m, l, k, v = carry
      src = (idx - i) % n
      kpos = src * blk + jnp.arange(blk)
      s = jnp.einsum("bqhd,bkhd->bhqk", q, k) * dim ** -0.5
      s = jnp.where(qpos[:, None] >= kpos[None, :], s, -1e30)
      m_new = jnp.maximum(m, s.max(-1))
      p = jnp.exp(s - m_new[..., None])
      corr = jnp.exp(m - m_new)
      l = l * corr + p.sum(-1)
      o = o * corr[..., None] + jnp.einsum("bhqk,bkhd->bhqd", p, v)
      k, v = jax.lax.ppermute((k, v), "seq", perm)
      return o, m_new, l, k, v

    b = q.shape[0]
    varying = lambda a: jax.lax.pcast(a, ("seq",), to="varying")
    o0 = varying(jnp.zeros((b, heads, blk, dim), q.dtype))
    m0 = varying(jnp.full((b, heads, blk), -1e30, q.dtype))
    l0 = varying(jnp.zeros((b, heads, blk), q.dtype))
    o, _, l, _, _ = jax.lax.fori_loop(0, n, step, (o0, m0, l0, k, v))
    return (o / l[..., None]).transpose(0, 2, 1, 3)

  spec = P(None, "seq", None, None)
  attn = jax.shard_map(ring_block, mesh=mesh, in_specs=(spec,) * 3, out_specs=spec,
                       axis_names={"seq"})

  def ring_attention_grad(q, k, v):
    def loss_fn(q, k, v):
      return jnp.sum(attn(q, k, v) ** 2)
    return jax.value_and_grad(loss_fn, argnums=(0, 1, 2))(q, k, v)

  qkv_sh = NamedSharding(mesh, P("data", "seq", None, None))
  x = jax.ShapeDtypeStruct((batch, seq, heads, dim), jnp.float32)
  return (ring_attention_grad, (x, x, x), (qkv_sh,) * 3,
          (NamedSharding(mesh, P()), (qkv_sh,) * 3), ())


def mlp_bf16_explicit():
  """A Flax linen MLP classifier in bf16 mixed precision (bf16 compute, f32 parameters and
  loss) on JAX's default mesh type since 0.7: Explicit axes (sharding in types), with a
  jax.sharding.reshard between the layers; an optax AdamW step. Batch on 'data', hidden units
  on 'model'."""
  import jax
  import jax.numpy as jnp
  import flax.linen as nn
  import optax
  from jax.sharding import NamedSharding, PartitionSpec as P, AxisType

  batch, d_in, hidden, classes = 16, 32, 64, 8
  mesh = jax.make_mesh((2, 4), ("data", "model"), axis_types=(AxisType.Explicit,) * 2)

  class MLP(nn.Module):
    @nn.compact
    def __call__(self, x):
      x = x.astype(jnp.bfloat16)
      h = nn.gelu(nn.Dense(hidden, dtype=jnp.bfloat16, name="fc1")(x))
      h = jax.sharding.reshard(h, P("data", "model"))
      # Row-parallel: contracting over sharded hidden units, the output sharding is explicit.
      w = self.param("fc2_kernel", nn.initializers.lecun_normal(), (hidden, classes))
      y = jnp.einsum("bh,hc->bc", h, w.astype(jnp.bfloat16), out_sharding=P("data", None))
      return (y + self.param("fc2_bias", nn.initializers.zeros, (classes,))).astype(jnp.float32)

  model = MLP()
  tx = optax.adamw(1e-3)
  with jax.set_mesh(mesh):  # the reshard names mesh axes
    params = jax.eval_shape(lambda: model.init(jax.random.key(0), jnp.zeros((2, d_in))))
  specs = {"params": {"fc1": {"kernel": P(None, "model"), "bias": P("model")},
                      "fc2_kernel": P("model", None), "fc2_bias": P()}}
  param_sh = jax.tree.map(lambda s: NamedSharding(mesh, s), specs)
  opt_state = jax.eval_shape(tx.init, params)
  opt_sh = optax.tree_map_params(tx, lambda _, s: s, opt_state, param_sh,
                                 transform_non_params=lambda _: NamedSharding(mesh, P()))

  def mlp_bf16_train_step(params, opt_state, x, labels):
    def loss_fn(p):
      logits = model.apply(p, x)
      return optax.softmax_cross_entropy_with_integer_labels(logits, labels).mean()
    loss, grads = jax.value_and_grad(loss_fn)(params)
    updates, opt_state = tx.update(grads, opt_state, params)
    return optax.apply_updates(params, updates), opt_state, loss

  def typed(tree, shardings):  # explicit axes: the arguments' types carry their shardings
    return jax.tree.map(lambda a, s: jax.ShapeDtypeStruct(a.shape, a.dtype, sharding=s), tree,
                        shardings)

  data_sh = NamedSharding(mesh, P("data"))
  args = (typed(params, param_sh), typed(opt_state, opt_sh),
          jax.ShapeDtypeStruct((batch, d_in), jnp.float32, sharding=data_sh),
          jax.ShapeDtypeStruct((batch,), jnp.int32, sharding=data_sh))
  return (mlp_bf16_train_step, args, (param_sh, opt_sh, data_sh, data_sh),
          (param_sh, opt_sh, NamedSharding(mesh, P())), (), mesh)


def fno_fft():
  """A Fourier neural operator layer (Equinox): rfft2 over the spatial dims, a learned complex
  multiplication of the lowest modes, irfft2, plus a pointwise linear path; MSE loss, forward +
  backward. Data parallel over 8 devices (the FFT dims are whole on every device)."""
  import jax
  import jax.numpy as jnp
  import equinox as eqx
  from jax.sharding import NamedSharding, PartitionSpec as P

  batch, size, ch, modes = 8, 16, 4, 4
  mesh = jax.make_mesh((8,), ("data",), axis_types=(jax.sharding.AxisType.Auto,))

  class SpectralConv(eqx.Module):
    w_re: jax.Array
    w_im: jax.Array
    lin: eqx.nn.Linear

    def __init__(self, key):
      k1, k2, k3 = jax.random.split(key, 3)
      scale = 1.0 / (ch * ch)
      self.w_re = scale * jax.random.normal(k1, (ch, ch, modes, modes))
      self.w_im = scale * jax.random.normal(k2, (ch, ch, modes, modes))
      self.lin = eqx.nn.Linear(ch, ch, key=k3)

    def __call__(self, x):  # x: [batch, ch, size, size]
      xf = jnp.fft.rfft2(x)  # [batch, ch, size, size // 2 + 1]
      w = self.w_re + 1j * self.w_im
      low = jnp.einsum("bixy,ioxy->boxy", xf[:, :, :modes, :modes], w)
      out_f = jnp.zeros((x.shape[0], ch, size, size // 2 + 1), xf.dtype)
      out_f = out_f.at[:, :, :modes, :modes].set(low)
      y = jnp.fft.irfft2(out_f, s=(size, size))
      pointwise = jnp.einsum("oi,bixy->boxy", self.lin.weight, x) + self.lin.bias[None, :, None, None]
      return jax.nn.gelu(y + pointwise)

  model = eqx.filter_eval_shape(SpectralConv, jax.random.key(0))
  repl = NamedSharding(mesh, P())
  model_sh = jax.tree.map(lambda _: repl, model)
  x_sh = NamedSharding(mesh, P("data"))

  def fno_loss_and_grad(model, x, target):
    return eqx.filter_value_and_grad(lambda m: jnp.mean((m(x) - target) ** 2))(model)

  x = jax.ShapeDtypeStruct((batch, ch, size, size), jnp.float32)
  return (fno_loss_and_grad, (model, x, x), (model_sh, x_sh, x_sh), (repl, model_sh), ())


MODELS = {
    "gpt2_adamw": gpt2_adamw,
    "vit_grad": vit_grad,
    "resnet_sgd": resnet_sgd,
    "moe_adam": moe_adam,
    "unet_grad": unet_grad,
    "ring_allgather_matmul": ring_allgather_matmul,
    "ring_attention": ring_attention,
    "mlp_bf16_explicit": mlp_bf16_explicit,
    "fno_fft": fno_fft,
}


# ----------------------------------------------------------------------------------------------


def _relative(text):
  """Paths of the repository (and its .venv) relative to it, so the files do not depend on
  where the checkout lives."""
  return text.replace(REPO + "/", "")


def _write(path, text):
  with open(path, "w") as f:
    f.write(_relative(text))


# The GSPMD front's StableHLO (mhlo.sharding attributes, Sharding / SPMDFullToShardShape custom
# calls) is kept for these only; the Shardy StableHLO for every model.
GSPMD_MLIR = ("moe_adam", "ring_attention")

# Models whose inputs and outputs are small enough to commit as a JAX reference run.
REFERENCE = ("vit_grad", "resnet_sgd", "moe_adam", "unet_grad", "ring_allgather_matmul",
             "ring_attention", "mlp_bf16_explicit", "fno_fft")


def reference_inputs(args, absolute=("nu", "var")):
  """Fixed-seed values for the leaves of `args` (the reference runs' inputs, here, in sweep.py and
  in the Python tests): floats uniform in [-1, 1), their absolute value where the leaf's path
  names one of `absolute` (second moments and variances must not be negative); integers (step
  counts, tokens, labels) in [0, 4). Returns (the leaves' values in order, the tree's def)."""
  import jax
  import numpy as np
  rng = np.random.default_rng(0)
  leaves, treedef = jax.tree_util.tree_flatten_with_path(args)
  values = []
  for path, leaf in leaves:
    key = jax.tree_util.keystr(path)
    if np.issubdtype(leaf.dtype, np.floating):
      v = rng.uniform(-1, 1, leaf.shape).astype(leaf.dtype)
      if any(k in key for k in absolute):
        v = np.abs(v)
    else:
      v = rng.integers(0, 4, leaf.shape).astype(leaf.dtype)
    values.append(v)
  return values, treedef


def reference_run(compiled, args, in_sh, d):
  """Runs `compiled` on reference_inputs(args); writes d/reference/input_K.npy and output_K.npy."""
  import jax
  import numpy as np
  values, treedef = reference_inputs(args)
  r = os.path.join(d, "reference")
  shutil.rmtree(r, ignore_errors=True)
  os.makedirs(r)
  for k, v in enumerate(values):
    np.save(os.path.join(r, f"input_{k}.npy"), v)
  placed = jax.tree.map(jax.device_put, jax.tree.unflatten(treedef, values), in_sh)
  for k, v in enumerate(jax.tree.leaves(compiled(*placed))):
    np.save(os.path.join(r, f"output_{k}.npy"), np.asarray(v))


def worker(front, out, dump, only, reference_all):
  """One process per front end: jax_use_shardy_partitioner is read when lowering, and XLA_FLAGS
  (host devices, dump folder) when the backend starts."""
  import jax
  jax.config.update("jax_use_shardy_partitioner", front == "shardy")
  assert len(jax.devices()) == 8, jax.devices()
  for name in only:
    fn, args, in_sh, out_sh, donate, *context = MODELS[name]()
    with jax.set_mesh(context[0]) if context else contextlib.nullcontext():
      lowered = jax.jit(fn, in_shardings=in_sh, out_shardings=out_sh,
                        donate_argnums=donate).lower(*args)
    d = os.path.join(out, name)
    os.makedirs(d, exist_ok=True)
    _write(os.path.join(d, f"{front}.hlo"), lowered.as_text(dialect="hlo"))
    if front == "shardy" or name in GSPMD_MLIR:
      _write(os.path.join(d, f"{front}.mlir"), lowered.as_text())
    compiled = lowered.compile()
    dumped = glob.glob(os.path.join(dump, f"module_*.jit_{fn.__name__}.before_optimizations.txt"))
    assert len(dumped) == 1, (name, dumped)
    with open(dumped[0]) as f:
      _write(os.path.join(d, f"{front}.xla.hlo"), f.read())
    if front == "shardy" and (name in REFERENCE or reference_all):
      reference_run(compiled, args, in_sh, d)
    print(f"generate.py: {front} {name}", flush=True)


def main():
  ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
  ap.add_argument("--out", default=os.path.join(HERE, "corpus"))
  ap.add_argument("--only", default=",".join(MODELS))
  ap.add_argument("--reference-all", action="store_true",
                  help="write reference/ for every model (larger than the committed corpus)")
  ap.add_argument("--worker", choices=FRONTS, help=argparse.SUPPRESS)
  ap.add_argument("--dump", help=argparse.SUPPRESS)
  a = ap.parse_args()
  only = [m for m in a.only.split(",") if m]
  for m in only:
    if m not in MODELS:
      sys.exit(f"generate.py: unknown model '{m}' (known: {', '.join(MODELS)})")
  if a.worker:
    worker(a.worker, a.out, a.dump, only, a.reference_all)
    return
  for front in FRONTS:
    with tempfile.TemporaryDirectory(prefix="spmdc-xla-dump-") as dump:
      env = dict(os.environ)
      env["XLA_FLAGS"] = ("--xla_force_host_platform_device_count=8 "
                          f"--xla_dump_to={dump} --xla_dump_hlo_as_text "
                          "--xla_dump_hlo_module_re=^jit_")
      env["JAX_PLATFORMS"] = "cpu"
      subprocess.run([sys.executable, os.path.abspath(__file__), "--worker", front,
                      "--out", a.out, "--dump", dump, "--only", ",".join(only)]
                     + (["--reference-all"] if a.reference_all else []),
                     env=env, check=True, cwd=REPO)


if __name__ == "__main__":
  main()
