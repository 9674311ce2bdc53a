#include "inputs.h"

#include <algorithm>
#include <cmath>

#include "fmt/format.h"
#include "npy.h"
#include "runtime/host_sharding.h"
#include "runtime/host_values.h"

namespace spmdc::cli {

StatusOr<std::vector<Literal>> MakeArguments(const Module& module,
                                             const std::vector<std::string>& npy_paths,
                                             uint64_t seed, int64_t num_partitions) {
  const Computation* entry = module.entry();
  if (npy_paths.size() > static_cast<size_t>(entry->num_parameters())) {
    return InvalidArgument("{} inputs given but the entry computation has {} parameters",
                           npy_paths.size(), entry->num_parameters());
  }
  std::vector<Literal> args;
  for (int64_t i = 0; i < entry->num_parameters(); ++i) {
    const Instruction* param = entry->parameter(i);
    // Manual parameters take one value per manual group (host_sharding.h).
    const Shape shape = num_partitions > 0 && param->has_sharding()
                            ? HostShape(param->shape(), *param->sharding(), num_partitions)
                            : param->shape();
    if (i < static_cast<int64_t>(npy_paths.size())) {
      if (!shape.IsArray()) return InvalidArgument("parameter {} is not an array; it cannot come from .npy", i);
      ASSIGN_OR_RETURN(Literal lit, ReadNpy(npy_paths[i], shape));
      args.push_back(std::move(lit));
    } else {
      // Each parameter gets its own stream so that adding an input does not shift the others.
      args.push_back(RandomLiteral(shape, ParameterSeed(seed, i)));
    }
  }
  return args;
}

std::string SummarizeLeaf(const Literal& leaf) {
  uint64_t fnv = 0xcbf29ce484222325ull;
  const auto* bytes = reinterpret_cast<const unsigned char*>(leaf.raw());
  for (int64_t i = 0; i < leaf.shape().byte_size(); ++i) fnv = (fnv ^ bytes[i]) * 0x100000001b3ull;
  double sum = 0;
  int64_t n = leaf.num_elements();
  bool complex = IsComplex(leaf.shape().dtype());
  for (int64_t i = 0; i < n; ++i) sum += complex ? leaf.GetComplex(i).real() : leaf.GetDouble(i);
  return fmt::format("{} sum={:.6g} fnv={:016x} {}", leaf.shape().ToString(false), sum, fnv,
                     leaf.Summary(6).substr(leaf.shape().ToString(false).size() + 1));
}

}  // namespace spmdc::cli
