"""spmdc.jax on JAX's CPU backend with 8 host devices (conftest.py sets XLA_FLAGS): plan() ->
jax.jit computes what the unsharded function computes; explain() and report() on functions."""
import warnings

import numpy as np
import pytest

jax = pytest.importorskip("jax")
import jax.numpy as jnp  # noqa: E402
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P  # noqa: E402

import spmdc  # noqa: E402
import spmdc.jax  # noqa: E402


@pytest.fixture(scope="module")
def mesh():
    if len(jax.devices()) < 8:
        pytest.fail("JAX sees fewer than 8 devices: XLA_FLAGS must be set before jax is imported")
    return Mesh(np.array(jax.devices()[:8]).reshape(2, 4), ("data", "model"))


def sharded(mesh, value, *spec):
    return jax.device_put(value, NamedSharding(mesh, P(*spec)))


# --- a small MLP ----------------------------------------------------------------------------

def mlp(params, x):
    for w, b in params[:-1]:
        x = jax.nn.relu(x @ w + b)
    w, b = params[-1]
    return x @ w + b


def mlp_params(key, sizes):
    params = []
    for k, (m, n) in zip(jax.random.split(key, len(sizes) - 1), zip(sizes[:-1], sizes[1:])):
        kw, kb = jax.random.split(k)
        params.append((jax.random.normal(kw, (m, n), jnp.float32) / np.sqrt(m),
                       jax.random.normal(kb, (n,), jnp.float32) * 0.1))
    return params


def assert_same(got, want, rtol=2e-5, atol=2e-5):
    for g, w in zip(jax.tree_util.tree_leaves(got), jax.tree_util.tree_leaves(want)):
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=rtol, atol=atol)


def test_mesh_text(mesh):
    assert spmdc.jax.mesh_text(mesh) == "data=2,model=4"


def test_plan_data_parallel_mlp(mesh):
    params = mlp_params(jax.random.PRNGKey(0), [32, 64, 64, 16])
    x = jax.random.normal(jax.random.PRNGKey(1), (16, 32), jnp.float32)
    p = spmdc.jax.plan(mlp, params, x, mesh=mesh, batch_argnums=[1], strategy="propagate")
    assert p.strategy == "propagate"
    assert p.in_shardings[1] == NamedSharding(mesh, P("data"))
    # The batch split carries through to the result.
    assert p.out_shardings.spec[0] == "data"
    got = p.jit(mlp)(params, x)
    assert got.sharding.is_equivalent_to(p.out_shardings, 2)
    assert_same(got, mlp(params, x))


def test_plan_megatron_mlp_from_annotated_weights(mesh):
    # The user shards the first layer's columns and the second's rows over `model` (Megatron);
    # the batch goes over `data` by the default rule; propagation fills in the rest.
    params = mlp_params(jax.random.PRNGKey(2), [32, 128, 32])
    (w1, b1), (w2, b2) = params
    annotated = [(sharded(mesh, w1, None, "model"), sharded(mesh, b1, "model")),
                 (sharded(mesh, w2, "model", None), b2)]
    x = jax.random.normal(jax.random.PRNGKey(3), (16, 32), jnp.float32)
    p = spmdc.jax.plan(mlp, annotated, x, mesh=mesh, batch_argnums=[1], strategy="propagate")
    (s_w1, s_b1), (s_w2, s_b2) = p.in_shardings[0]
    assert s_w1.spec == P(None, "model") and s_w2.spec == P("model", None)
    assert p.in_shardings[1].spec == P("data")
    names = {i["name"]: i for i in p.module.instructions()}
    # The hidden activation is split both ways: rows over data, columns over model.
    hidden = [i for i in names.values() if i["opcode"] == "dot" and i["shape"] == "f32[16,128]"]
    assert hidden and hidden[0]["sharding"] == "{devices=[2,4]<=[8]}"
    got = p.jit(mlp)(annotated, x)
    assert_same(got, mlp(params, x))


def test_plan_default_everywhere_and_shape_dtype_structs(mesh):
    # Without batch_argnums every leaf whose first dim divides by 2 is split (b2 of size 5: not).
    params = mlp_params(jax.random.PRNGKey(4), [8, 16, 5])
    x = jax.random.normal(jax.random.PRNGKey(5), (4, 8), jnp.float32)
    abstract = jax.tree_util.tree_map(lambda a: jax.ShapeDtypeStruct(a.shape, a.dtype), (params, x))
    p = spmdc.jax.plan(mlp, *abstract, mesh=mesh, strategy="propagate")
    (s_w1, _), (_, s_b2) = p.in_shardings[0]
    assert s_w1.spec == P("data")
    assert s_b2.spec == P()
    assert_same(p.jit(mlp)(params, x), mlp(params, x))


