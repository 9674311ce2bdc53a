// Clean-up passes run after partitioning (GSPMD.md §3.1 step 6), and FlattenCalls, run before
// propagation by the Python package. Each returns whether it changed the module.
#pragma once

#include "ir/module.h"
#include "support/status.h"

namespace spmdc {

// Removes instructions whose values are unused (never side-effecting ones, never roots or
// parameters) and computations nothing calls.
StatusOr<bool> RunDce(Module& module);
// get-tuple-element(tuple(a, b, ...), i) -> the i-th operand.
StatusOr<bool> RunTupleSimplifier(Module& module);
// Merges identical instructions (same opcode, operands, attributes, shape; no side effects, no
// called computations other than identical ones) so that repeated table lookups and reshards of
// the same value are computed once.
StatusOr<bool> RunCse(Module& module);
// op(all-reduce(a), all-reduce(b)) -> all-reduce(op(a, b)) when op is the all-reduces' own
// reduction (add, multiply, maximum, minimum, and, or) and both reduce over the same groups and
// feed nothing else: one collective instead of two, each device sending the same bytes once
// (XLA's AllReduceReassociate). The partitioner all-reduces each partial dot separately, so the
// gradient of a value used by several column-parallel dots (Megatron's QKV) sums three
// all-reduces; after this pass it all-reduces their sum. The summation order changes (as in XLA).
StatusOr<bool> RunAllReduceReassociate(Module& module);
// Gives every `call` its own callee: a computation that several call instructions call (JAX's
// HLO export calls one `relu` or `gelu` computation from every layer) is cloned for each caller
// after the first, callees of clones too, as XLA's FlattenCallGraph does. Propagation relates a
// callee to one caller (its parameters and root take that call site's shardings), so without
// this every other call site of a shared callee stays unsharded. Computations that other
// instructions also apply (reduce's to_apply, while bodies) are left alone. Clones are named
// NAME.clone (and .clone.N), their instructions get fresh names.
StatusOr<bool> RunFlattenCalls(Module& module);
// The same for control flow: a while condition or body, or a conditional branch, named in
// several places (by several loops / conditionals, or twice by one conditional) is cloned for
// each after the first (callees of clones too). `spmdc auto` plans one sharding per value, so each
// loop and branch needs its own computation. A computation also applied otherwise (a call, a
// reducer) is left alone.
StatusOr<bool> RunFlattenControlFlow(Module& module);
// Replaces every `call` by a copy of its callee's instructions (parameters replaced by the
// call's operands), as XLA's CallInliner does before SPMD partitioning; the callees nothing
// calls any more are removed. A call's sharding moves to the copy of its callee's root (kept
// when that has its own). Calls with control dependencies stay. `spmdc auto` runs it first:
// its strategy search prices the entry computation's values, and JAX's export wraps helpers
// (jnp.take, jax.nn.silu) in calls returning tuples.
StatusOr<bool> RunInlineCalls(Module& module);
// All-reduce reassociation, tuple simplification, CSE, DCE.
StatusOr<bool> RunCleanup(Module& module);

// A copy of `old` under a fresh name of `module`: opcode, shape, parameter number, location,
// sharding, literal and attributes, without operands or control edges (the caller adds them).
// What inlining, computation cloning and the pipeline's layer outlining copy instructions with.
std::unique_ptr<Instruction> CopyWithoutEdges(Module& module, const Instruction& old);

}  // namespace spmdc
