// Hardware profiles for the cost model: per-device compute, memory and interconnect figures of a
// system, read from JSON data files (hardware/*.json at the repository root), never compiled in.
//
// Every figure in a file is an object {"value": V, "source": "where V comes from"}, so that a
// reader can check each number against its vendor document. Links are ordered innermost first:
// a link with domain_devices = K connects devices whose ids agree after division by K (an
// 8-GPU NVLink node); domain_devices = 0 reaches every device (InfiniBand, a TPU slice's ICI).
// A link may also carry "collectives": {"all-reduce": {"bandwidth_bytes_per_second": FIGURE,
// "latency_seconds": FIGURE}, ...}, figures per collective kind that override the link's own
// (the measured cpu-local profile has them; vendor profiles publish one figure per link).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ir/dtype.h"
#include "support/status.h"

namespace spmdc {

struct HardwareProfile {
  struct Link {
    struct Figures {
      double bandwidth = 0;  // bytes/s each way per device, for a ring over this link
      double latency = 0;    // seconds per algorithm step
    };
    std::string name;
    int64_t domain_devices = 0;  // 0: every device
    double bandwidth = 0;        // bytes/s each way per device, for a ring over this link
    double latency = 0;          // seconds per algorithm step
    // Per collective kind (the synchronous opcode name, "all-reduce", ...), where measured
    // (`spmdc calibrate` fits α and β for each kind): a kind absent here uses the link's own.
    std::map<std::string, Figures> collectives;
    Figures FiguresFor(const std::string& kind) const;
  };
  std::string name;
  std::string description;
  std::string path;                              // the file it was read from
  std::map<std::string, double> matmul_flops;    // dtype name ("bf16", "f32", ...) -> FLOP/s
  std::optional<double> vector_flops;            // FLOP/s of elementwise work, when published
  // Transcendental function evaluations per second (exp, tanh, ...), when they have their own
  // rate ("transcendentals_per_second"): absent, they count as weighted FLOPs at vector_flops.
  std::optional<double> transcendental_rate;
  double hbm_bytes = 0;
  double hbm_bandwidth = 0;                      // bytes/s
  std::vector<Link> links;                       // innermost first
  // Fixed seconds every executed instruction costs beyond its roofline (dispatch, kernel
  // launch), and what a dot or convolution adds to that (kernel set-up). Optional in the file
  // ("op_overhead_seconds", "dot_overhead_seconds"), 0 when absent: the vendor profiles leave
  // them out (XLA fuses ops and queues launches ahead of the kernels), the calibrated cpu-local
  // profile measures them (the interpreter runs every instruction on its own).
  double op_overhead = 0;
  double dot_overhead = 0;
  // Hockney's half-performance length n½ of the matmul kernels ("matmul_half_size"): a dot
  // whose smallest dimension (of its per-device M, N, K) is m runs at matmul_flops·m/(m + n½),
  // so that small and skinny dots are slower per FLOP than large ones, as on every real kernel
  // library. 0 (absent): every dot at the peak rate, as the vendor profiles state it.
  double matmul_half_size = 0;
  // Once per step for each distinct dot/convolution (its operand shapes and dimension numbers)
  // of a computation: kernel set-up that is cached within a step but not across steps
  // ("dot_setup_seconds"; the interpreter's per-thread oneDNN primitives). 0 when absent.
  double dot_setup = 0;

  // FLOP/s of a dot/convolution whose result has `type` (f16/bf16 use their entries; f32 and
  // anything unlisted fall back to f32, then to the largest listed rate).
  double MatmulFlops(DType type) const;
  // FLOP/s of elementwise and reduction work: vector_flops, or the f32 matmul rate when the
  // vendor does not publish one (optimistic; such ops are memory-bound on every listed system).
  double VectorFlops() const;
  // The innermost link whose domain holds every device of every group (device ids).
  const Link& LinkFor(const std::vector<std::vector<int64_t>>& groups) const;
};

// Parses a profile; `filename` names it in errors (InvalidArgument, with the JSON position).
StatusOr<HardwareProfile> ParseHardwareProfile(std::string_view json, std::string_view filename);

// Folders searched for NAME.json, in order: `extra_dir` (when not empty), $SPMDC_HARDWARE_DIR,
// <folder of the running binary>/hardware, <binary>/../share/spmdc/hardware and the source
// tree's hardware/ folder (compiled in).
std::vector<std::string> HardwareSearchDirs(const std::string& extra_dir = "");
// Profile names (file stems) found in those folders, sorted, without duplicates.
std::vector<std::string> ListHardwareProfiles(const std::string& extra_dir = "");
// `name_or_path` is a profile name or a path to a .json file. Unknown names are InvalidArgument
// listing the known ones; "cpu-local" that was never calibrated says so.
StatusOr<HardwareProfile> LoadHardwareProfile(const std::string& name_or_path,
                                              const std::string& extra_dir = "");

}  // namespace spmdc