def test_plan_on_an_explicit_mesh_with_committed_arguments(mesh):
    # jax.make_mesh gives Explicit axes; x is committed to device 0, so it must be put first.
    explicit = jax.make_mesh((2, 4), ("data", "model"), devices=jax.devices()[:8])
    params = mlp_params(jax.random.PRNGKey(12), [32, 64, 16])
    (w1, b1), (w2, b2) = params
    annotated = [(jax.device_put(w1, NamedSharding(explicit, P(None, "model"))), b1), (w2, b2)]
    x = jax.device_put(jax.random.normal(jax.random.PRNGKey(13), (16, 32)), jax.devices()[0])
    p = spmdc.jax.plan(mlp, annotated, x, mesh=explicit, batch_argnums=[1], strategy="propagate")
    # The plan's mesh is the same devices and axes, Auto.
    assert p.in_shardings[1] == NamedSharding(mesh, P("data"))
    assert p.in_shardings[0][0][0].spec == P(None, "model")
    with pytest.raises(ValueError):
        p.jit(mlp)(annotated, x)
    got = p.jit(mlp)(*p.put(annotated, x))
    assert got.sharding == p.out_shardings
    assert_same(got, mlp(params, x))


# --- a small transformer block --------------------------------------------------------------

def layer_norm(x, scale):
    mean = x.mean(-1, keepdims=True)
    var = ((x - mean) ** 2).mean(-1, keepdims=True)
    return (x - mean) * jax.lax.rsqrt(var + 1e-5) * scale


def block(params, x):
    heads = params["wq"].shape[1]
    h = layer_norm(x, params["ln1"])
    q = jnp.einsum("bsd,dhk->bhsk", h, params["wq"])
    k = jnp.einsum("bsd,dhk->bhsk", h, params["wk"])
    v = jnp.einsum("bsd,dhk->bhsk", h, params["wv"])
    s = jnp.einsum("bhqk,bhsk->bhqs", q, k) / np.sqrt(q.shape[-1])
    mask = jnp.tril(jnp.ones((x.shape[1], x.shape[1]), bool))
    s = jnp.where(mask, s, -1e9)
    a = jnp.einsum("bhqs,bhsk->bqhk", jax.nn.softmax(s, axis=-1), v)
    x = x + jnp.einsum("bqhk,hkd->bqd", a, params["wo"])
    h = layer_norm(x, params["ln2"])
    x = x + jax.nn.gelu(h @ params["w1"]) @ params["w2"]
    del heads
    return x


def block_params(key, d=32, heads=4, head_dim=8, ff=64):
    ks = jax.random.split(key, 6)
    n = lambda k, s, fan: jax.random.normal(k, s, jnp.float32) / np.sqrt(fan)
    return {"ln1": jnp.ones((d,)), "ln2": jnp.ones((d,)),
            "wq": n(ks[0], (d, heads, head_dim), d), "wk": n(ks[1], (d, heads, head_dim), d),
            "wv": n(ks[2], (d, heads, head_dim), d), "wo": n(ks[3], (heads, head_dim, d), d),
            "w1": n(ks[4], (d, ff), d), "w2": n(ks[5], (ff, d), ff)}


def megatron(mesh, params):
    spec = {"wq": (None, "model", None), "wk": (None, "model", None), "wv": (None, "model", None),
            "wo": ("model", None, None), "w1": (None, "model"), "w2": ("model", None)}
    return {k: sharded(mesh, v, *spec[k]) if k in spec else v for k, v in params.items()}


def test_plan_transformer_block(mesh):
    params = block_params(jax.random.PRNGKey(6))
    x = jax.random.normal(jax.random.PRNGKey(7), (4, 16, 32), jnp.float32)
    p = spmdc.jax.plan(block, megatron(mesh, params), x, mesh=mesh, batch_argnums=[1], strategy="propagate")
    assert p.in_shardings[1].spec == P("data")
    assert p.in_shardings[0]["wq"].spec == P(None, "model", None)
    assert p.out_shardings.spec[0] == "data"
    # Attention scores are split over the batch and the heads.
    scores = [i for i in p.module.instructions() if i["shape"] == "f32[4,4,16,16]" and i["entry"]
              and i["opcode"] == "dot"]
    assert scores and scores[0]["sharding"] == "{devices=[2,4,1,1]<=[8]}"
    got = p.jit(block)(megatron(mesh, params), x)
    assert_same(got, block(params, x), rtol=1e-4, atol=1e-4)


