// Propagation on a 4096-device mesh keeps tile assignments compact: a transformer training step
// annotated over a 64 x 64 (data x model) iota mesh propagates to thousands of tiled shardings
// without materialising 4096 device ids per instruction (issue 3: "a 4096-device mesh annotated
// on 100k instructions must not materialise 4096 ids per instruction").
#include <gtest/gtest.h>

#include "hlo/parser.h"
#include "models/models.h"
#include "propagation/propagation.h"
#include "sharding/sharding.h"
#include "sharding/tile_assignment.h"

namespace spmdc {
namespace {

TEST(PropagationLargeMesh, TileAssignmentsStayCompact) {
  TransformerOptions options;
  options.batch = 64;
  options.seq = 2;
  options.model = 128;
  options.heads = 64;
  options.ffn = 128;
  options.layers = 4;
  options.parallel.data = 64;
  options.parallel.model = 64;
  options.parallel.constrain_activations = true;
  auto module = ParseHloModule(BuildTransformerTrainingStep(options), "transformer");
  ASSERT_TRUE(module.ok()) << module.status().message();

  const int64_t before = TileAssignment::MaterializedIds();
  auto changed = PropagateShardings(**module);
  ASSERT_TRUE(changed.ok()) << changed.status().message();
  const int64_t materialized = TileAssignment::MaterializedIds() - before;

  int64_t tiled = 0, iota = 0;
  for (Computation* c : (*module)->computations())
    for (Instruction* i : c->instructions()) {
      if (!i->has_sharding() || i->sharding()->IsTuple() || !i->sharding()->IsTiled()) continue;
      ++tiled;
      if (i->sharding()->tile_assignment().num_elements() == 4096 && i->sharding()->tile_assignment().is_iota())
        ++iota;
    }
  // Hundreds of instructions carry a tiled sharding over the whole mesh, every one of them in
  // iota form, and propagation materialised the ids of at most a few arrays (not one per
  // instruction).
  EXPECT_GT(tiled, 800);
  EXPECT_EQ(iota, tiled);
  EXPECT_LE(materialized, 8 * 4096) << "ids materialised: " << materialized << " for " << tiled
                                    << " tiled instructions";
}

}  // namespace
}  // namespace spmdc
