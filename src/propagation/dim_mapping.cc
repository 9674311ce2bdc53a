#include "propagation/dim_mapping.h"

#include "absl/container/inlined_vector.h"

namespace spmdc {
namespace {
void Split(const DimPairs& pairs, std::vector<int64_t>* a, std::vector<int64_t>* b) {
  for (const auto& [x, y] : pairs) {
    a->push_back(x);
    b->push_back(y);
  }
}
}  // namespace

Sharding MapShardingDims(const Sharding& s, const std::vector<int64_t>& src_dims,
                         const std::vector<int64_t>& dst_dims, int64_t dst_rank) {
  if (!s.IsTiled()) return s;  // what the algebra returns for non-tiled shardings
  absl::InlinedVector<std::pair<int64_t, int64_t>, 8> pairs;
  for (size_t i = 0; i < src_dims.size() && i < dst_dims.size(); ++i)
    pairs.emplace_back(src_dims[i], dst_dims[i]);
  return MapShardingDims(s, dst_rank, std::span<const std::pair<int64_t, int64_t>>(pairs.data(), pairs.size()));
}

GatherDimMap GatherDimMapOf(const Instruction& g) {
  GatherDimMap m;
  GatherDims d = GatherDimsOf(g);
  Split(GatherIndexPassthroughDims(g.operand(1)->shape(), g.shape(), d), &m.index_passthrough, &m.output_batch);
  Split(GatherOperandPassthroughDims(g.operand(0)->shape(), d), &m.operand_passthrough, &m.output_offset);
  return m;
}

ScatterDimMap ScatterDimMapOf(const Instruction& s) {
  ScatterDimMap m;
  ScatterDims d = ScatterDimsOf(s);
  int64_t n = s.operand_count() / 2;
  const Shape& updates = s.operand(n + 1)->shape();
  Split(ScatterIndexPassthroughDims(s.operand(n)->shape(), updates, d), &m.index_passthrough, &m.update_scatter);
  Split(ScatterOperandPassthroughDims(s.operand(0)->shape(), updates, d), &m.operand_passthrough, &m.update_window);
  return m;
}

}  // namespace spmdc