def test_plan_transformer_block_data_parallel_only(mesh):
    params = block_params(jax.random.PRNGKey(8))
    x = jax.random.normal(jax.random.PRNGKey(9), (4, 16, 32), jnp.float32)
    p = spmdc.jax.plan(block, params, x, mesh=mesh, batch_argnums=[1], strategy="propagate")
    assert all(s.spec == P() for s in jax.tree_util.tree_leaves(
        p.in_shardings[0], is_leaf=lambda s: isinstance(s, NamedSharding)))
    assert_same(p.jit(block)(params, x), block(params, x), rtol=1e-4, atol=1e-4)


def test_plan_keeps_sharding_constraints(mesh):
    def f(x, w):
        h = jax.lax.with_sharding_constraint(x @ w, P(None, "model"))
        return jnp.tanh(h).sum(axis=0)
    x = jnp.arange(8 * 16, dtype=jnp.float32).reshape(8, 16) / 100
    w = jnp.ones((16, 32), jnp.float32) / 16
    p = spmdc.jax.plan(f, x, w, mesh=mesh, batch_argnums=[], strategy="propagate")
    assert p.out_shardings.spec == P("model")
    with jax.set_mesh(mesh):  # f's bare PartitionSpec needs a mesh in context
        assert_same(p.jit(f)(x, w), f(x, w))


def test_plan_auto_mlp(mesh):
    """The default strategy: spmdc auto's plan, jitted, computes what the unsharded MLP does."""
    params = mlp_params(jax.random.PRNGKey(20), [32, 256, 256, 16])
    x = jax.random.normal(jax.random.PRNGKey(21), (64, 32), jnp.float32)
    p = spmdc.jax.plan(mlp, params, x, mesh=mesh, time_limit=10)
    assert p.strategy == "auto"
    # The chosen module is annotated for the whole mesh; every argument has a sharding.
    assert p.module.num_partitions == 8
    assert all(isinstance(s, NamedSharding) for s in jax.tree_util.tree_leaves(p.in_shardings))
    got = p.jit(mlp)(*p.put(params, x))
    assert_same(got, mlp(params, x))


def test_module_auto_reports_plans(mesh):
    params = mlp_params(jax.random.PRNGKey(22), [32, 64, 16])
    module = spmdc.jax.lower(mlp, params, jnp.ones((16, 32)), mesh=mesh)
    chosen, info = module.auto(time_limit=10)
    names = [p["name"] for p in info["plans"]]
    assert names[0] == "auto" and "data-parallel" in names
    assert info["chosen"] in names
    best = min(p["step_time_seconds"] for p in info["plans"] if p["fits"])
    assert info["step_time_seconds"] == pytest.approx(best)
    assert 0 <= info["gap"] <= 1 and info["lower_bound_seconds"] <= info["search_estimate_seconds"] * 1.000001
    assert chosen.verify()["outputs"] == 1
    with pytest.raises(spmdc.UnsupportedError, match="no plan fits"):
        module.auto(memory_limit=64, time_limit=5)
    with pytest.raises(spmdc.BadInputError, match="memory_limit"):
        module.auto(memory_limit=0)
    with pytest.raises(spmdc.BadInputError, match="apply to strategy='auto' only"):
        spmdc.jax.plan(mlp, params, jnp.ones((16, 32)), mesh=mesh, strategy="propagate",
                       time_limit=3)


def test_module_auto_tactic_search(mesh):
    """search="mcts": the tactic search's plan, with the tactics that explain it, verifies."""
    params = mlp_params(jax.random.PRNGKey(23), [32, 64, 16])
    module = spmdc.jax.lower(mlp, params, jnp.ones((16, 32)), mesh=mesh)
    chosen, info = module.auto(search="mcts", work_limit=200)
    assert info["search"] == "mcts" and isinstance(info["tactics"], list)
    assert info["plans"][0]["name"] == "auto" and info["lower_bound_seconds"] == 0
    assert chosen.verify()["outputs"] == 1
    _, again = module.auto(search="mcts", work_limit=200)
    assert again["tactics"] == info["tactics"]
    with pytest.raises(spmdc.BadInputError, match="search must be 'ilp' or 'mcts'"):
        module.auto(search="foo")


def test_plan_auto_plans_loops(mesh):
    """A while loop (jax.lax.fori_loop): the search plans its body with the rest (costs times
    the trip count), and jax.jit with the plan computes the function."""
    def f(x, w):
        return jax.lax.fori_loop(0, 3, lambda i, h: jnp.tanh(h @ w), x)
    x = jax.random.normal(jax.random.PRNGKey(23), (16, 32), jnp.float32)
    w = jax.random.normal(jax.random.PRNGKey(24), (32, 32), jnp.float32) / 8
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)
        p = spmdc.jax.plan(f, x, w, mesh=mesh, time_limit=5)
    assert p.strategy == "auto"
    assert_same(p.jit(f)(*p.put(x, w)), f(x, w))


