#include "propagation/gather_parallel.h"

#include <algorithm>
#include <numeric>

#include "sharding/algebra.h"

namespace spmdc {
namespace {

bool Contains(const std::vector<int64_t>& v, int64_t x) { return std::find(v.begin(), v.end(), x) != v.end(); }

// Which indices dim the iota feeding index-vector position i varies along (-1: not an iota).
std::vector<int64_t> IotaDimPerIndex(const Instruction& indices, int64_t index_vector_dim,
                                     int64_t num_indices, const CallerMap& callers) {
  std::vector<int64_t> per_index(num_indices, -1);
  auto count_from = [&](const Instruction& piece) {
    return piece.shape().rank() > index_vector_dim ? piece.shape().dim(index_vector_dim) : 1;
  };
  if (indices.opcode() == Opcode::kConcatenate && !indices.dimensions().empty() &&
      indices.dimensions()[0] == index_vector_dim) {
    int64_t at = 0;
    for (const Instruction* piece : indices.operands()) {
      int64_t n = count_from(*piece);
      std::optional<int64_t> dim = DimensionForIota(*piece, callers);
      if (dim && *dim != index_vector_dim)
        for (int64_t j = 0; j < n && at + j < num_indices; ++j) per_index[at + j] = *dim;
      at += n;
    }
  } else if (std::optional<int64_t> dim = DimensionForIota(indices, callers)) {
    if (*dim != index_vector_dim) {
      int64_t n = std::min(count_from(indices), num_indices);
      for (int64_t j = 0; j < n; ++j) per_index[j] = *dim;
    }
  }
  return per_index;
}

// Shared by gather and scatter: `slice_sizes` per operand dim, `index_map` the operand dim of
// each index-vector position, `index_to_result` the (indices dim, result dim) passthrough pairs,
// `batching` explicit (operand dim, result dim) batching pairs and their indices dims.
std::optional<ParallelDims> Collect(const Instruction& indices, int64_t index_vector_dim,
                                    const std::vector<int64_t>& slice_sizes,
                                    const std::vector<int64_t>& index_map, const DimPairs& index_to_result,
                                    const DimPairs& batching, const std::vector<int64_t>& batching_index_dims,
                                    const CallerMap& callers) {
  struct Entry { int64_t indices, operand, result; };
  std::vector<Entry> entries;
  auto result_of = [&](int64_t indices_dim) -> int64_t {
    for (const auto& [i, r] : index_to_result)
      if (i == indices_dim) return r;
    return -1;
  };
  std::vector<int64_t> per_index =
      IotaDimPerIndex(indices, index_vector_dim, static_cast<int64_t>(index_map.size()), callers);
  for (size_t i = 0; i < per_index.size(); ++i) {
    int64_t idim = per_index[i];
    if (idim < 0) continue;
    for (const Entry& e : entries)
      if (e.indices == idim) return std::nullopt;  // one iota dim addressing two operand dims
    int64_t odim = index_map[i];
    if (odim < 0 || odim >= static_cast<int64_t>(slice_sizes.size()) || slice_sizes[odim] != 1) continue;
    int64_t rdim = result_of(idim);
    if (rdim < 0) continue;
    entries.push_back({idim, odim, rdim});
  }
  for (size_t k = 0; k < batching.size() && k < batching_index_dims.size(); ++k) {
    bool dup = false;
    for (const Entry& e : entries) dup |= e.indices == batching_index_dims[k] || e.operand == batching[k].first;
    if (!dup) entries.push_back({batching_index_dims[k], batching[k].first, batching[k].second});
  }
  if (entries.empty()) return std::nullopt;
  std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) { return a.indices < b.indices; });
  ParallelDims out;
  for (const Entry& e : entries) {
    out.indices.push_back(e.indices);
    out.operand.push_back(e.operand);
    out.result.push_back(e.result);
  }
  return out;
}

}  // namespace

