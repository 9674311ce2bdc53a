#include "propagation/gather_parallel.h"

#include <algorithm>
#include <numeric>

#include "sharding/algebra.h"

namespace spmdc {
namespace {

bool Contains(const std::vector<int64_t>& v, int64_t x) { return std::find(v.begin(), v.end(), x) != v.end(); }

// Which indices dim the iota feeding index-vector position i varies along (-1: not an iota).
// A concatenate along index_vector_dim (possibly behind copies) contributes piece by piece.
std::vector<int64_t> IotaDimPerIndex(const Instruction& indices, int64_t index_vector_dim,
                                     int64_t num_indices, const CallerMap& callers) {
  std::vector<int64_t> per_index(num_indices, -1);
  auto count_from = [&](const Instruction& piece) {
    return piece.shape().rank() > index_vector_dim ? piece.shape().dim(index_vector_dim) : 1;
  };
  const Instruction* concat = &indices;
  while (concat->opcode() == Opcode::kCopy) concat = concat->operand(0);
  if (concat->opcode() == Opcode::kConcatenate && !concat->dimensions().empty() &&
      concat->dimensions()[0] == index_vector_dim) {
    int64_t at = 0;
    for (const Instruction* piece : concat->operands()) {
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

// The result (output / update) dim of each indices batch dim: the non-index_vector_dim indices
// dims in order, against the result dims that are not offset / window dims.
int64_t ResultDimOfIndicesDim(int64_t indices_dim, int64_t index_vector_dim,
                              const std::vector<int64_t>& window_dims, int64_t result_rank) {
  int64_t batch_index = indices_dim - (indices_dim > index_vector_dim ? 1 : 0);
  for (int64_t r = 0, seen = 0; r < result_rank; ++r) {
    if (Contains(window_dims, r)) continue;
    if (seen++ == batch_index) return r;
  }
  return -1;
}

// The iota-derived ("implicit") parallel dims as (indices dim, operand dim) pairs: an iota along
// indices dim d feeding the index of operand dim o with slice size 1 (and d not an explicit
// batching dim) makes d and o parallel. One iota dim feeding two such positions, or a pair whose
// sizes differ, disables them all (nullopt).
std::optional<DimPairs> ImplicitParallelDims(const Instruction& operand, const Instruction& indices,
                                             int64_t index_vector_dim, const std::vector<int64_t>& slice_sizes,
                                             const std::vector<int64_t>& index_map,
                                             const std::vector<int64_t>& indices_batching,
                                             const CallerMap& callers) {
  std::vector<int64_t> per_index =
      IotaDimPerIndex(indices, index_vector_dim, static_cast<int64_t>(index_map.size()), callers);
  DimPairs pairs;
  for (size_t i = 0; i < per_index.size(); ++i) {
    const int64_t idim = per_index[i];
    if (idim < 0) continue;
    for (const auto& [d, o] : pairs)
      if (d == idim) return std::nullopt;
    const int64_t odim = index_map[i];
    if (odim < 0 || odim >= static_cast<int64_t>(slice_sizes.size())) continue;
    if (slice_sizes[odim] != 1 || Contains(indices_batching, idim)) continue;
    if (idim >= indices.shape().rank() || operand.shape().dim(odim) != indices.shape().dim(idim))
      return std::nullopt;
    pairs.emplace_back(idim, odim);
  }
  return pairs;
}

// Shared by gather and scatter. `slice_sizes` per operand dim, `index_map` the operand dim of
// each index-vector position, `window_dims` the offset (gather) / update window (scatter) dims,
// `operand_batching` / `indices_batching` the explicit batching dims.
std::optional<ParallelDims> Collect(const Instruction& operand, const Instruction& indices,
                                    int64_t index_vector_dim, int64_t result_rank,
                                    const std::vector<int64_t>& slice_sizes,
                                    const std::vector<int64_t>& index_map,
                                    const std::vector<int64_t>& window_dims,
                                    const std::vector<int64_t>& operand_batching,
                                    const std::vector<int64_t>& indices_batching, const CallerMap& callers,
                                    ParallelKind kind) {
  ParallelDims out;
  auto add = [&](int64_t idim, int64_t odim) {
    out.indices.push_back(idim);
    out.operand.push_back(odim);
    out.result.push_back(ResultDimOfIndicesDim(idim, index_vector_dim, window_dims, result_rank));
  };
  if (kind != ParallelKind::kImplicit)
    for (size_t k = 0; k < operand_batching.size() && k < indices_batching.size(); ++k)
      add(indices_batching[k], operand_batching[k]);
  if (kind != ParallelKind::kExplicit)
    if (std::optional<DimPairs> implicit = ImplicitParallelDims(operand, indices, index_vector_dim, slice_sizes,
                                                                index_map, indices_batching, callers))
      for (const auto& [idim, odim] : *implicit) add(idim, odim);
  if (out.empty()) return std::nullopt;
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

std::optional<ParallelDims> GatherParallelDims(const Instruction& gather, const CallerMap& callers,
                                               ParallelKind kind) {
  const GatherDims d = GatherDimsOf(gather);
  return Collect(*gather.operand(0), *gather.operand(1), d.index_vector_dim, gather.shape().rank(),
                 d.slice_sizes, d.start_index_map, d.offset_dims, d.operand_batching_dims,
                 d.start_indices_batching_dims, callers, kind);
}

std::optional<ParallelDims> ScatterParallelDims(const Instruction& scatter, const CallerMap& callers,
                                                ParallelKind kind) {
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
  return Collect(*scatter.operand(0), indices, d.index_vector_dim, updates.rank(), slice_sizes,
                 d.scatter_dims_to_operand_dims, d.update_window_dims, d.input_batching_dims,
                 d.scatter_indices_batching_dims, callers, kind);
}

}  // namespace spmdc
