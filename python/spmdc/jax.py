"""spmdc on JAX functions: lower with JAX, then explain, report or plan shardings.

    import spmdc.jax
    mesh = jax.sharding.Mesh(np.array(jax.devices()).reshape(2, 4), ("data", "model"))
    p = spmdc.jax.plan(loss, params, batch, mesh=mesh)
    params, batch = p.put(params, batch)             # where jit expects them
    step = jax.jit(loss, in_shardings=p.in_shardings, out_shardings=p.out_shardings)
    print(spmdc.jax.explain(loss, params, batch, mesh=mesh, name="dot_general"))
    print(spmdc.jax.report(loss, params, batch, mesh=mesh)["step_time_seconds"])

Arguments are pytrees of jax.Array, numpy arrays, scalars or jax.ShapeDtypeStruct. A leaf whose
``sharding`` is a NamedSharding on a mesh with the same axes as ``mesh`` is the user's annotation
(so are jax.lax.with_sharding_constraint calls inside the function); every other leaf is free.
The function is lowered with ``jax.jit(fn, keep_unused=True)`` (so that the module's entry
parameters are the argument leaves, in order) on a copy of ``mesh`` whose axes are all
``AxisType.Auto`` (explicit axes make JAX pin every intermediate value), or, where that fails
and ``mesh`` has Explicit axes (code written for them), on ``mesh`` itself.

How ``plan`` chooses. strategy="auto" (the default): ``spmdc auto``, the cost-model search,
picks a sharding for every value under the memory limit, with the user's annotations as
constraints, and returns the cheapest of its plan and the standard ones (data parallel, FSDP,
Megatron, 2-D) under spmdc's cost model. strategy="propagate": the user's annotations are kept;
every free argument leaf (of the arguments in ``batch_argnums``, default all) whose first
dimension the first mesh axis divides gets that dimension split over the first mesh axis (data
parallelism); then spmdc's sharding propagation infers the rest: the free leaves it did not
split, and the results.
"""
from __future__ import annotations

import dataclasses
import re
import warnings
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

import jax
import numpy as np
from jax.sharding import Mesh, NamedSharding, PartitionSpec

from . import BadInputError, Module, UnsupportedError, _spmdc

__all__ = ["lower", "mesh_text", "explain", "report", "plan", "Plan"]


def mesh_text(mesh: Mesh) -> str:
    """The spmdc form of a JAX mesh: "data=2,model=4"."""
    return ",".join(f"{name}={size}" for name, size in mesh.shape.items())


def _auto_mesh(mesh: Mesh) -> Mesh:
    """`mesh` with every axis Auto (explicit axes pin every value JAX computes)."""
    return Mesh(mesh.devices, mesh.axis_names)


def _same_axes(a: Mesh, b: Mesh) -> bool:
    return tuple(a.shape.items()) == tuple(b.shape.items())


def _user_spec(leaf: Any, mesh: Mesh) -> Optional[PartitionSpec]:
    """The PartitionSpec the user gave `leaf`, or None when it has none on `mesh`."""
    sharding = getattr(leaf, "sharding", None)
    if isinstance(sharding, NamedSharding) and _same_axes(sharding.mesh, mesh):
        return sharding.spec
    return None


def _abstract(leaf: Any, mesh: Mesh, spec: Optional[PartitionSpec]) -> jax.ShapeDtypeStruct:
    shape = np.shape(leaf)
    dtype = leaf.dtype if hasattr(leaf, "dtype") else np.asarray(leaf).dtype
    sharding = NamedSharding(mesh, spec) if spec is not None else None
    return jax.ShapeDtypeStruct(shape, dtype, sharding=sharding)


@dataclasses.dataclass
class _Lowered:
    text: str
    leaves: List[Any]                       # the argument leaves, in parameter order
    treedef: Any                            # of the positional arguments (a tuple)
    user_specs: List[Optional[PartitionSpec]]  # per leaf, the user's spec or None
    out_tree: Any                           # of fn's result
    mesh: Mesh                              # the mesh it was lowered on


def _lower_text(fn: Callable, args: Sequence[Any], mesh: Mesh, dialect: str) -> _Lowered:
    """Lowers on the Auto copy of `mesh`; where that fails and `mesh` has Explicit axes (fn is
    written for them: jax.sharding.reshard, out_sharding=...), on `mesh` itself."""
    leaves, treedef = jax.tree_util.tree_flatten(tuple(args))
    specs = [_user_spec(leaf, mesh) for leaf in leaves]

    def on(m: Mesh):
        abstract = [_abstract(leaf, m, spec) for leaf, spec in zip(leaves, specs)]
        with jax.set_mesh(m):
            return jax.jit(fn, keep_unused=True).lower(*jax.tree_util.tree_unflatten(treedef, abstract))

    used = _auto_mesh(mesh)
    try:
        lowered = on(used)
    except Exception:
        if used == mesh:
            raise
        used = mesh
        lowered = on(used)
    text = lowered.as_text(dialect=dialect) if dialect == "hlo" else lowered.as_text()
    return _Lowered(text, leaves, treedef, specs, lowered.out_tree, used)