def test_plan_auto_plans_top_k_argmax_and_cond(mesh):
    """jax.lax.top_k, jnp.argmax (a variadic reduce) and jax.lax.cond: tuple-valued ops and
    branches the search plans (no fallback); the plan computes the function."""
    def f(p, x, w):
        h = x @ w
        values, indices = jax.lax.top_k(h, 2)
        best = jnp.argmax(h, axis=1)
        g = jax.lax.cond(p, lambda a: jnp.tanh(a), lambda a: -a, h)
        return values, indices, best, g
    x = jax.random.normal(jax.random.PRNGKey(25), (16, 32), jnp.float32)
    w = jax.random.normal(jax.random.PRNGKey(26), (32, 64), jnp.float32) / 8
    p_true = jnp.array(True)
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)
        p = spmdc.jax.plan(f, p_true, x, w, mesh=mesh, time_limit=5)
    assert p.strategy == "auto"
    for pred in (True, False):
        args = (jnp.array(pred), x, w)
        assert_same(p.jit(f)(*p.put(*args)), f(*args))


def test_plan_auto_takes_rng_bit_generator(mesh):
    """jax.lax.rng_bit_generator (rbg keys; a tuple of the new state and the bits): the search
    plans it, the state whole and the bits split as their users want, and the plan runs."""
    def f(key, x):
        key, bits = jax.lax.rng_bit_generator(key, x.shape, dtype=jnp.uint32)
        return key, x + bits.astype(jnp.float32)
    key = jnp.arange(4, dtype=jnp.uint32)
    x = jnp.ones((16, 32), jnp.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)
        p = spmdc.jax.plan(f, key, x, mesh=mesh, time_limit=5)
    assert p.strategy == "auto"
    got_key, got = p.jit(f)(*p.put(key, x))
    want_key, want = f(key, x)
    assert_same(got_key, want_key)
    assert_same(got, want)


def test_plan_auto_falls_back_to_propagation_on_ops_it_does_not_take(mesh):
    """jnp.linalg.eigh (a LAPACK custom call returning a tuple, which the search does not take):
    plan() warns and plans by propagation, still a plan jax.jit runs."""
    def f(a, x):
        w, v = jnp.linalg.eigh(a)
        return x @ v + w
    a = jnp.eye(32, dtype=jnp.float32) * 2.0
    x = jnp.ones((16, 32), jnp.float32)
    with pytest.warns(UserWarning, match="planned by propagation"):
        p = spmdc.jax.plan(f, a, x, mesh=mesh, time_limit=5)
    assert p.strategy == "propagate"
    assert_same(p.jit(f)(*p.put(a, x)), f(a, x))


def test_explain_and_report_on_a_function(mesh):
    (w1, b1), (w2, b2) = mlp_params(jax.random.PRNGKey(10), [32, 128, 32])
    annotated = [(sharded(mesh, w1, None, "model"), b1), (sharded(mesh, w2, "model", None), b2)]
    x = sharded(mesh, jnp.ones((16, 32)), "data")
    text = spmdc.jax.explain(mlp, annotated, x, mesh=mesh, name="dot_general")
    assert "on mesh {data=2, model=4}: f32[16@data,128@model]" in text
    with pytest.raises(spmdc.BadInputError, match="no instruction or op_name"):
        spmdc.jax.explain(mlp, annotated, x, mesh=mesh, name="no_such_op")
    r = spmdc.jax.report(mlp, annotated, x, mesh=mesh)
    assert r["num_partitions"] == 8
    kinds = {c["kind"]: c for c in r["collectives"]}
    assert kinds["all-reduce"]["mesh_axes"] == ["model"]


def test_lower_stablehlo_matches_hlo(mesh):
    (w1, b1), (w2, b2) = mlp_params(jax.random.PRNGKey(11), [32, 64, 16])
    annotated = [(sharded(mesh, w1, None, "model"), b1), (w2, b2)]
    x = sharded(mesh, jnp.ones((16, 32)), "data")
    a = spmdc.jax.lower(mlp, annotated, x, mesh=mesh, dialect="hlo").propagate()
    b = spmdc.jax.lower(mlp, annotated, x, mesh=mesh, dialect="stablehlo").propagate()
    assert a.entry_specs() == b.entry_specs()
    assert a.entry_specs()[0][4] == [["data"], []]
    assert a.partition().collectives() == b.partition().collectives()
    # spmdc's own check: the lowered module on one device against eight.
    assert a.verify()["outputs"] == 1
