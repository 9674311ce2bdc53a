// rng-bit-generator: deterministic, bit-compatible with XLA's RngBitGeneratorExpander
// (rng_default is Philox there on CPU and here too).
//
// State u64[n]: state[0] is the key. ThreeFry2x32 (20 rounds) counts from state[1]; Philox4x32-10
// uses a 128-bit counter (state[1], state[2]) for n >= 3, or (low = state[1], high = state[0])
// for n = 2. 32-bit outputs come from halving the shape (ThreeFry) or round-robin over the four
// Philox words; narrower types keep the low bits of the 32-bit numbers; 64-bit types join words.
#include <array>

#include "interpreter/kernels/common.h"

namespace spmdc {
namespace kernels {
namespace {

inline uint32_t Rotl(uint32_t v, int d) { return (v << d) | (v >> (32 - d)); }

std::array<uint32_t, 2> ThreeFry2x32(std::array<uint32_t, 2> x, std::array<uint32_t, 2> key) {
  static constexpr int kRot[8] = {13, 15, 26, 6, 17, 29, 16, 24};
  const uint32_t ks[3] = {key[0], key[1], 0x1BD11BDAu ^ key[0] ^ key[1]};
  x[0] += ks[0];
  x[1] += ks[1];
  auto rounds = [&](int first) {
    for (int r = first; r < first + 4; ++r) {
      x[0] += x[1];
      x[1] = Rotl(x[1], kRot[r]);
      x[1] ^= x[0];
    }
  };
  for (int i = 0; i < 5; ++i) {
    rounds((i % 2) * 4);
    x[0] += ks[(i + 1) % 3];
    x[1] += ks[(i + 2) % 3] + static_cast<uint32_t>(i + 1);
  }
  return x;
}

std::array<uint32_t, 4> Philox4x32(std::array<uint32_t, 4> x, std::array<uint32_t, 2> key) {
  constexpr uint32_t kW32A = 0x9E3779B9u, kW32B = 0xBB67AE85u;
  constexpr uint32_t kM4x32A = 0xD2511F53u, kM4x32B = 0xCD9E8D57u;
  for (int round = 0; round < 10; ++round) {
    const uint64_t p0 = static_cast<uint64_t>(x[0]) * kM4x32A;
    const uint64_t p1 = static_cast<uint64_t>(x[2]) * kM4x32B;
    x = {static_cast<uint32_t>(p1 >> 32) ^ x[1] ^ key[0], static_cast<uint32_t>(p1),
         static_cast<uint32_t>(p0 >> 32) ^ x[3] ^ key[1], static_cast<uint32_t>(p0)};
    key = {key[0] + kW32A, key[1] + kW32B};
  }
  return x;
}

inline std::array<uint32_t, 2> Split(uint64_t v) {
  return {static_cast<uint32_t>(v), static_cast<uint32_t>(v >> 32)};
}

// Stores the `bits`-wide unsigned number v into element i of `out` (raw bits).
inline void StoreBits(Literal& out, int64_t i, uint64_t v, int bytes) {
  std::byte* p = out.mutable_raw() + i * bytes;
  switch (bytes) {
    case 1: { uint8_t x = static_cast<uint8_t>(v); std::memcpy(p, &x, 1); break; }
    case 2: { uint16_t x = static_cast<uint16_t>(v); std::memcpy(p, &x, 2); break; }
    case 4: { uint32_t x = static_cast<uint32_t>(v); std::memcpy(p, &x, 4); break; }
    default: std::memcpy(p, &v, 8); break;
  }
}

}  // namespace
}  // namespace kernels

StatusOr<Literal> RngBitGeneratorKernel(const Instruction& rbg, const Literal& state,
                                        const KernelContext& ctx) {
  using namespace kernels;
  const Shape& ss = state.shape();
  if (ss.dtype() != DType::kU64 || ss.rank() != 1 || ss.dim(0) < 2)
    return InvalidArgument("rng-bit-generator: state must be u64[n], n >= 2");
  if (!rbg.shape().IsTuple() || rbg.shape().tuple_size() != 2)
    return InvalidArgument("rng-bit-generator: result must be (state, values)");
  Shape vshape = rbg.shape().tuple_shape(1);
  vshape.set_layout(std::nullopt);
  const DType vt = vshape.dtype();
  if (!IsArrayType(vt) || IsComplex(vt) || vt == DType::kPred)
    return InvalidArgument("rng-bit-generator: unsupported value type {}", DTypeName(vt));
  const int bits = DTypeBitWidth(vt);
  const int bytes = DTypeByteSize(vt);
  std::string algo = rbg.string_attr(AttrId::kAlgorithm);
  if (algo.empty() || algo == "rng_default") algo = "rng_philox";
  ASSIGN_OR_RETURN(Literal values, AllocateResult(vshape, ctx));
  Shape sshape = ss;
  sshape.set_layout(std::nullopt);
  Literal new_state(sshape);
  const uint64_t* st = state.data<uint64_t>();
  uint64_t* ns = new_state.mutable_data<uint64_t>();
  for (int64_t i = 0; i < ss.dim(0); ++i) ns[i] = st[i];
  const int64_t n = vshape.num_elements();
  const uint64_t key = st[0];

  if (algo == "rng_three_fry") {
    const std::array<uint32_t, 2> k32 = Split(key);
    const uint64_t counter = st[1];
    if (bits == 64) {
      for (int64_t i = 0; i < n; ++i) {
        auto o = ThreeFry2x32(Split(counter + static_cast<uint64_t>(i)), k32);
        StoreBits(values, i, static_cast<uint64_t>(o[0]) | (static_cast<uint64_t>(o[1]) << 32), 8);
      }
      ns[1] = counter + static_cast<uint64_t>(n);
    } else {
      // Halve the shape along the first even dim (else the largest): element s along that dim
      // comes from word s % 2 of generator input s / 2 (inputs counted over the halved shape).
      const std::vector<int64_t>& dims = vshape.dims();
      const int64_t rank = vshape.rank();
      int64_t split = -1;
      for (int64_t d = 0; d < rank; ++d)
        if (dims[d] % 2 == 0) { split = d; break; }
      if (split < 0)
        for (int64_t d = 0; d < rank; ++d)
          if (split < 0 || dims[d] > dims[split]) split = d;
      std::vector<int64_t> half = dims;
      if (rank == 0) half = {1};
      else half[split] = (dims[split] + 1) / 2;
      const int64_t half_n = Product(half);
      if (rank == 0) {
        if (n > 0) StoreBits(values, 0, ThreeFry2x32(Split(counter), k32)[0], bytes);
      } else if (n > 0) {
        std::vector<int64_t> hstr = RowMajorStrides(half);
        std::vector<int64_t> idx(rank, 0);
        for (int64_t i = 0; i < n; ++i) {
          int64_t j = 0;
          for (int64_t d = 0; d < rank; ++d) j += (d == split ? idx[d] / 2 : idx[d]) * hstr[d];
          auto o = ThreeFry2x32(Split(counter + static_cast<uint64_t>(j)), k32);
          StoreBits(values, i, o[idx[split] % 2], bytes);
          NextIndex(idx, dims);
        }
      }
      ns[1] = counter + static_cast<uint64_t>(half_n);
    }
  } else if (algo == "rng_philox") {
    const std::array<uint32_t, 2> k32 = Split(key);
    uint64_t lo, hi;
    if (ss.dim(0) >= 3) { lo = st[1]; hi = st[2]; }
    else { lo = st[1]; hi = st[0]; }
    auto block = [&](uint64_t i) {
      uint64_t l = lo + i;
      uint64_t h = l < lo ? hi + 1 : hi;
      auto a = Split(l), b = Split(h);
      return Philox4x32({a[0], a[1], b[0], b[1]}, k32);
    };
    const int64_t words = bits == 64 ? 2 * n : n;
    const int64_t nblocks = (words + 3) / 4;
    for (int64_t blk = 0; blk < nblocks; ++blk) {
      auto o = block(static_cast<uint64_t>(blk));
      if (bits == 64) {
        for (int c = 0; c < 2; ++c) {
          int64_t i = 2 * blk + c;
          if (i < n)
            StoreBits(values, i, static_cast<uint64_t>(o[2 * c]) |
                                     (static_cast<uint64_t>(o[2 * c + 1]) << 32), 8);
        }
      } else {
        for (int c = 0; c < 4; ++c) {
          int64_t i = 4 * blk + c;
          if (i < n) StoreBits(values, i, o[c], bytes);
        }
      }
    }
    uint64_t nl = lo + static_cast<uint64_t>(nblocks);
    uint64_t nh = nl < lo ? hi + 1 : hi;
    ns[1] = nl;
    if (ss.dim(0) >= 3) ns[2] = nh;
  } else {
    return Unimplemented("rng-bit-generator: algorithm {}", algo);
  }
  return Literal::Tuple({std::move(new_state), std::move(values)});
}

}  // namespace spmdc
