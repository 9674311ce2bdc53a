// Automatic cross-replica sharding of the weight update (Xu et al. 2020, "Automatic
// Cross-Replica Sharding of Weight Update in Data-Parallel Training"), expressed the GSPMD way:
// as shardings chosen for the update before partitioning, so that the partitioner emits the
// collectives and the verifier, the cost model and `verify` see an ordinary annotated program.
//
// In data-parallel training every replica computes the same update from all-reduced gradients:
// the optimizer's arithmetic and its state are replicated R times. Sharding the update over the
// data axis instead (each replica updates 1/R of every weight) turns each gradient all-reduce
// into a reduce-scatter, runs the optimizer on shards, stores the optimizer state sharded, and
// all-gathers the new weights (or, with keep_sharded, leaves them sharded for the next step, as
// FSDP/ZeRO-3 does: the forward pass all-gathers them). Wire bytes stay those of the all-reduce
// it replaces (a ring all-reduce is a reduce-scatter followed by an all-gather); memory and
// arithmetic of the update drop by R.
//
// What counts as an update (found on a propagated module, from the entry result backwards): an
// output value computed by elementwise ops of one shape S from entry parameters of shape S
// (the weight, its optimizer state), scalars broadcast to S (learning rate, bias corrections)
// and gradients (values of shape S produced by anything else: dots, reductions, transposes),
// whose every value is used only by the update itself or the entry result. Outputs sharing
// values (Adam's w', m', v') form one update. An output that feeds another output of its update
// is optimizer state (m', v'); the others are new weights. Parameters used only by the update are
// optimizer state; those also used elsewhere (the forward pass) are the weights.
//
// The update's values, its state parameters and state outputs get the weight's sharding with
// the data axis added on one dim d (the largest per-shard dim that the axis divides; when none
// does, the largest, padded by the partitioner as uneven shardings are: never replicated); the
// gradients' producers get it too, through transposes and converts back to the dot or reduction
// that makes them, so that it reduce-scatters. New weights keep their sharding (all-gathered)
// unless keep_sharded, which also shards the weight parameters.
#pragma once

#include <string>
#include <vector>

#include "ir/module.h"
#include "sharding/mesh.h"
#include "support/status.h"

namespace spmdc {

struct WeightUpdateOptions {
  Mesh mesh = *Mesh::Create({{"devices", 1}});  // the mesh the shardings are written over
  std::string axis;                               // the data-parallel axis of `mesh`
  bool keep_sharded = false;
};

struct WeightUpdateResult {
  struct Update {
    std::vector<std::string> weights;  // new-weight outputs (%names)
    std::vector<std::string> state;    // optimizer-state parameters sharded (%names)
    int64_t dim = 0;                   // the dim split over the axis
    bool padded = false;               // the axis does not divide it: uneven shards
    // Bytes per device of the optimizer-state parameters, under their sharding before and after
    // (1/R of before when the axis divides the dim; the padded shard otherwise).
    int64_t state_bytes_before = 0, state_bytes_after = 0;
  };
  std::vector<Update> updates;
  std::vector<std::string> skipped;  // outputs left alone, each with why
  // The updates summed.
  struct Totals {
    int64_t weights = 0, state = 0, padded = 0;
    int64_t state_bytes_before = 0, state_bytes_after = 0;
  };
  Totals Sum() const;
  // "weight-update sharding over data (4 replicas): 12 updates, ..., optimizer state 1024 -> 256
  // bytes per device" (one line).
  std::string Summary(const WeightUpdateOptions& options) const;
};

// Rewrites the shardings of `module` (propagated: every instruction has one) as above. Errors:
// an axis not in the mesh (InvalidArgument). Outputs that are no update, or whose shardings the
// mesh cannot express, are listed in `skipped` and left as they are.
StatusOr<WeightUpdateResult> ShardWeightUpdate(Module& module, const WeightUpdateOptions& options);

}  // namespace spmdc
