#include "annotate.h"

#include "fmt/format.h"
#include "sharding/sharding_text.h"
#include "sharding/validation.h"

namespace spmdc::cli {

StatusOr<Annotations> ParseAnnotations(const std::optional<std::string>& mesh,
                                       const std::vector<std::string>& shards) {
  Annotations a;
  if (mesh) {
    StatusOr<Mesh> m = Mesh::Parse(*mesh);
    if (!m.ok()) return InvalidArgument("--mesh '{}': {}", *mesh, m.status().message());
    a.mesh = *m;
  }
  a.shards = shards;
  return a;
}

Status ApplyAnnotations(const Annotations& a, Module& module) {
  if (a.mesh) {
    int64_t n = a.mesh->num_devices();
    const int64_t* given = module.config().Get<int64_t>(AttrId::kNumPartitions);
    if (given && *given != n && *given != 1) {
      return InvalidArgument("--mesh {} has {} devices but the module has num_partitions={}",
                             a.mesh->ToString(), n, *given);
    }
    module.set_num_partitions(n);
  }
  for (const std::string& item : a.shards) {
    size_t eq = item.find('=');
    if (eq == std::string::npos || eq == 0)
      return InvalidArgument("--shard '{}': expected NAME=SPEC", item);
    std::string name = item.substr(0, eq);
    if (!name.empty() && name[0] == '%') name = name.substr(1);
    std::string spec = item.substr(eq + 1);
    Instruction* target = nullptr;
    for (Computation* c : module.computations())
      for (Instruction* i : c->instructions())
        if (i->name() == name) target = i;
    if (!target) return InvalidArgument("--shard '{}': no instruction named '{}'", item, name);
    Sharding sharding;
    if (!spec.empty() && spec[0] == '{') {
      size_t offset = 0;
      StatusOr<Sharding> s = ParseSharding(spec, &offset);
      if (!s.ok()) return InvalidArgument("--shard '{}': {} (at offset {})", item, s.status().message(), offset);
      sharding = *s;
    } else {
      if (!a.mesh) return InvalidArgument("--shard '{}': a PartitionSpec needs --mesh", item);
      StatusOr<PartitionSpec> ps = ParsePartitionSpec(spec);
      if (!ps.ok()) return InvalidArgument("--shard '{}': {}", item, ps.status().message());
      if (target->shape().IsArray() && static_cast<int64_t>(ps->size()) != target->shape().rank()) {
        return InvalidArgument("--shard '{}': spec has {} dims but %{} is {}", item, ps->size(), name,
                               target->shape().ToString(false));
      }
      StatusOr<Sharding> s = ShardingFromSpec(*a.mesh, *ps);
      if (!s.ok()) return InvalidArgument("--shard '{}': {}", item, s.status().message());
      sharding = *s;
    }
    // As for shardings written in the module: without num_partitions in the header (or from
    // --mesh / --num-partitions) the device count is unknown and only the ids' form is checked.
    const bool count_known = module.config().Get<int64_t>(AttrId::kNumPartitions) != nullptr;
    Status valid = ValidateSharding(sharding, target->shape(), count_known ? module.num_partitions() : -1);
    if (!valid.ok()) return InvalidArgument("--shard '{}': {}", item, valid.message());
    target->set_sharding(std::make_shared<const Sharding>(sharding));
  }
  return absl::OkStatus();
}

}  // namespace spmdc::cli
