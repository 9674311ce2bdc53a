// Kernels of the reference interpreter for the heavy and structured ops. Each takes the
// instruction (for its attributes and result shape) and the evaluated operands, and returns the
// result Literal. Called computations (reducers, comparators, scatter combiners, select) are
// evaluated through KernelContext::call; kernels recognise the common scalar computations
// (add, max, min, mul, and, or, compare) and run them natively instead.
#pragma once

#include <functional>
#include <vector>

#include "ir/computation.h"
#include "ir/literal.h"
#include "support/status.h"

namespace spmdc {

struct KernelContext {
  // Evaluates `computation` on `args` (scalars for reducers); returns its root value.
  std::function<StatusOr<Literal>(const Computation&, const std::vector<Literal>&)> call;
  int intra_op_threads = 0;             // 0: all cores
  int64_t max_value_bytes = int64_t{16} << 30;
};

StatusOr<Literal> DotKernel(const Instruction& dot, const Literal& lhs, const Literal& rhs,
                            const KernelContext& ctx);
// ragged-dot(lhs, rhs, group_sizes) and scaled-dot(lhs, rhs, lhs_scale, rhs_scale), XLA's order
// (kernels/dot_variants.cc); the scaled-dot kernel takes each operand beside its scale.
StatusOr<Literal> RaggedDotKernel(const Instruction& ragged_dot, const Literal& lhs,
                                  const Literal& rhs, const Literal& group_sizes,
                                  const KernelContext& ctx);
StatusOr<Literal> ScaledDotKernel(const Instruction& scaled_dot, const Literal& lhs,
                                  const Literal& lhs_scale, const Literal& rhs,
                                  const Literal& rhs_scale, const KernelContext& ctx);
StatusOr<Literal> ConvolutionKernel(const Instruction& conv, const Literal& lhs,
                                    const Literal& rhs, const KernelContext& ctx);
// operands = inputs..., init values... (variadic reduce returns a tuple).
StatusOr<Literal> ReduceKernel(const Instruction& reduce, const std::vector<Literal>& operands,
                               const KernelContext& ctx);
StatusOr<Literal> ReduceWindowKernel(const Instruction& rw, const std::vector<Literal>& operands,
                                     const KernelContext& ctx);
StatusOr<Literal> SelectAndScatterKernel(const Instruction& sas, const Literal& operand,
                                         const Literal& source, const Literal& init,
                                         const KernelContext& ctx);
StatusOr<Literal> GatherKernel(const Instruction& gather, const Literal& operand,
                               const Literal& indices, const KernelContext& ctx);
// operands = inputs..., indices, updates...
StatusOr<Literal> ScatterKernel(const Instruction& scatter, const std::vector<Literal>& operands,
                                const KernelContext& ctx);
StatusOr<Literal> SortKernel(const Instruction& sort, const std::vector<Literal>& operands,
                             const KernelContext& ctx);
StatusOr<Literal> TopKKernel(const Instruction& topk, const Literal& operand,
                             const KernelContext& ctx);
StatusOr<Literal> FftKernel(const Instruction& fft, const Literal& operand, const KernelContext& ctx);
StatusOr<Literal> CholeskyKernel(const Instruction& chol, const Literal& a, const KernelContext& ctx);
StatusOr<Literal> TriangularSolveKernel(const Instruction& ts, const Literal& a, const Literal& b,
                                        const KernelContext& ctx);
StatusOr<Literal> RngBitGeneratorKernel(const Instruction& rbg, const Literal& state,
                                        const KernelContext& ctx);

namespace kernels {
// The convolution kernel with oneDNN optionally disabled (tests compare the two paths).
StatusOr<Literal> ConvolutionKernelImpl(const Instruction& conv, const Literal& lhs,
                                        const Literal& rhs, const KernelContext& ctx,
                                        bool allow_dnnl);
// How many convolutions / dots ran on oneDNN so far in this process (for tests).
int64_t DnnlConvolutionCount();
int64_t DnnlMatmulCount();
}  // namespace kernels

}  // namespace spmdc
