// Collectives: bytes per device, bytes on the wire under the modelled algorithm, the mesh axes
// their replica groups span, and α–β time on the hardware profile's links; also loop trip counts
// and how often each computation runs.
//
// Algorithms (n devices per group, B the bytes a device contributes):
//   all-reduce          ring: 2(n-1) steps, 2(n-1)/n·B sent; tree (reduce + broadcast on a
//                       binary tree): 2⌈log2 n⌉ steps, 2B sent; the faster one is timed, the
//                       ring's bytes are reported (what bandwidth-bound runs send)
//   all-gather          ring: n-1 steps, (n-1)/n·B_full sent (B_full = n·B, the result)
//   reduce-scatter      ring: n-1 steps, (n-1)/n·B sent (B = the full operand)
//   all-to-all          pairwise: n-1 steps, (n-1)/n·B sent
//   collective-permute  one step, B sent
//   collective-broadcast pipelined ring: n-1 steps, B sent
// Replica groups and permute pairs are read as XLA (and the runtime) reads them, by
// ir/collective_groups.h.
#include <algorithm>
#include <cmath>

#include "absl/container/flat_hash_map.h"
#include "cost/internal.h"
#include "ir/collective_groups.h"
#include "sharding/sharding.h"

namespace spmdc {

using namespace cost_internal;

namespace {

// The groups of global device ids of a collective (ir/collective_groups.h); a
// collective-permute's pairs, one group each. Empty when the groups are not valid for R x P
// (CheckCollectiveGroups refuses such modules before they are priced).
std::vector<std::vector<int64_t>> GroupsToPrice(const Instruction& instr, bool permute, int64_t P, int64_t R) {
  std::vector<std::vector<int64_t>> out;
  if (permute) {
    StatusOr<std::vector<std::pair<int64_t, int64_t>>> pairs = GlobalPermutePairs(instr, R, P);
    if (pairs.ok())
      for (const auto& [s, t] : *pairs) out.push_back({s, t});
    return out;
  }
  StatusOr<std::vector<std::vector<int64_t>>> groups = GlobalDeviceGroups(instr, R, P);
  if (groups.ok()) out = *std::move(groups);
  return out;
}

std::string DevicesText(const std::vector<int64_t>& ids) {
  std::string s = "devices{";
  for (size_t i = 0; i < ids.size() && i < 8; ++i) s += fmt::format("{}{}", i ? "," : "", ids[i]);
  if (ids.size() > 8) s += fmt::format(",...({} devices)", ids.size());
  return s + "}";
}

// Maps groups of device ids onto mesh axes: the axes along which members differ, when every
// group is exactly the slice of the mesh along those axes (pairs: the axes they differ along).
class AxisMapper {
 public:
  explicit AxisMapper(const std::optional<Mesh>& mesh) : mesh_(mesh) {
    if (!mesh_) return;
    const TileAssignment& d = mesh_->devices();
    coords_.assign(d.num_elements(), {});
    d.Each([&](std::span<const int64_t> index, int64_t device) {
      if (device >= 0 && device < static_cast<int64_t>(coords_.size())) coords_[device].assign(index.begin(), index.end());
    });
  }

  // Sets axes/mesh_axes of `c` from its groups.
  void Map(const std::vector<std::vector<int64_t>>& groups, bool pairs, CollectiveCost& c) const {
    if (groups.empty()) return;
    if (!mesh_) {
      c.axes = DevicesText(groups.front());
      return;
    }
    const int64_t rank = mesh_->num_axes();
    std::vector<bool> varying(rank, false);
    bool ok = true;
    for (const auto& g : groups) {
      for (int64_t d : g) {
        if (d < 0 || d >= static_cast<int64_t>(coords_.size()) || coords_[d].empty()) { ok = false; break; }
        for (int64_t a = 0; a < rank; ++a) varying[a] = varying[a] || coords_[d][a] != coords_[g.front()][a];
      }
      if (!ok) break;
    }
    int64_t slice = 1;
    for (int64_t a = 0; a < rank; ++a) slice *= varying[a] ? mesh_->axes()[a].size : 1;
    if (ok && !pairs) {
      for (const auto& g : groups) ok &= static_cast<int64_t>(g.size()) == slice;
    }
    if (!ok) {
      c.axes = DevicesText(groups.front());
      return;
    }
    for (int64_t a = 0; a < rank; ++a)
      if (varying[a]) c.mesh_axes.push_back(mesh_->axes()[a].name);
    c.axes = c.mesh_axes.empty() ? "none" : fmt::format("{}", fmt::join(c.mesh_axes, ","));
  }

