// fft: FFT, IFFT, RFFT, IRFFT over the trailing fft_length.size() dims, computed in
// complex<double> (iterative radix-2 for powers of two, a direct DFT otherwise) and rounded to
// the result type once. Inverse transforms scale by 1/n per axis, as XLA does.
#include <cmath>
#include <numbers>

#include "interpreter/kernels/common.h"

namespace spmdc {
namespace kernels {
namespace {

using cd = std::complex<double>;

// In-place 1-D transform of `x` (length n); sign -1 forward, +1 inverse (unscaled).
void Transform1D(std::vector<cd>& x, int sign, std::vector<cd>& scratch) {
  const int64_t n = static_cast<int64_t>(x.size());
  if (n <= 1) return;
  if ((n & (n - 1)) == 0) {
    for (int64_t i = 1, j = 0; i < n; ++i) {
      int64_t bit = n >> 1;
      for (; j & bit; bit >>= 1) j ^= bit;
      j ^= bit;
      if (i < j) std::swap(x[i], x[j]);
    }
    for (int64_t len = 2; len <= n; len <<= 1) {
      const double ang = sign * 2.0 * std::numbers::pi / static_cast<double>(len);
      for (int64_t i = 0; i < n; i += len) {
        for (int64_t j = 0; j < len / 2; ++j) {
          const cd w = std::polar(1.0, ang * static_cast<double>(j));
          const cd u = x[i + j], v = x[i + j + len / 2] * w;
          x[i + j] = u + v;
          x[i + j + len / 2] = u - v;
        }
      }
    }
    return;
  }
  scratch.assign(n, cd(0, 0));
  for (int64_t k = 0; k < n; ++k) {
    cd sum(0, 0);
    for (int64_t t = 0; t < n; ++t) {
      // (k * t) mod n keeps the angle small and exact.
      const double ang = sign * 2.0 * std::numbers::pi *
                         static_cast<double>((k * t) % n) / static_cast<double>(n);
      sum += x[t] * std::polar(1.0, ang);
    }
    scratch[k] = sum;
  }
  x.swap(scratch);
}

// Applies the 1-D transform along axis `axis` of the row-major array `data` of `dims`.
void TransformAxis(std::vector<cd>& data, const std::vector<int64_t>& dims, int64_t axis,
                   int sign, bool scale) {
  const int64_t len = dims[axis];
  if (len == 0 || Product(dims) == 0) return;
  const int64_t stride = RowMajorStrides(dims)[axis];
  std::vector<int64_t> outer = dims;
  outer[axis] = 1;
  std::vector<int64_t> strides = RowMajorStrides(dims);
  std::vector<int64_t> idx(dims.size(), 0);
  std::vector<cd> line(len), scratch;
  const double s = scale ? 1.0 / static_cast<double>(len) : 1.0;
  do {
    int64_t base = 0;
    for (size_t d = 0; d < dims.size(); ++d) base += idx[d] * strides[d];
    line.resize(len);
    for (int64_t i = 0; i < len; ++i) line[i] = data[base + i * stride];
    Transform1D(line, sign, scratch);
    for (int64_t i = 0; i < len; ++i) data[base + i * stride] = line[i] * s;
  } while (NextIndex(idx, outer));
}

}  // namespace
}  // namespace kernels

StatusOr<Literal> FftKernel(const Instruction& fft, const Literal& operand,
                            const KernelContext& ctx) {
  using namespace kernels;
  const std::string& type = fft.string_attr(AttrId::kFftType);
  const std::vector<int64_t>& len = fft.ints_attr(AttrId::kFftLength);
  const Shape& in = operand.shape();
  const int64_t L = static_cast<int64_t>(len.size());
  const int64_t rank = in.rank();
  if (L < 1 || L > 3 || L > rank) return InvalidArgument("fft: bad fft_length");
  Shape out_shape = fft.shape();
  out_shape.set_layout(std::nullopt);
  if (out_shape.rank() != rank) return InvalidArgument("fft: result rank differs from operand");
  ASSIGN_OR_RETURN(Literal out, AllocateResult(out_shape, ctx));
  if (out.num_elements() == 0) return out;
  const int64_t first = rank - L;
  if ((type == "IRFFT") == IsComplex(out_shape.dtype()) || !(IsComplex(out_shape.dtype()) || IsFloat(out_shape.dtype())))
    return InvalidArgument("fft: result type {} does not suit {}", DTypeName(out_shape.dtype()), type);
  if (type == "FFT" || type == "IFFT") {
    if (!IsComplex(in.dtype())) return InvalidArgument("fft: {} needs a complex operand", type);
    if (out_shape.dims() != in.dims()) return InvalidArgument("fft: {} result must have the operand's dims", type);
    // fft_length need not match the transformed dims (XLA checks neither): as XLA's evaluator
    // does, each transformed dim is zero-padded or truncated to its length, transformed (an
    // inverse scaled by 1/length), and padded or truncated back to the operand's size. A zero
    // length gives zeros.
    std::vector<int64_t> work_dims = in.dims();
    for (int64_t i = 0; i < L; ++i) {
      if (len[i] < 0)
        return Unimplemented("{} with negative fft_length {} is not supported", type, len[i]);
      work_dims[first + i] = len[i];
    }
    // The working set (complex<double> per element) is bounded like a result value; fft_length
    // is not, so multiply with overflow checks.
    int64_t work_bytes = static_cast<int64_t>(sizeof(cd));
    for (int64_t d : work_dims)
      if (__builtin_mul_overflow(work_bytes, d, &work_bytes) || work_bytes > ctx.max_value_bytes)
        return InvalidArgument("the {} working set for its fft_length is larger than the {} bytes a "
                               "value may take", type, ctx.max_value_bytes);
    std::vector<cd> data(Product(work_dims), cd(0, 0));
    const std::vector<int64_t> in_strides = RowMajorStrides(in.dims());
    const std::vector<int64_t> work_strides = RowMajorStrides(work_dims);
    // Visits the positions common to the operand and the working set (the smaller size per dim).
    std::vector<int64_t> common(rank);
    for (int64_t d = 0; d < rank; ++d) common[d] = std::min(in.dim(d), work_dims[d]);
    auto for_common = [&](auto&& f) {
      if (Product(common) == 0) return;
      std::vector<int64_t> idx(rank, 0);
      do {
        int64_t a = 0, w = 0;
        for (int64_t d = 0; d < rank; ++d) a += idx[d] * in_strides[d], w += idx[d] * work_strides[d];
        f(a, w);
      } while (NextIndex(idx, common));
    };
    for_common([&](int64_t a, int64_t w) { data[w] = operand.GetComplex(a); });
    const bool inverse = type == "IFFT";
    for (int64_t a = first; a < rank; ++a) TransformAxis(data, work_dims, a, inverse ? 1 : -1, inverse);
    // Positions past the working set stay zero (AllocateResult zero-fills).
    for_common([&](int64_t a, int64_t w) { out.SetComplex(a, data[w]); });
    return out;
  }
  if (type == "RFFT") {
    if (!IsFloat(in.dtype())) return InvalidArgument("fft: RFFT needs a real operand");
    for (int64_t i = 0; i < L; ++i)
      if (in.dim(first + i) != len[i]) return InvalidArgument("fft: fft_length mismatch");
    std::vector<cd> data(in.num_elements());
    for (int64_t i = 0; i < in.num_elements(); ++i) data[i] = cd(operand.GetDouble(i), 0);
    for (int64_t a = first; a < rank; ++a) TransformAxis(data, in.dims(), a, -1, false);
    // Keep the first n/2+1 entries of the last axis.
    const int64_t n_last = in.dim(rank - 1), keep = out_shape.dim(rank - 1);
    if (keep != n_last / 2 + 1) return InvalidArgument("fft: RFFT result size mismatch");
    const int64_t rows = in.num_elements() / n_last;
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t j = 0; j < keep; ++j) out.SetComplex(r * keep + j, data[r * n_last + j]);
    return out;
  }
  if (type == "IRFFT") {
    if (!IsComplex(in.dtype())) return InvalidArgument("fft: IRFFT needs a complex operand");
    for (int64_t i = 0; i + 1 < L; ++i)
      if (in.dim(first + i) != len[i]) return InvalidArgument("fft: fft_length mismatch");
    const int64_t n_last = len[L - 1];
    const int64_t half = n_last / 2 + 1;
    if (in.dim(rank - 1) < half || out_shape.dim(rank - 1) != n_last)
      return InvalidArgument("fft: IRFFT sizes mismatch");
    std::vector<cd> data(in.num_elements());
    for (int64_t i = 0; i < in.num_elements(); ++i) data[i] = operand.GetComplex(i);
    for (int64_t a = first; a + 1 < rank; ++a) TransformAxis(data, in.dims(), a, 1, true);
    const int64_t in_last = in.dim(rank - 1);
    const int64_t rows = in.num_elements() / std::max<int64_t>(in_last, 1);
    std::vector<cd> line(n_last), scratch;
    for (int64_t r = 0; r < rows; ++r) {
      for (int64_t k = 0; k < n_last; ++k) {
        line[k] = k < half ? data[r * in_last + k] : std::conj(data[r * in_last + (n_last - k)]);
      }
      line.resize(n_last);
      Transform1D(line, 1, scratch);
      for (int64_t t = 0; t < n_last; ++t)
        out.SetDouble(r * n_last + t, line[t].real() / static_cast<double>(n_last));
    }
    return out;
  }
  return InvalidArgument("fft: unknown fft_type '{}'", type);
}

}  // namespace spmdc
