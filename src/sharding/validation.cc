#include "sharding/validation.h"

#include "absl/container/flat_hash_set.h"
#include "fmt/format.h"
#include "ir/attributes.h"
#include "support/diagnostic.h"

namespace spmdc {
namespace {

void CollectLeaves(const Shape& shape, std::vector<const Shape*>* leaves) {
  if (!shape.IsTuple()) {
    leaves->push_back(&shape);
    return;
  }
  for (const Shape& s : shape.tuple_shapes()) CollectLeaves(s, leaves);
}

Status ValidateLeaf(const Sharding& s, const Shape& shape, int64_t num_devices) {
  if (shape.IsToken()) return absl::OkStatus();
  switch (s.kind()) {
    case Sharding::Kind::kReplicated:
    case Sharding::Kind::kManual:
    case Sharding::Kind::kUnknown:
    case Sharding::Kind::kUnreduced:
      return absl::OkStatus();
    case Sharding::Kind::kMaximal: {
      const int64_t d = s.tile_assignment().first();
      if (d < 0) return InvalidArgument("device {} is negative", d);
      if (num_devices > 0 && d >= num_devices) {
        return InvalidArgument("device {} is out of range: the module has {} partitions", d,
                               num_devices);
      }
      return absl::OkStatus();
    }
    case Sharding::Kind::kTuple:
      return InvalidArgument("a tuple sharding on the non-tuple shape {}", shape.ToString());
    case Sharding::Kind::kTiled:
      break;
  }
  const TileAssignment& tiles = s.tile_assignment();
  if (tiles.num_elements() == 1) {
    return InvalidArgument(
        "the tile assignment holds a single device; use {{maximal device={}}} or {{replicated}}",
        tiles.first());
  }
  if (!shape.IsArray()) {
    return InvalidArgument("a tiled sharding on the non-array shape {}", shape.ToString());
  }
  if (s.TiledDataRank() != shape.rank()) {
    return InvalidArgument(
        "the tile assignment has {} data dimensions ({} in all, {} subgroup) but the shape {} has "
        "rank {}",
        s.TiledDataRank(), tiles.num_dimensions(), tiles.num_dimensions() - s.TiledDataRank(),
        shape.ToString(false), shape.rank());
  }
  if (!tiles.is_iota()) {
    absl::flat_hash_set<int64_t> seen;
    for (int64_t d : tiles.devices()) {
      if (d < 0) return InvalidArgument("device {} is negative", d);
      if (num_devices > 0 && d >= num_devices) {
        return InvalidArgument("device {} is out of range: the module has {} partitions", d,
                               num_devices);
      }
      if (!seen.insert(d).second) return InvalidArgument("device {} appears more than once", d);
    }
  }
  if (num_devices > 0 && tiles.num_elements() != num_devices) {
    return InvalidArgument("the tile assignment uses {} devices but the module has {} partitions",
                           tiles.num_elements(), num_devices);
  }
  return absl::OkStatus();
}

// Shardings XLA accepts that spmdc's passes do not implement: refused up front, so that
// propagation and partitioning never meet them.
Status CheckSupported(const Sharding& sharding) {
  for (const Sharding& leaf : sharding.IsTuple() ? sharding.tuple_elements()
                                                 : std::vector<Sharding>{sharding}) {
    if (leaf.IsUnreduced() || leaf.IsUnreducedSubgroup()) {
      return Unimplemented("unreduced sharding {}: spmdc does not propagate or partition "
                           "unreduced values", leaf.ToString(false));
    }
  }
  return absl::OkStatus();
}

}  // namespace

Status ValidateSharding(const Sharding& sharding, const Shape& shape, int64_t num_devices) {
  // A token takes any sharding, a tuple one included (XLA checks this before anything else).
  if (shape.IsToken()) return absl::OkStatus();
  Status status;
  if (sharding.IsTuple()) {
    if (!shape.IsTuple()) {
      status = InvalidArgument("a tuple sharding on the non-tuple shape {}", shape.ToString(false));
    } else {
      std::vector<const Shape*> leaves;
      CollectLeaves(shape, &leaves);
      const auto& elements = sharding.tuple_elements();
      const bool empty_ok = leaves.empty() && elements.size() <= 1;
      if (!empty_ok && elements.size() != leaves.size()) {
        status = InvalidArgument("the tuple sharding has {} elements but the shape has {} leaves",
                                 elements.size(), leaves.size());
      }
      for (size_t i = 0; status.ok() && i < leaves.size(); ++i) {
        status = ValidateLeaf(elements[i], *leaves[i], num_devices);
        if (!status.ok()) {
          status = InvalidArgument("tuple element {} ({}): {}", i, elements[i].ToString(false),
                                   std::string(status.message()));
        }
      }
    }
  } else if (shape.IsTuple()) {
    std::vector<const Shape*> leaves;
    CollectLeaves(shape, &leaves);
    for (size_t i = 0; status.ok() && i < leaves.size(); ++i) {
      status = ValidateLeaf(sharding, *leaves[i], num_devices);
      if (!status.ok()) status = InvalidArgument("tuple leaf {}: {}", i, std::string(status.message()));
    }
  } else {
    status = ValidateLeaf(sharding, shape, num_devices);
  }
  if (status.ok()) return status;
  return InvalidArgument("invalid sharding {} for shape {}: {}", sharding.ToString(false),
                         shape.ToString(false), std::string(status.message()));
}

Status VerifyModuleShardings(const Module& module, const DiagnosticSource* source,
                             std::optional<int64_t> num_devices) {
  int64_t devices = -1;
  if (num_devices) {
    devices = *num_devices;
  } else if (module.config().Get<int64_t>(AttrId::kNumPartitions) != nullptr) {
    devices = module.num_partitions();
  }
  for (const Computation* comp : module.computations()) {
    for (const Instruction* instr : comp->instructions()) {
      if (!instr->has_sharding()) continue;
      // An outfeed (token-shaped) may carry a tuple sharding over (operand, token), as in XLA.
      Shape shape = instr->shape();
      if (instr->opcode() == Opcode::kOutfeed && instr->sharding()->IsTuple()) {
        std::vector<Shape> operands;
        for (const Instruction* op : instr->operands()) operands.push_back(op->shape());
        shape = Shape::Tuple(std::move(operands));
      }
      Status status = ValidateSharding(*instr->sharding(), shape, devices);
      if (status.ok()) status = CheckSupported(*instr->sharding());
      if (status.ok()) continue;
      std::string message = fmt::format("instruction '{}': {}", instr->name(), std::string(status.message()));
      // Keep the code: bad input (exit 2) or a valid sharding spmdc cannot handle (exit 3).
      if (source != nullptr) {
        return absl::Status(status.code(), FormatDiagnostic(source->filename, source->text,
                                                            instr->location(), message));
      }
      return absl::Status(status.code(), message);
    }
  }
  return absl::OkStatus();
}

}  // namespace spmdc
