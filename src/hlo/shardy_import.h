// Shardy input (SHARDY.md §2): modules exported by JAX with Shardy carry their shardings as
// `xla.sdy.*` frontend attributes and custom calls. The import rewrites them, once, right after
// parsing, into the GSPMD form the rest of spmdc works on:
//   - `xla.sdy.sharding` on instructions becomes their Sharding (used where `sharding=` is absent;
//     where both are present they must mean the same, else a located error names both); open
//     dims of `Sharding` custom calls become `unspecified_dims`; priorities are dropped;
//   - `xla.sdy.FuncResultSharding` custom calls become the entry root's sharding (removed);
//   - `xla.sdy.ShardingGroup` calls become shard_as groups (removed);
//   - `xla.sdy.PropagationBarrier` becomes ShardBarrierFrom / ShardBarrierTo (or a copy);
//   - `xla.sdy.GlobalToLocalShape` / call(xla.sdy.manual_computation_body*) /
//     `xla.sdy.LocalToGlobalShape` (shard_map) become the pattern XLA's own export builds:
//     Sharding + SPMDFullToShardShape per operand, the body inlined, Sharding +
//     SPMDShardToFullShape per result (nested regions add their manual axes, outer first);
//   - host callbacks (xla_python_cpu_callback, ...) without a sharding run on device 0.
// Without `xla.sdy.meshes` on the module only the last rule applies (plain GSPMD text).
//
// Printing back (README "Shardy input"): ExportShardyAttributes rewrites `xla.sdy.sharding` to
// the sdy form of the sharding spmdc holds (or drops it where no mesh expresses it, e.g. inside
// manual regions), so that nothing stale remains; DropShardyAttributes removes every Shardy
// attribute from per-device modules, where no sharding is meaningful any more.
#pragma once

#include <string_view>

#include "ir/module.h"
#include "support/status.h"

namespace spmdc {

// Rewrites the Shardy forms of `module` (parsed from `text` of `filename`); errors are located
// diagnostics (InvalidArgument).
Status ImportShardy(Module& module, std::string_view text, std::string_view filename);

// Before printing an unpartitioned module: `xla.sdy.sharding` made to match each instruction's
// sharding (modules without `xla.sdy.meshes` are left alone).
void ExportShardyAttributes(Module& module);

// Removes `xla.sdy.*` frontend attributes from the module and its instructions.
void DropShardyAttributes(Module& module);

}  // namespace spmdc
