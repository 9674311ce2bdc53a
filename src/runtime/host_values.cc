#include "runtime/host_values.h"

namespace spmdc {
namespace {

// SplitMix64: a tiny, well-known generator whose stream is the same on every platform.
struct SplitMix64 {
  uint64_t state;
  uint64_t Next() {
    uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  double Uniform() { return static_cast<double>(Next() >> 11) * 0x1.0p-53; }  // [0, 1)
};

void Fill(Literal& lit, SplitMix64& rng) {
  if (lit.shape().IsTuple()) {
    for (Literal& e : lit.mutable_elements()) Fill(e, rng);
    return;
  }
  if (!lit.shape().IsArray()) return;
  DType t = lit.shape().dtype();
  int64_t n = lit.num_elements();
  for (int64_t i = 0; i < n; ++i) {
    if (t == DType::kPred) lit.SetInt(i, rng.Next() & 1);
    else if (IsInteger(t)) lit.SetInt(i, static_cast<int64_t>(rng.Next() % 8));
    else if (IsComplex(t)) lit.SetComplex(i, {rng.Uniform() * 2 - 1, rng.Uniform() * 2 - 1});
    else lit.SetDouble(i, rng.Uniform() * 2 - 1);
  }
}

// Output k (0-based) of SplitMix64{seed}: the state after k + 1 steps, mixed.
uint64_t SplitMixAt(uint64_t seed, uint64_t k) {
  SplitMix64 rng{seed + k * 0x9e3779b97f4a7c15ull};
  return rng.Next();
}
double UniformAt(uint64_t seed, uint64_t k) {
  return static_cast<double>(SplitMixAt(seed, k) >> 11) * 0x1.0p-53;
}

}  // namespace

void RandomFillBox(const Shape& shape, uint64_t seed, const std::vector<int64_t>& lo,
                   const std::vector<int64_t>& hi, Literal& out) {
  const int64_t rank = shape.rank();
  for (int64_t d = 0; d < rank; ++d)
    if (hi[d] <= lo[d]) return;
  const DType t = shape.dtype();
  const std::vector<int64_t> gs = RowMajorStrides(shape.dims());
  const std::vector<int64_t> os = RowMajorStrides(out.shape().dims());
  std::vector<int64_t> idx = lo;
  for (;;) {
    int64_t g = 0, l = 0;
    for (int64_t d = 0; d < rank; ++d) {
      g += idx[d] * gs[d];
      l += (idx[d] - lo[d]) * os[d];
    }
    // As Fill draws them: one output per element, two (real, imaginary) for complex types.
    if (t == DType::kPred) {
      out.SetInt(l, SplitMixAt(seed, g) & 1);
    } else if (IsInteger(t)) {
      out.SetInt(l, static_cast<int64_t>(SplitMixAt(seed, g) % 8));
    } else if (IsComplex(t)) {
      out.SetComplex(l, {UniformAt(seed, 2 * g) * 2 - 1, UniformAt(seed, 2 * g + 1) * 2 - 1});
    } else {
      out.SetDouble(l, UniformAt(seed, g) * 2 - 1);
    }
    int64_t d = rank - 1;
    for (; d >= 0; --d) {
      if (++idx[d] < hi[d]) break;
      idx[d] = lo[d];
    }
    if (d < 0) return;
  }
}

Literal RandomLiteral(const Shape& shape, uint64_t seed) {
  Literal lit(shape);
  SplitMix64 rng{seed};
  Fill(lit, rng);
  return lit;
}

uint64_t ParameterSeed(uint64_t seed, int64_t index) { return seed * 1000003 + index; }

std::vector<Literal> RandomArguments(const Module& module, uint64_t seed) {
  std::vector<Literal> args;
  const Computation* entry = module.entry();
  for (int64_t i = 0; i < entry->num_parameters(); ++i)
    args.push_back(RandomLiteral(entry->parameter(i)->shape(), ParameterSeed(seed, i)));
  return args;
}

std::vector<Literal> FlattenLeaves(const Literal& value) {
  std::vector<Literal> out;
  if (value.shape().IsTuple()) {
    for (const Literal& e : value.elements())
      for (Literal& l : FlattenLeaves(e)) out.push_back(std::move(l));
  } else if (value.shape().IsArray()) {
    out.push_back(value);
  }
  return out;
}

}  // namespace spmdc
