#include "memory_guard.h"

#include <algorithm>
#include <functional>

#include "cost/cost.h"
#include "fmt/format.h"
#include "options.h"
#include "runtime/host_memory.h"

// tcmalloc's C interface, when the executable is linked with it (CMakeLists.txt,
// SPMDC_TCMALLOC); null otherwise.
extern "C" int MallocExtension_SetNumericProperty(const char* property, size_t value)
    __attribute__((weak));

namespace spmdc::cli {
namespace {

int64_t Mul(int64_t a, int64_t b) {
  if (a < 0 || b < 0) return INT64_MAX;
  return b != 0 && a > INT64_MAX / b ? INT64_MAX : a * b;
}

int64_t ArrayBytes(const Shape& shape) {
  if (shape.IsTuple()) {
    int64_t sum = 0;
    for (const Shape& e : shape.tuple_shapes()) sum = AddBytes(sum, ArrayBytes(e));
    return sum;
  }
  return shape.IsArray() ? shape.byte_size() : 0;
}

// Scratch the interpreter's dot and convolution kernels allocate outside the values the cost
// model counts (kernels/dot.cc: operands packed as f32, or as 64-bit integers for integer dots,
// and the result accumulated in f32; oneDNN's reorders are of the same order): the largest
// over the module's dots and convolutions, at most one of which runs at a time on a device.
int64_t KernelScratch(const Module& module) {
  int64_t largest = 0;
  for (const Computation* c : module.computations()) {
    for (const Instruction* i : c->instructions()) {
      if (i->opcode() != Opcode::kDot && i->opcode() != Opcode::kConvolution) continue;
      if (!i->shape().IsArray()) continue;
      int64_t elements = i->shape().num_elements();
      for (const Instruction* o : i->operands())
        if (o->shape().IsArray()) elements = AddBytes(elements, o->shape().num_elements());
      const DType t = i->shape().dtype();
      const int64_t per_element = IsInteger(t) || t == DType::kPred ? 16
                                  : DTypeByteSize(t) > 4            ? 8
                                                                    : 4;
      largest = std::max(largest, Mul(elements, per_element));
    }
  }
  return largest;
}

}  // namespace

int64_t AddBytes(int64_t a, int64_t b) {
  if (a < 0 || b < 0) return INT64_MAX;
  return a > INT64_MAX - b ? INT64_MAX : a + b;
}

void AddMemoryLimit(CLI::App* app, std::optional<int64_t>& limit) {
  app->add_option(
         "--memory-limit", limit,
         "use at most this much memory (default: what the machine has available: /proc/meminfo "
         "MemAvailable or the cgroup's limit, whichever is smaller), e.g. 4GiB")
      ->type_name("BYTES")
      ->transform(ByteSize());
}

int64_t HostArgumentBytes(const Module& module, int64_t num_partitions) {
  const Computation* entry = module.entry();
  int64_t total = 0;
  for (int64_t p = 0; p < entry->num_parameters(); ++p) {
    const Instruction* param = entry->parameter(p);
    std::vector<const Shape*> leaves;
    std::function<void(const Shape&)> walk = [&](const Shape& s) {
      if (s.IsTuple()) {
        for (const Shape& e : s.tuple_shapes()) walk(e);
      } else {
        leaves.push_back(&s);
      }
    };
    walk(param->shape());
    std::vector<Sharding> shardings;
    if (param->has_sharding()) {
      Sharding s = param->sharding()->NormalizeTupleSharding(param->shape());
      shardings = s.IsTuple() ? s.tuple_elements() : std::vector<Sharding>{s};
    }
    for (size_t k = 0; k < leaves.size(); ++k) {
      if (!leaves[k]->IsArray()) continue;
      int64_t copies = 1;
      if (num_partitions > 0 && k < shardings.size()) {
        const Sharding& s = shardings[k];
        if (s.IsManual())
          copies = num_partitions;
        else if (s.IsManualSubgroup())
          copies = s.tile_assignment().dim(s.SubgroupManualDim());
      }
      total = AddBytes(total, Mul(leaves[k]->byte_size(), copies));
    }
  }
  return total;
}

OneDeviceFootprint EstimateOneDevice(const Module& module, int64_t groups) {
  CostOptions options;
  options.partitioned = true;  // one device: every value at its full shape
  options.num_partitions = 1;
  options.top_values = 0;
  MemoryEstimate m = EstimateMemory(module, options);
  m.temporary_peak_bytes = AddBytes(m.temporary_peak_bytes, KernelScratch(module));
  OneDeviceFootprint f;
  const int64_t outputs = ArrayBytes(module.entry()->root()->shape());
  f.outputs = groups > 0 ? Mul(outputs, groups) : outputs;
  // Group by group, the finished groups' results wait to be stacked, then the stack is made.
  f.temporaries =
      groups > 0 ? AddBytes(m.temporary_peak_bytes, Mul(f.outputs, 2)) : m.temporary_peak_bytes;
  return f;
}

int64_t EstimateDevices(const Module& per_device, int64_t n, const Shape& global_result) {
  CostOptions options;
  options.partitioned = true;
  options.num_partitions = n;
  options.top_values = 0;
  MemoryEstimate m = EstimateMemory(per_device, options);
  const int64_t devices = Mul(n, std::max<int64_t>(1, per_device.replica_count()));
  return AddBytes(Mul(AddBytes(m.peak_bytes, KernelScratch(per_device)), devices),
                  ArrayBytes(global_result));
}

std::string GiB(double bytes) {
  return fmt::format("{:.2f} GiB", bytes / (1024.0 * 1024.0 * 1024.0));
}

std::string Size(double bytes) {
  if (bytes < 1024.0 * 1024.0) return fmt::format("{:.0f} KiB", bytes / 1024.0);
  if (bytes < 1024.0 * 1024.0 * 1024.0) return fmt::format("{:.1f} MiB", bytes / (1024.0 * 1024.0));
  return GiB(bytes);
}

Status CheckMemory(const std::string& what, int64_t needed, const std::string& breakdown,
                   const std::optional<int64_t>& memory_limit) {
  // The estimate counts the values the interpreter holds; the allocator's slack, the kernels'
  // scratch (packed dot operands), thread stacks and the module itself are the headroom.
  const double with_headroom = static_cast<double>(needed) * 1.10 + 64.0 * 1024 * 1024;
  HostMemory host = QueryHostMemory();
  double available = static_cast<double>(host.available_bytes);
  const bool limited = memory_limit && static_cast<double>(*memory_limit) < available;
  if (limited) available = static_cast<double>(*memory_limit);
  if (with_headroom <= available) {
    // tcmalloc keeps freed pages for reuse; a device's freed values would then stay resident
    // while another device allocates, and the process would outgrow the estimate (by ~20% on
    // four devices). Returned at once, the resident size follows the live values.
    if (MallocExtension_SetNumericProperty)
      MallocExtension_SetNumericProperty("tcmalloc.aggressive_memory_decommit", 1);
    return absl::OkStatus();
  }
  return Unimplemented(
      "{} needs {}, this machine has {} available{} ({}; with 10% + 64 MiB headroom)", what,
      GiB(with_headroom), GiB(available), limited ? " (--memory-limit)" : "", breakdown);
}

}  // namespace spmdc::cli
