// spmdc calibrate [-o OUT] [--quick]: measures this machine's in-process backend
// (runtime/calibration.h, the one calibration bench/cost_model_bench also uses) and writes the
// `cpu-local` hardware profile that `report --hardware cpu-local` reads.
#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include <algorithm>
#include <thread>

#include "commands.h"
#include "runtime/calibration.h"

namespace spmdc::cli {

namespace {

// Where `report --hardware cpu-local` looks first among the folders a build owns
// (cost/hardware.h HardwareSearchDirs): $SPMDC_HARDWARE_DIR, else the binary's hardware/.
std::string DefaultProfilePath() {
  if (const char* env = std::getenv("SPMDC_HARDWARE_DIR"); env && *env)
    return std::string(env) + "/cpu-local.json";
  std::error_code ec;
  std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  return (ec ? std::filesystem::path("hardware") : exe.parent_path() / "hardware") /
         "cpu-local.json";
}

}  // namespace

Command AddCalibrateCommand(CLI::App& root) {
  CLI::App* app = root.add_subcommand(
      "calibrate",
      "measure this machine's in-process backend; write the cpu-local hardware profile");
  struct Args {
    std::string out;
    bool quick = false;
    int64_t devices = 0;
    double time_limit = 60;
    std::string clock = "wall";
  };
  auto args = std::make_shared<Args>();
  app->add_option("-o,--output", args->out,
                  "where to write the profile (default: $SPMDC_HARDWARE_DIR/cpu-local.json, else "
                  "hardware/ next "
                  "to the spmdc binary, where --hardware cpu-local finds it; '-': standard output)")
      ->type_name("OUT");
  app->add_flag("--quick", args->quick, "fewer and smaller measurements, about 5 s (for tests)");
  app->add_option("--devices", args->devices,
                  "devices running at once while measuring (default: the machine's cores, 2 to 8)")
      ->type_name("D")
      ->check(IntegerIn(1, 64));
  app->add_option("--time-limit", args->time_limit,
                  "seconds the whole calibration may take (default 60; 5 with --quick)")
      ->type_name("S")
      ->check(CLI::Range(0.5, 3600.0));
  app->add_option("--clock", args->clock,
                  "what a step's time is: 'wall' (what a run here takes now) or 'cpu' (the "
                  "devices' CPU time as an idle machine's wall time, for a machine others share)")
      ->type_name("wall|cpu")
      ->check(CLI::IsMember({"wall", "cpu"}));
  return {app, [args, app]() -> Status {
            CalibrationOptions options;
            options.quick = args->quick;
            const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
            options.devices = args->devices > 0 ? args->devices : std::clamp(cores, 2, 8);
            options.cpu_clock = args->clock == "cpu";
            const double limit = app->get_option("--time-limit")->count() ? args->time_limit
                                 : args->quick                             ? 5.0
                                                                           : 60.0;
            // The compute figures take a few seconds whatever the limit; the collective points
            // get 60% of it (their sizes beyond the two smallest run while it lasts).
            options.collective_seconds = 0.6 * limit;
            options.invocation = args->quick ? "spmdc calibrate --quick" : "spmdc calibrate";
            options.progress = [](const std::string& line) {
              std::fprintf(stderr, "calibrate: %s\n", line.c_str());
            };
            ASSIGN_OR_RETURN(Calibration calibration, CalibrateCpuLocal(options));
            const std::string profile = calibration.ProfileJson();
            // What `report --hardware` will read must parse.
            RETURN_IF_ERROR(ParseHardwareProfile(profile, "cpu-local").status());
            std::string path = args->out.empty() ? DefaultProfilePath() : args->out;
            if (path != "-") {
              std::error_code ec;
              std::filesystem::path parent = std::filesystem::path(path).parent_path();
              if (!parent.empty()) std::filesystem::create_directories(parent, ec);
              if (ec)
                return InvalidArgument("{}: cannot create directory: {}", parent.string(),
                                       ec.message());
            }
            RETURN_IF_ERROR(WriteOutput(path, profile));
            if (path != "-") std::fprintf(stderr, "calibrate: wrote %s\n", path.c_str());
            return absl::OkStatus();
          }};
}

}  // namespace spmdc::cli
