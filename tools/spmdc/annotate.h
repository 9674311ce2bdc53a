// Command-line annotations: --mesh data=2,model=4 and --shard NAME=SPEC, applied to a parsed
// module before any pass. SPEC is a PartitionSpec over the mesh ("[data, None]",
// "[(data,model), None]") or a sharding in HLO text ("{devices=[2,1]<=[2]}").
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "ir/module.h"
#include "sharding/mesh.h"
#include "support/status.h"

namespace spmdc::cli {

struct Annotations {
  std::optional<Mesh> mesh;
  std::vector<std::string> shards;  // "NAME=SPEC"
};

// Parses --mesh (if any); errors are usage errors (InvalidArgument).
StatusOr<Annotations> ParseAnnotations(const std::optional<std::string>& mesh,
                                       const std::vector<std::string>& shards);
// Sets the named instructions' shardings; sets num_partitions from the mesh when the module has
// none, and refuses a mesh whose device count disagrees with the module's num_partitions.
Status ApplyAnnotations(const Annotations& annotations, Module& module);

}  // namespace spmdc::cli