def lower(fn: Callable, *args: Any, mesh: Mesh, dialect: str = "hlo") -> Module:
    """`fn` lowered by JAX on `args` over `mesh`, as an spmdc Module annotated with the mesh
    (num_partitions = mesh.size). ``dialect``: "hlo" (HLO text) or "stablehlo" (MLIR with
    Shardy attributes); both read into the same IR."""
    if dialect not in ("hlo", "stablehlo"):
        raise BadInputError(f"dialect must be 'hlo' or 'stablehlo', got {dialect!r}")
    text = _lower_text(fn, args, mesh, dialect).text
    name = getattr(fn, "__name__", "fn")
    module = Module.parse(text, f"{name}.{'hlo' if dialect == 'hlo' else 'mlir'}")
    return module.annotate(mesh=mesh_text(mesh))


def _matching(module: Module, name: str) -> List[str]:
    """Instructions called `name`, else those whose JAX op_name ends with it (a path such as
    "jit(f)/dot_general" or its last part "dot_general")."""
    instrs = module.instructions()
    bare = name[1:] if name.startswith("%") else name
    if any(i["name"] == bare for i in instrs):
        return [bare]
    found = [i["name"] for i in instrs
             if i["op_name"] and (i["op_name"] == name or i["op_name"].endswith("/" + name))]
    if not found:
        found = [i["name"] for i in instrs if re.fullmatch(re.escape(bare) + r"(\.\d+)?", i["name"])]
    return found


def explain(fn: Callable, *args: Any, mesh: Mesh, name: str, dialect: str = "hlo") -> str:
    """Why the value `name` of `fn` has its sharding after propagation from the user's
    annotations: `name` is an HLO instruction name ("dot_general.2"), a JAX op_name path or its
    last part ("dot_general": every instruction JAX made for such an op), or an instruction
    name without its ".N" suffix. BadInputError when nothing matches."""
    module = lower(fn, *args, mesh=mesh, dialect=dialect).propagate()
    names = _matching(module, name)
    if not names:
        sample = ", ".join(i["name"] for i in module.instructions()[:12])
        raise BadInputError(f"no instruction or op_name matches '{name}' (instructions: {sample}, ...)")
    return "\n".join(module.explain(n) for n in names)


def report(fn: Callable, *args: Any, mesh: Mesh, hardware: str = "h100",
           dialect: str = "hlo") -> Dict[str, Any]:
    """The cost report (a dict, as ``spmdc report --format json``) of `fn` propagated from the
    user's annotations and partitioned for mesh.size devices."""
    return lower(fn, *args, mesh=mesh, dialect=dialect).report(hardware=hardware)


@dataclasses.dataclass(frozen=True)
class Plan:
    """Shardings for jax.jit: ``jax.jit(fn, in_shardings=p.in_shardings,
    out_shardings=p.out_shardings)``. ``in_shardings`` is a tuple with one pytree per positional
    argument; ``out_shardings`` has the structure of fn's result. ``module`` is the propagated
    spmdc Module the shardings were read from; ``strategy`` says how they were chosen."""
    in_shardings: Tuple[Any, ...]
    out_shardings: Any
    module: Module
    strategy: str

    def put(self, *args: Any) -> Tuple[Any, ...]:
        """`args` placed as in_shardings says (jax.device_put): jax.jit refuses an argument
        committed to another sharding (an array on one device, say) where in_shardings names
        one."""
        return tuple(jax.device_put(a, s) for a, s in zip(args, self.in_shardings))

    def jit(self, fn: Callable, **kwargs: Any) -> Callable:
        """jax.jit(fn) with this plan's shardings."""
        return jax.jit(fn, in_shardings=self.in_shardings, out_shardings=self.out_shardings,
                       **kwargs)


def _to_partition_spec(spec: Optional[List[List[str]]]) -> PartitionSpec:
    if spec is None:
        return PartitionSpec()
    dims = [None if not axes else axes[0] if len(axes) == 1 else tuple(axes) for axes in spec]
    while dims and dims[-1] is None:
        dims.pop()
    return PartitionSpec(*dims)


def _spec_text(spec: PartitionSpec, rank: int) -> str:
    parts = []
    for k in range(rank):
        axes = spec[k] if k < len(spec) else None
        if axes is None:
            parts.append("None")
        elif isinstance(axes, tuple):
            parts.append("(" + ",".join(axes) + ")")
        else:
            parts.append(axes)
    return "[" + ", ".join(parts) + "]"