 private:
  const std::optional<Mesh>& mesh_;
  std::vector<std::vector<int64_t>> coords_;
};

Opcode SyncOpcode(Opcode op) {
  switch (op) {
    case Opcode::kAllReduceStart: return Opcode::kAllReduce;
    case Opcode::kAllGatherStart: return Opcode::kAllGather;
    case Opcode::kCollectivePermuteStart: return Opcode::kCollectivePermute;
    default: return op;
  }
}

// Operand bytes of a collective (async starts: their operands; ragged all-to-all: its input).
int64_t ContributedBytes(const Instruction& instr, const CostOptions& options) {
  if (instr.opcode() == Opcode::kRaggedAllToAll) return OperandBytes(instr, 0, options);
  int64_t b = 0;
  for (int64_t k = 0; k < instr.operand_count(); ++k)
    if (instr.operand(k)->shape().IsArray() || instr.operand(k)->shape().IsTuple()) b += OperandBytes(instr, k, options);
  return b;
}

int64_t ParseKnownTripCount(const std::string& config) {
  size_t k = config.find("known_trip_count");
  if (k == std::string::npos) return -1;
  size_t n = config.find("\"n\"", k);
  if (n == std::string::npos) return -1;
  size_t i = n + 3;
  while (i < config.size() && !std::isdigit(static_cast<unsigned char>(config[i]))) {
    if (config[i] == '}') return -1;
    ++i;
  }
  size_t j = i;
  while (j < config.size() && std::isdigit(static_cast<unsigned char>(config[j]))) ++j;
  return j > i ? std::atoll(config.substr(i, j - i).c_str()) : -1;
}

std::optional<int64_t> ScalarIntConstant(const Instruction* i) {
  if (i == nullptr || i->opcode() != Opcode::kConstant || i->literal() == nullptr) return std::nullopt;
  const Literal& l = *i->literal();
  if (!l.shape().IsArray() || l.num_elements() != 1 || !IsInteger(l.shape().dtype())) return std::nullopt;
  return l.GetInt(0);
}

}  // namespace

std::optional<int64_t> KnownTripCount(const Instruction& w) {
  if (w.opcode() != Opcode::kWhile) return std::nullopt;
  if (const std::string* cfg = w.attr<std::string>(AttrId::kBackendConfig)) {
    int64_t n = ParseKnownTripCount(*cfg);
    if (n >= 0) return n;
  }
  // for (i = start; i < limit; i += 1): cond root compare(gte(param, k), constant) LT, init
  // tuple operand k a constant, body root tuple operand k = add(gte(param, k), constant 1).
  const Computation* cond = w.computation_attr(AttrId::kCondition);
  const Computation* body = w.computation_attr(AttrId::kBody);
  if (!cond || !body || !cond->root() || !body->root() || w.operand_count() != 1) return std::nullopt;
  const Instruction* cmp = cond->root();
  if (cmp->opcode() != Opcode::kCompare || cmp->string_attr(AttrId::kDirection) != "LT") return std::nullopt;
  const Instruction* gte = cmp->operand(0);
  std::optional<int64_t> limit = ScalarIntConstant(cmp->operand(1));
  if (gte->opcode() != Opcode::kGetTupleElement || gte->operand(0)->opcode() != Opcode::kParameter || !limit)
    return std::nullopt;
  const int64_t k = gte->tuple_index();
  const Instruction* init = w.operand(0);
  if (init->opcode() != Opcode::kTuple || k >= init->operand_count()) return std::nullopt;
  std::optional<int64_t> start = ScalarIntConstant(init->operand(k));
  const Instruction* next = body->root();
  if (!start || next->opcode() != Opcode::kTuple || k >= next->operand_count()) return std::nullopt;
  const Instruction* add = next->operand(k);
  if (add->opcode() != Opcode::kAdd) return std::nullopt;
  bool step_one = false;
  for (int64_t s = 0; s < 2; ++s) {
    const Instruction* a = add->operand(s);
    const Instruction* b = add->operand(1 - s);
    step_one |= a->opcode() == Opcode::kGetTupleElement && a->tuple_index() == k &&
                a->operand(0)->opcode() == Opcode::kParameter && ScalarIntConstant(b) == 1;
  }
  if (!step_one) return std::nullopt;
  return std::max<int64_t>(0, *limit - *start);
}

namespace cost_internal {

absl::flat_hash_map<const Computation*, int64_t> ExecutionCounts(const Module& module,
                                                                 std::vector<std::string>* warnings) {
  absl::flat_hash_map<const Computation*, int64_t> count;
  if (module.entry() == nullptr) return count;
  count[module.entry()] = 1;
  std::vector<Computation*> order = module.MakeComputationPostOrder();
  for (auto it = order.rbegin(); it != order.rend(); ++it) {  // callers before callees
    const int64_t mine = count.contains(*it) ? count[*it] : 0;
    if (mine == 0) continue;
    for (const Instruction* i : (*it)->instructions()) {
      switch (i->opcode()) {
        case Opcode::kWhile: {
          std::optional<int64_t> trips = KnownTripCount(*i);
          if (!trips && warnings)
            warnings->push_back(fmt::format("while %{}: trip count unknown, its body is counted once", i->name()));
          const int64_t t = trips.value_or(1);
          if (const Computation* b = i->computation_attr(AttrId::kBody)) count[b] += mine * t;
          if (const Computation* c = i->computation_attr(AttrId::kCondition)) count[c] += mine * (t + 1);
          break;
        }
        case Opcode::kCall: case Opcode::kConditional: case Opcode::kAsyncStart:
          for (const Computation* c : i->called_computations()) count[c] += mine;
          break;
        default: break;
      }
    }
  }
  return count;
}

}  // namespace cost_internal

std::optional<Mesh> MeshForCollectives(const Module& module, const CostOptions& options) {
  if (options.mesh) return options.mesh;
  const int64_t P = options.num_partitions > 0 ? options.num_partitions : module.num_partitions();
  // The tile assignment with the most non-trivial dims over all P devices; a plain iota first.
  const TileAssignment* best = nullptr;
  int64_t best_dims = 0;
  bool best_plain = false;
  auto consider = [&](const Sharding& s) {
    if (!s.IsTiled()) return;
    const TileAssignment& t = s.tile_assignment();
    if (t.num_elements() != P) return;
    int64_t dims = 0;
    for (int64_t d : t.dims()) dims += d > 1;
    bool plain = t.is_iota() && t.reshape_dims().size() <= 1;
    if (dims > best_dims || (dims == best_dims && plain && !best_plain)) {
      best = &t;
      best_dims = dims;
      best_plain = plain;
    }
  };
  for (const Computation* c : module.computations())
    for (const Instruction* i : c->instructions()) {
      if (!i->has_sharding()) continue;
      if (i->sharding()->IsTuple()) {
        for (const Sharding& e : i->sharding()->tuple_elements()) consider(e);
      } else {
        consider(*i->sharding());
      }
    }
  if (best == nullptr || best_dims == 0) return std::nullopt;
  std::vector<Mesh::Axis> axes;
  for (int64_t d : best->dims())
    if (d > 1) axes.push_back({fmt::format("axis{}", axes.size()), d});
  StatusOr<Mesh> mesh = Mesh::Create(axes, best->devices());
  if (!mesh.ok()) return std::nullopt;
  return *mesh;
}

CollectiveAlgorithm ModelledAlgorithm(Opcode kind, int64_t n, int64_t bytes_per_device) {
  const double B = static_cast<double>(bytes_per_device);
  const double frac = n > 0 ? static_cast<double>(n - 1) / n : 0.0;
  switch (SyncOpcode(kind)) {
    case Opcode::kAllReduce: return {"ring", 2 * (n - 1), 2 * frac * B};
    case Opcode::kAllGather: return {"ring", n - 1, frac * B * n};  // (n-1)/n of the gathered result
    case Opcode::kReduceScatter: return {"ring", n - 1, frac * B};
    case Opcode::kAllToAll: case Opcode::kRaggedAllToAll: return {"pairwise", n - 1, frac * B};
    case Opcode::kCollectivePermute: return {"permute", 1, B};
    case Opcode::kCollectiveBroadcast: return {"ring", n - 1, n > 1 ? B : 0.0};
    default: return {"", 0, 0.0};
  }
}

namespace {

// One collective's seconds on `link` under `algorithm`; an all-reduce of more than two devices
// takes the tree (reduce + broadcast) instead when that is faster (*tree_steps then set).
double TimedCollective(const HardwareProfile::Link& link, const std::string& kind, Opcode sync, int64_t n,
                       int64_t B, const CollectiveAlgorithm& algorithm, int64_t* tree_steps) {
  const HardwareProfile::Link::Figures f = link.FiguresFor(kind);
  double seconds = f.latency * algorithm.steps + algorithm.wire_bytes / f.bandwidth;
  if (sync == Opcode::kAllReduce && n > 2) {
    const int64_t steps = 2 * static_cast<int64_t>(std::ceil(std::log2(static_cast<double>(n))));
    const double tree = f.latency * steps + 2.0 * B / f.bandwidth;
    if (tree < seconds) {
      seconds = tree;
      *tree_steps = steps;
    }
  }
  return seconds;
}

}  // namespace

double CollectiveSeconds(const HardwareProfile::Link& link, Opcode kind, int64_t n, int64_t bytes_per_device) {
  if (n <= 1) return 0;
  const CollectiveAlgorithm algorithm = ModelledAlgorithm(kind, n, bytes_per_device);
  if (algorithm.steps <= 0) return 0;
  int64_t tree_steps = 0;
  return TimedCollective(link, std::string(OpcodeName(kind)), kind, n, bytes_per_device, algorithm, &tree_steps);
}

std::vector<CollectiveCost> AnalyzeCollectives(const Module& module, const CostOptions& options,
                                               const HardwareProfile* hardware) {
  std::vector<CollectiveCost> out;
  const int64_t P = options.num_partitions > 0 ? options.num_partitions : module.num_partitions();
  const int64_t R = std::max<int64_t>(1, module.replica_count());
  std::optional<Mesh> mesh = MeshForCollectives(module, options);
  if (mesh && mesh->num_devices() != P * R) mesh.reset();
  AxisMapper mapper(mesh);
  auto counts = ExecutionCounts(module, nullptr);
  for (Computation* comp : module.MakeComputationPostOrder()) {
    auto cit = counts.find(comp);
    if (cit == counts.end()) continue;  // not executed (reducers, fused bodies, dead code)
    for (const Instruction* instr : ScheduleOf(*comp)) {
      if (!IsCollectiveOpcode(instr->opcode())) continue;
      CollectiveCost c;
      c.instr = instr;
      c.name = instr->name();
      const Opcode sync = SyncOpcode(instr->opcode());
      c.kind = std::string(OpcodeName(sync));
      c.async = sync != instr->opcode();
      c.executions = cit->second;
      c.source = SourceInfoOf(*instr);
      const bool permute = sync == Opcode::kCollectivePermute;
      std::vector<std::vector<int64_t>> groups = GroupsToPrice(*instr, permute, P, R);
      if (permute) {
        std::vector<int64_t> devices;
        for (const auto& g : groups) devices.insert(devices.end(), g.begin(), g.end());
        std::sort(devices.begin(), devices.end());
        devices.erase(std::unique(devices.begin(), devices.end()), devices.end());
        c.group_size = static_cast<int64_t>(devices.size());
        c.num_groups = static_cast<int64_t>(groups.size());
      } else {
        c.group_size = groups.empty() ? 1 : static_cast<int64_t>(groups.front().size());
        c.num_groups = static_cast<int64_t>(groups.size());
      }
      mapper.Map(groups, permute, c);
      const int64_t n = c.group_size;
      c.bytes_per_device = ContributedBytes(*instr, options);
      const int64_t B = c.bytes_per_device;
      CollectiveAlgorithm algorithm = ModelledAlgorithm(sync, n, B);
      if (permute && groups.empty()) algorithm = {"permute", 0, 0.0};
      if (n <= 1 && !permute) algorithm.steps = 0, algorithm.wire_bytes = 0;
      c.algorithm = algorithm.name;
      c.wire_bytes_per_device = static_cast<int64_t>(std::llround(algorithm.wire_bytes));
      c.steps = algorithm.steps;
      if (hardware && !hardware->links.empty() && c.steps > 0) {
        const HardwareProfile::Link& link = hardware->LinkFor(groups);
        c.link = link.name;
        int64_t tree_steps = 0;
        c.seconds = TimedCollective(link, c.kind, sync, n, B, algorithm, &tree_steps);
        if (tree_steps > 0) {
          c.algorithm = "tree";
          c.steps = tree_steps;
        }
      }
      out.push_back(std::move(c));
    }
  }
  return out;
}

}  // namespace spmdc
