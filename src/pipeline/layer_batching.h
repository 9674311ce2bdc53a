// The per-stage form of a layer computation for GSPMD-style pipelining (AUTO.md §4.2): the
// layer rewritten to run on a microbatch (its batch dim shrunk from B to B/M) of every stage at
// once (a leading stage dim [S, ...] on every value that depends on the layer's parameters, a
// vmap over stages). Values that depend on no parameter (constants, iotas, masks) stay
// unstaged and are broadcast where they meet staged ones.
//
// Microbatching is exact only for a layer that treats examples independently: the batch dim of
// each value is inferred from the batched parameters (elementwise ops keep it, broadcast /
// transpose / reshape / dot / reduce move it, shapes it meets through broadcasts and iotas take
// it), and a value that sums over the batch (a reduce or a dot contracting it: the weight
// gradients of a backward layer) is a partial sum over the microbatch, which may only flow
// linearly to a non-activation output (the pipeline then sums it over the microbatches). Any
// other mixing of examples, and any opcode outside the supported families, is Unimplemented
// naming the instruction.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "ir/module.h"
#include "sharding/sharding.h"
#include "support/status.h"

namespace spmdc::pipeline {

struct LayerBatching {
  int64_t stages = 1;        // S: the leading dim every staged value gets; 0: none (one stage's
                             // computation on a microbatch, as the stage search plans it)
  int64_t batch = 1;         // B: the size of the batch dim of the batched parameters (dim 0)
  int64_t microbatches = 1;  // M: divides B; batch dims shrink to B / M
  // Parameters whose dim 0 is the batch (the activation, and a backward layer's cotangent).
  std::vector<bool> batched_params;
  // The root: an array batched on dim 0 (a forward layer), or a tuple whose element 0 is that
  // and whose other elements are partial sums over the batch (a backward layer).
  bool tuple_root = false;
  // D > 1: the microbatch is split over D data devices (D divides B / M, device d holding
  // examples d·B/(M·D) ...), and a partial sum over the batch keeps one sum per piece, [S, D,
  // ...]: a reduce or dot over the batch splits the batch into [D, B/(M·D)] and sums only the
  // second (each device sums its own examples, no communication), and the linear ops after it
  // carry the pieces' dim. The pipeline sums the pieces once, after the backward loop (one
  // all-reduce), instead of the partitioner's all-reduce after every dot in every iteration.
  // A partial sum that a dot multiplies is FailedPrecondition (the caller batches without).
  int64_t data = 1;
  // The source's devices (N): an instruction of the layer with a sharding over them (the stage
  // search's plan, layer_plan.h) keeps it over each stage's devices (StageSharding), and a
  // `Sharding` custom call stays a constraint; partial sums kept per data piece are left to
  // propagation (the plan's sharding is for the sum).
  int64_t source_devices = 1;
};

// The pipelined program's device of source device `d` at stage `s` of the N source devices: the
// stages are the outermost axis (device s·N + d), so that each stage's devices are contiguous,
// as the stage search places a stage on its submesh (whole hosts, tensor parallelism inside a
// host; only the shifts between stages cross hosts).
inline int64_t PipelinedDevice(int64_t d, int64_t s, int64_t source_devices) { return s * source_devices + d; }

// The sharding, over the pipelined program's devices (PipelinedDevice), of
// a value whose dims are `lead` new leading dims followed by the `rank` dims of a source value
// that `source` splits over the N source devices: new dim 0 split over the S stages when `staged`
// (the other new dims unsplit), else every tile replicated over the stages. nullopt for what
// cannot be carried so (manual, maximal, subgroups other than replication, other device counts).
std::optional<Sharding> StageSharding(const Sharding& source, int64_t rank, int64_t source_devices, int64_t stages,
                                      int64_t lead, bool staged);

// HLO text of the computation `name` (instruction names fresh in `module`, so the text can join
// a module printed from it): parameters and root as `layer`'s, each with the leading stage dim
// and batch dims shrunk. `names`, when given, gets each of `layer`'s instruction names -> the
// name of what stands for it in the text.
StatusOr<std::string> EmitStagedLayer(const Computation& layer, const LayerBatching& options,
                                      const std::string& name, Module& module,
                                      absl::flat_hash_map<std::string, std::string>* names = nullptr);

}  // namespace spmdc::pipeline