def _choose(module: Module, strategy: str, mesh: Mesh, leaves: List[Any],
            user_specs: List[Optional[PartitionSpec]], batch_leaves: List[bool],
            auto_options: Optional[Dict[str, Any]] = None) -> Tuple[Module, str]:
    """The module with the shardings plan() returns, chosen by `strategy`, and the strategy
    that chose them ("propagate" where "auto" fell back)."""
    names = module.parameter_names()
    if strategy == "auto":
        try:
            chosen, _ = module.auto(**(auto_options or {}))
            return chosen, "auto"
        except UnsupportedError as e:
            # As XLA's auto-sharding fell back to propagation: a module the search cannot take
            # (loops, conditionals, topk/argmax and shard_map regions it does take; tuple-valued
            # ops such as rng_bit_generator or LAPACK custom calls it does not) is still planned,
            # and the user told.
            # A plan that cannot fit the memory limit is not: that is the answer.
            if str(e).startswith("no plan fits"):
                raise
            warnings.warn(f"spmdc.jax.plan: the auto search cannot take this function ({e}); "
                          f"planned by propagation instead (strategy='propagate')", stacklevel=3)
    elif strategy != "propagate":
        raise BadInputError(f"plan: unknown strategy {strategy!r} (known: 'propagate', 'auto')")
    first_axis, first_size = next(iter(mesh.shape.items()))
    shards: Dict[str, str] = {}
    fixed = []
    for name, leaf, spec, batch in zip(names, leaves, user_specs, batch_leaves):
        shape = np.shape(leaf)
        if spec is not None:
            fixed.append(True)  # already in the module (JAX printed it)
        elif batch and len(shape) >= 1 and shape[0] % first_size == 0 and shape[0] > 0:
            shards[name] = _spec_text(PartitionSpec(first_axis), len(shape))
            fixed.append(True)
        else:
            fixed.append(False)
    return (module.propagate(shards=shards, to_output=True, to_parameters=[not f for f in fixed]),
            "propagate")


def plan(fn: Callable, *example_args: Any, mesh: Mesh, batch_argnums: Optional[Sequence[int]] = None,
         strategy: str = "auto", **auto_options: Any) -> Plan:
    """NamedShardings for the arguments and results of `fn`, to pass to jax.jit, on `mesh`
    with its axes made Auto (the same mesh when they already are), or on `mesh` itself when fn
    lowers only there (code written for Explicit axes).

    strategy="propagate": keeps the user's annotations (NamedSharding leaves of the example
    arguments, with_sharding_constraint calls), splits the first dimension of each other leaf
    of the arguments in ``batch_argnums`` (default: every argument) over the first mesh axis
    where it divides, and lets spmdc's propagation infer the remaining arguments and every
    result. strategy="auto" (the default): spmdc's cost-model search (Module.auto; the
    user's annotations are its constraints, ``batch_argnums`` is not used); ``auto_options``
    go to Module.auto (hardware, memory_limit, time_limit, work_limit, search). The search plans
    loops (scan, fori_loop: their bodies too), conditionals, topk and argmax, and the code
    around shard_map regions (kept as written). Where it cannot take the module
    (UnsupportedError other than "no plan fits": e.g. rng_bit_generator) plan() warns and
    plans by propagation; ``Plan.strategy`` says which strategy chose."""
    if auto_options and strategy != "auto":
        raise BadInputError(f"plan: {sorted(auto_options)} apply to strategy='auto' only")
    low = _lower_text(fn, example_args, mesh, "hlo")
    leaves, treedef, user_specs, out_tree = low.leaves, low.treedef, low.user_specs, low.out_tree
    name = getattr(fn, "__name__", "fn")
    module = Module.parse(low.text, f"{name}.hlo").annotate(mesh=mesh_text(mesh))
    if module.num_parameters != len(leaves):
        raise _spmdc.InternalError(
            f"plan: {len(leaves)} argument leaves but the lowered module has "
            f"{module.num_parameters} parameters")
    # Which leaves belong to the arguments in batch_argnums.
    batch_leaves: List[bool] = []
    for k, arg in enumerate(example_args):
        n = len(jax.tree_util.tree_leaves(arg))
        batch_leaves += [batch_argnums is None or k in batch_argnums] * n
    chosen, used = _choose(module, strategy, mesh, leaves, user_specs, batch_leaves, auto_options)
    param_specs, result_specs = chosen.entry_specs()
    # On the mesh fn was lowered on: the Auto copy where it lowers there (with Explicit axes JAX
    # would type-check every op of fn against the shardings, and refuse a contraction over a
    # sharded dimension without an out_sharding), `mesh` itself for code written for Explicit.
    auto = low.mesh
    in_leaves = []
    for spec, user in zip(param_specs, user_specs):
        in_leaves.append(NamedSharding(auto, user if user is not None else _to_partition_spec(spec)))
    if out_tree.num_leaves != len(result_specs):
        raise _spmdc.InternalError(
            f"plan: fn returns {out_tree.num_leaves} arrays but the module's result has "
            f"{len(result_specs)} leaves")
    out_leaves = [NamedSharding(auto, _to_partition_spec(s)) for s in result_specs]
    in_shardings = tuple(jax.tree_util.tree_unflatten(treedef, in_leaves))
    return Plan(in_shardings, jax.tree_util.tree_unflatten(out_tree, out_leaves), chosen, used)
