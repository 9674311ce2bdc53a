// Clean-up passes run after partitioning (GSPMD.md §3.1 step 6), and the call passes run before
// propagation (InlineCalls by default, FlattenCalls on request). Each returns whether it changed
// the module.
#pragma once

#include <map>
#include <string>
#include <vector>

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
// What RunInlineCalls did to names: for an instruction of an inlined callee, the names of its
// copies not named as it is; for a call whose value is not held under its name, that value's.
using InlinedNames = std::map<std::string, std::vector<std::string>>;
// Replaces every `call` by a copy of its callee's instructions (parameters replaced by the
// call's operands), as XLA's CallInliner does first in its SPMD partitioning pipeline, so that
// propagation and the partitioner see no call boundary; the callees nothing calls any more are
// removed (nothing else: the caller's dead code stays, and so do the inlined tuples read through
// get-tuple-element). A call's sharding moves to the copy of its callee's root (kept when that
// has the same or none; else onto a copy of it). Left as calls, as in XLA: calls with control
// dependencies, calls marked `inlineable="false"`, calls into another execution thread.
// Names: the copy of a callee's root takes the call's name (the caller's code names the value
// so). A callee that disappears gives its other instructions' names to their copies at its first
// call site (callers are walked callers first, each in text order), so that a callee called once
// keeps every name; other copies get fresh names (NAME.1, ...), listed in `renamed` when given.
StatusOr<bool> RunInlineCalls(Module& module, InlinedNames* renamed = nullptr);
// The names that hold `name`'s value after RunInlineCalls recorded `renamed`, other than `name`
// itself: its copies at other call sites, or for an inlined call what now holds its value
// (following calls inlined into calls), each an instruction of `module`; sorted.
std::vector<std::string> NamesAfterInlining(const Module& module, const InlinedNames& renamed,
                                            const std::string& name);
// Gives every user of a constant expression its own copy (Shardy's constant splitter, which its
// import runs before propagation): a broadcast, iota, reshape, transpose, convert or elementwise
// op computed from constants only (JAX's export shares one `broadcast(0)` among every f32[16]
// comparison of a step, the batch's and a batch norm's channel statistics alike) would otherwise
// pass a sharding from one user to all the others, coupling values that have nothing in common.
// Constants themselves stay shared (a copy would duplicate the literal); so do expressions that
// carry a sharding or are a computation's root. Copies are named NAME.1, ...; the clean-up's CSE
// merges those that end up sharded alike.
StatusOr<bool> RunSplitConstantExpressions(Module& module);
// All-reduce reassociation, tuple simplification, CSE, DCE.
StatusOr<bool> RunCleanup(Module& module);

// A copy of `old` named `name`: opcode, shape, parameter number, location, sharding, literal and
// attributes, without operands or control edges (the caller adds them). What inlining,
// computation cloning and the pipeline's layer outlining copy instructions with.
std::unique_ptr<Instruction> CopyWithoutEdges(const Instruction& old, std::string name);
// The same under a fresh name of `module` (derived from `old`'s).
std::unique_ptr<Instruction> CopyWithoutEdges(Module& module, const Instruction& old);

}  // namespace spmdc
