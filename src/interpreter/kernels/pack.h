// Dense re-layout of a literal into a buffer of a compute type (used by dot and convolution to
// bring operands into the canonical order their inner loops or oneDNN expect).
#pragma once

#include <vector>

#include "interpreter/kernels/common.h"

namespace spmdc::kernels {

template <typename C, typename X>
inline C ConvertTo(X x) {
  if constexpr (IsComplexT<C>::value) {
    if constexpr (IsComplexT<X>::value) {
      return C(static_cast<typename C::value_type>(x.real()),
               static_cast<typename C::value_type>(x.imag()));
    } else {
      return C(static_cast<typename C::value_type>(x), 0);
    }
  } else if constexpr (IsComplexT<X>::value) {
    return static_cast<C>(x.real());
  } else {
    return static_cast<C>(x);
  }
}

// out[j0, j1, ...] = in[...] where output dim k is input dim perm[k]; converted to C.
template <typename C>
void PackPermuted(const Literal& in, const std::vector<int64_t>& perm, C* out) {
  const std::vector<int64_t>& dims = in.shape().dims();
  const int64_t rank = static_cast<int64_t>(perm.size());
  if (in.num_elements() == 0) return;
  std::vector<int64_t> in_strides = RowMajorStrides(dims);
  std::vector<int64_t> odims(rank), ostr(rank);
  for (int64_t k = 0; k < rank; ++k) {
    odims[k] = dims[perm[k]];
    ostr[k] = in_strides[perm[k]];
  }
  DispatchDType(in.shape().dtype(), [&](auto tr) {
    using Tr = decltype(tr);
    using S = typename Tr::Storage;
    const S* src = in.data<S>();
    if (rank == 0) {
      out[0] = ConvertTo<C>(Tr::Load(src[0]));
      return;
    }
    const int64_t inner = odims[rank - 1], inner_stride = ostr[rank - 1];
    std::vector<int64_t> idx(rank - 1, 0);
    std::vector<int64_t> outer_dims(odims.begin(), odims.end() - 1);
    int64_t o = 0;
    do {
      int64_t off = 0;
      for (int64_t k = 0; k + 1 < rank; ++k) off += idx[k] * ostr[k];
      const S* p = src + off;
      for (int64_t j = 0; j < inner; ++j) out[o + j] = ConvertTo<C>(Tr::Load(p[j * inner_stride]));
      o += inner;
    } while (NextIndex(idx, outer_dims));
  });
}

}  // namespace spmdc::kernels