std::optional<int64_t> DimensionForIota(const Instruction& i, const CallerMap& callers) {
  if (i.opcode() == Opcode::kIota) return i.int_attr(AttrId::kIotaDimension);
  if (!i.shape().IsArray() || i.shape().dtype() != DType::kS32) return std::nullopt;
  if (i.opcode() == Opcode::kConstant) {
    const Literal* lit = i.literal();
    if (!lit) return std::nullopt;
    const Shape& shape = i.shape();
    const int64_t rank = shape.rank();
    std::vector<bool> is_iota(rank, true);
    std::vector<int64_t> index(rank, 0);
    for (int64_t n = 0; n < shape.num_elements(); ++n) {
      int64_t v = lit->GetInt(n);
      for (int64_t d = 0; d < rank; ++d)
        if (v != index[d]) is_iota[d] = false;
      for (int64_t d = rank - 1; d >= 0; --d) {
        if (++index[d] < shape.dim(d)) break;
        index[d] = 0;
      }
    }
    for (int64_t d = 0; d < rank; ++d)
      if (is_iota[d] && shape.dim(d) > 1) return d;
    return std::nullopt;
  }
  if (i.opcode() == Opcode::kBroadcast) {
    std::optional<int64_t> d = DimensionForIota(*i.operand(0), callers);
    if (d && *d < static_cast<int64_t>(i.dimensions().size())) return i.dimensions()[*d];
    return std::nullopt;
  }
  if (i.opcode() == Opcode::kGetTupleElement && i.operand(0)->opcode() == Opcode::kParameter &&
      !i.parent()->IsEntry()) {
    auto it = callers.find(i.parent());
    if (it == callers.end()) return std::nullopt;
    const Instruction* caller = it->second;
    const int64_t index = i.tuple_index();
    if (caller->opcode() == Opcode::kWhile && caller->operand(0)->opcode() == Opcode::kTuple) {
      // Loop-invariant element: the body root passes this very GTE through.
      const Instruction* root = i.parent()->root();
      if (root->opcode() == Opcode::kTuple && index < root->operand_count() && root->operand(index) == &i &&
          index < caller->operand(0)->operand_count())
        return DimensionForIota(*caller->operand(0)->operand(index), callers);
      return std::nullopt;
    }
    if (caller->opcode() == Opcode::kConditional) {
      std::vector<Computation*> branches = caller->called_computations();
      for (size_t b = 0; b < branches.size(); ++b) {
        if (branches[b] != i.parent() || static_cast<int64_t>(b) + 1 >= caller->operand_count()) continue;
        const Instruction* arg = caller->operand(b + 1);
        if (arg->opcode() == Opcode::kTuple && index < arg->operand_count())
          return DimensionForIota(*arg->operand(index), callers);
      }
    }
  }
  return std::nullopt;
}

std::optional<ParallelDims> GatherParallelDims(const Instruction& gather, const CallerMap& callers) {
  const GatherDims d = GatherDimsOf(gather);
  const Instruction& indices = *gather.operand(1);
  std::vector<int64_t> batching_index_dims = d.start_indices_batching_dims;
  return Collect(indices, d.index_vector_dim, d.slice_sizes, d.start_index_map,
                 GatherIndexPassthroughDims(indices.shape(), gather.shape(), d),
                 GatherOperandBatchingDims(indices.shape(), gather.shape(), d), batching_index_dims, callers);
}

std::optional<ParallelDims> ScatterParallelDims(const Instruction& scatter, const CallerMap& callers) {
  const ScatterDims d = ScatterDimsOf(scatter);
  const int64_t n = scatter.operand_count() / 2;
  const Instruction& indices = *scatter.operand(n);
  const Shape& operand = scatter.operand(0)->shape();
  const Shape& updates = scatter.operand(n + 1)->shape();
  // Slice size per operand dim: the update window extent, 1 for inserted/batching dims.
  std::vector<int64_t> slice_sizes(operand.rank(), 1);
  size_t window = 0;
  for (int64_t i = 0; i < operand.rank(); ++i) {
    if (Contains(d.inserted_window_dims, i) || Contains(d.input_batching_dims, i)) continue;
    if (window < d.update_window_dims.size() && d.update_window_dims[window] < updates.rank())
      slice_sizes[i] = updates.dim(d.update_window_dims[window]);
    ++window;
  }
  return Collect(indices, d.index_vector_dim, slice_sizes, d.scatter_dims_to_operand_dims,
                 ScatterIndexPassthroughDims(indices.shape(), updates, d),
                 ScatterOperandBatchingDims(indices.shape(), updates, d), d.scatter_indices_batching_dims, callers);
}

}  // namespace spmdc
