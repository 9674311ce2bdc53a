#include "propagation/dot_dims.h"

#include <algorithm>

#include "ir/shape_inference.h"
#include "support/check.h"

namespace spmdc {
namespace {

bool Contains(const std::vector<int64_t>& v, int64_t x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

// A spatial dim that is really a batch dim: one window per lhs element, laid out by stride or
// dilation so that each output element sees exactly one lhs element.
bool SpatialIsBatch(int64_t lhs_size, const WindowDim& wd) {
  bool unpadded = lhs_size == wd.size && lhs_size == wd.base_dilation &&
                  ((std::max<int64_t>(1, lhs_size - 1) == wd.stride && wd.window_dilation == 1) ||
                   (std::max<int64_t>(1, lhs_size - 1) == wd.window_dilation && wd.stride == 1)) &&
                  wd.padding_low == 0 && wd.padding_high == 0 && !wd.window_reversal;
  bool padded = lhs_size == wd.size && wd.padding_low == lhs_size - 1 &&
                wd.padding_high == lhs_size - 1 && wd.window_reversal && wd.window_dilation == 1 &&
                wd.stride == lhs_size && wd.base_dilation == lhs_size - 1;
  return unpadded || padded;
}

}  // namespace

namespace {

// The dot of `lhs_rank` x `rhs_rank` operands; `lhs_skip` / `rhs_skip` (-1: none) are dims left
// out of every list (a ragged-dot's ragged and group dims); the lhs one still has its output dim.
DotDims DotDimsWith(const Instruction& dot, int64_t lhs_rank, int64_t rhs_rank, int64_t lhs_skip,
                    int64_t rhs_skip) {
  const auto& lb = dot.ints_attr(AttrId::kLhsBatchDims);
  const auto& rb = dot.ints_attr(AttrId::kRhsBatchDims);
  const auto& lc = dot.ints_attr(AttrId::kLhsContractingDims);
  const auto& rc = dot.ints_attr(AttrId::kRhsContractingDims);
  DotDims d;
  for (size_t i = 0; i < lb.size(); ++i) d.batch.push_back({lb[i], rb[i], static_cast<int64_t>(i), -1});
  for (size_t i = 0; i < lc.size(); ++i) d.contracting.push_back({lc[i], rc[i], -1, -1});
  int64_t out = static_cast<int64_t>(lb.size());
  for (int64_t i = 0; i < lhs_rank; ++i) {
    if (Contains(lb, i) || Contains(lc, i)) continue;
    if (i == lhs_skip) {
      ++out;
      continue;
    }
    d.lhs_non_contracting.push_back({i, -1, out++, -1});
  }
  for (int64_t i = 0; i < rhs_rank; ++i)
    if (!Contains(rb, i) && !Contains(rc, i) && i != rhs_skip) d.rhs_non_contracting.push_back({-1, i, out++, -1});
  return d;
}

}  // namespace

DotDims DotDimsOfDot(const Instruction& dot) {
  return DotDimsWith(dot, dot.operand(0)->shape().rank(), dot.operand(1)->shape().rank(), -1, -1);
}

int64_t DotRhsOperand(const Instruction&) { return 1; }

std::optional<DotDims> DotDimsOfDotFamily(const Instruction& instr) {
  const int64_t rhs = DotRhsOperand(instr);
  if (instr.operand_count() <= rhs || !instr.operand(0)->shape().IsArray() || !instr.operand(rhs)->shape().IsArray())
    return std::nullopt;
  const int64_t lhs_rank = instr.operand(0)->shape().rank(), rhs_rank = instr.operand(rhs)->shape().rank();
  switch (instr.opcode()) {
    case Opcode::kDot:
    case Opcode::kScaledDot:
      return DotDimsWith(instr, lhs_rank, rhs_rank, -1, -1);
    case Opcode::kRaggedDot: {
      StatusOr<RaggedDotMode> mode = ClassifyRaggedDot(instr, lhs_rank, rhs_rank);
      if (!mode.ok() || mode->kind != RaggedDotMode::kNonContracting || !mode->rhs_group) return std::nullopt;
      return DotDimsWith(instr, lhs_rank, rhs_rank, mode->lhs_ragged, *mode->rhs_group);
    }
    default:
      return std::nullopt;
  }
}

DotDims DotDimsOfConvolution(const Instruction& conv) {
  const ConvDims* cd = conv.attr<ConvDims>(AttrId::kDimLabels);
  const Window* window = conv.attr<Window>(AttrId::kWindow);
  SPMDC_CHECK(cd != nullptr);
  DotDims d;
  d.lhs_non_contracting.push_back({cd->input_batch, -1, cd->output_batch, -1});
  d.rhs_non_contracting.push_back({-1, cd->kernel_output_feature, cd->output_feature, -1});
  d.contracting.push_back({cd->input_feature, cd->kernel_input_feature, -1, -1});
  for (size_t i = 0; i < cd->input_spatial.size(); ++i) {
    int64_t lhs = cd->input_spatial[i], rhs = cd->kernel_spatial[i], out = cd->output_spatial[i];
    int64_t lhs_size = conv.operand(0)->shape().dim(lhs);
    int64_t rhs_size = conv.operand(1)->shape().dim(rhs);
    WindowDim wd = window && i < window->dims.size() ? window->dims[i] : WindowDim{};
    DotDim dim{lhs, rhs, out, static_cast<int64_t>(i)};
    bool plain = wd.base_dilation == 1 && wd.window_dilation == 1;
    if (SpatialIsBatch(lhs_size, wd)) {
      d.batch.push_back(dim);
    } else if (lhs_size == wd.size && plain && wd.padding_low == 0 && wd.padding_high == 0 &&
               !wd.window_reversal) {
      d.contracting.push_back(dim);  // one window covering the whole dim
    } else if (wd.stride == 1 && plain && rhs_size == 1 && wd.size == 1 && wd.padding_low == 0 &&
               wd.padding_high == 0 && !wd.window_reversal) {
      d.lhs_non_contracting.push_back(dim);  // window of 1
    } else if (wd.stride == 1 && plain && lhs_size == 1 && wd.size == rhs_size &&
               wd.padding_low == rhs_size - 1 && wd.padding_high == rhs_size - 1 &&
               wd.window_reversal) {
      d.rhs_non_contracting.push_back(dim);
    } else {
      d.conv_spatial.push_back(dim);
    }
  }
  return d;
}

DotDims DotDimsOf(const Instruction& instr) {
  return instr.opcode() == Opcode::kDot ? DotDimsOfDot(instr) : DotDimsOfConvolution(instr);
}

}  // namespace spmdc
