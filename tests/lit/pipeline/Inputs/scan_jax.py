#!/usr/bin/env python3
"""Writes the scanned training steps of tests/lit/pipeline/scan.test as JAX exports them.

A residual MLP block (x + tanh(x @ w1 + b1) @ w2) scanned over L = 4 layers with jax.lax.scan
(the forward scan over the stacked weights [L, ...], and in the gradient the backward scan in
reverse with the stacked gradients as its output), a linear head and a mean squared error:

  scan_mlp.hlo      one device, SGD, no remat (the forward scan stacks the residuals the
                    backward reads: the layer inputs, tanh and 1 - tanh^2)
  scan_mlp_dp.hlo   jax.checkpoint around the block (the backward recomputes it), optax SGD with
                    momentum (a per-layer optimizer state, stacked like the weights), jitted on 2
                    devices with the batch over `data` (NamedSharding). (Not Adam: on random
                    inputs its m / sqrt(v) turns summation-order differences of tiny gradients
                    into errors near the comparison's tolerance.)

usage: /work/main/.venv/bin/python tests/lit/pipeline/Inputs/scan_jax.py   (writes next to itself)
"""
import os

os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=2"
os.environ["JAX_PLATFORMS"] = "cpu"

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import optax  # noqa: E402
from jax.sharding import NamedSharding, PartitionSpec as P  # noqa: E402

L, B, D, F = 4, 16, 16, 32
HERE = os.path.dirname(os.path.abspath(__file__))


def block(x, w):
  w1, b1, w2 = w
  return x + jnp.tanh(x @ w1 + b1) @ w2


def loss_fn(params, x, y, remat):
  def body(h, w):
    return block(h, w), None
  if remat:
    body = jax.checkpoint(body)
  h, _ = jax.lax.scan(body, x, params["layers"])
  return jnp.mean((h @ params["head"] - y) ** 2)


def shapes():
  f = jnp.float32
  params = {"layers": (jax.ShapeDtypeStruct((L, D, F), f), jax.ShapeDtypeStruct((L, F), f),
                       jax.ShapeDtypeStruct((L, F, D), f)),
            "head": jax.ShapeDtypeStruct((D, 4), f)}
  return params, jax.ShapeDtypeStruct((B, D), f), jax.ShapeDtypeStruct((B, 4), f)


def sgd():
  def step(params, x, y):
    loss, g = jax.value_and_grad(loss_fn)(params, x, y, False)
    return jax.tree.map(lambda p, d: p - 0.1 * d, params, g), loss
  params, x, y = shapes()
  return jax.jit(step).lower(params, x, y).as_text(dialect="hlo")


def momentum_dp():
  tx = optax.sgd(0.1, momentum=0.9)

  def step(params, opt_state, x, y):
    loss, g = jax.value_and_grad(loss_fn)(params, x, y, True)
    updates, opt_state = tx.update(g, opt_state, params)
    return optax.apply_updates(params, updates), opt_state, loss
  params, x, y = shapes()
  opt_state = jax.eval_shape(tx.init, params)
  mesh = jax.make_mesh((2,), ("data",))
  rep = NamedSharding(mesh, P())
  batch = NamedSharding(mesh, P("data", None))
  in_sh = (jax.tree.map(lambda _: rep, params), jax.tree.map(lambda _: rep, opt_state), batch, batch)
  out_sh = (jax.tree.map(lambda _: rep, params), jax.tree.map(lambda _: rep, opt_state), rep)
  return jax.jit(step, in_shardings=in_sh, out_shardings=out_sh).lower(params, opt_state, x, y).as_text(dialect="hlo")


for name, text in (("scan_mlp.hlo", sgd()), ("scan_mlp_dp.hlo", momentum_dp())):
  with open(os.path.join(HERE, name), "w") as f:
    f.write(text)
