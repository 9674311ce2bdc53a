// `run` and `verify` never run out of memory: before they allocate their inputs they estimate
// what this process will hold with the cost model (src/cost's liveness estimate of the
// one-device program and of the per-device program, the N devices' peaks summed since they are
// threads of this process, plus the host values: inputs, the reference's outputs, the assembled
// result) and refuse with exit 3, "needs X GiB, this machine has Y GiB available", when it is
// more than this process may still allocate (runtime/host_memory.h, or --memory-limit).
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <optional>
#include <string>

#include "ir/module.h"
#include "support/status.h"

namespace spmdc::cli {

// a + b, saturating at INT64_MAX (a module may declare values far larger than memory, which is
// what gets refused; a sum of them must not wrap round to a small number). Negative: INT64_MAX.
int64_t AddBytes(int64_t a, int64_t b);

// --memory-limit BYTES: lowers the memory run/verify may use below what the machine has.
void AddMemoryLimit(CLI::App* app, std::optional<int64_t>& limit);

// Bytes of the host values MakeArguments makes for `module`'s entry parameters: full arrays, a
// manual leaf one value per manual group (with num_partitions > 0).
int64_t HostArgumentBytes(const Module& module, int64_t num_partitions);

// What a one-device run of `module` holds beyond its arguments (`groups` > 0: run group by
// group, the groups' results stacked), and its result's bytes.
struct OneDeviceFootprint {
  int64_t temporaries = 0;  // its peak minus the arguments live there (they are the host's)
  int64_t outputs = 0;      // its result, kept by verify while the devices run
};
OneDeviceFootprint EstimateOneDevice(const Module& module, int64_t groups = 0);

// What running a per-device program on n devices (x its replicas) holds: every device's peak
// (its argument shards, values, temporaries) summed, and the result assembled on the host
// from `global_result`'s shape.
int64_t EstimateDevices(const Module& per_device, int64_t n, const Shape& global_result);

// Refuses (Unimplemented, exit 3) when `needed` bytes, plus headroom for the allocator, thread
// stacks and the module itself (10% + 64 MiB), exceed what this process may allocate; `what`
// ("verify on 8 devices") and `breakdown` go into the message. When it fits, the allocator is
// told to return freed memory at once, so that the process stays within the estimate.
Status CheckMemory(const std::string& what, int64_t needed, const std::string& breakdown,
                   const std::optional<int64_t>& memory_limit);

// "1.25 GiB"
std::string GiB(double bytes);
// "512 KiB", "12.5 MiB", "1.25 GiB"
std::string Size(double bytes);

}  // namespace spmdc::cli
