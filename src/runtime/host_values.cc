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

}  // namespace

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
