// Running a program under capture (see capture_launch.h); moved out of
// profile_command.cpp so that bench runs programs exactly as profile does.
#include "cli/capture_launch.h"

#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>

#include "capture/config.h"
#include "common/error.h"

namespace gpuscope::cli {

int64_t realtime_ns() {
  // CLOCK_REALTIME: the clock CUPTI stamps its records with on Linux.
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::string hostname() {
  char name[256] = {};
  return gethostname(name, sizeof name - 1) == 0 ? name : "";
}

std::string join_command(const std::vector<std::string>& argv) {
  std::string line;
  for (const auto& arg : argv) {
    if (!line.empty()) line += ' ';
    const bool quote = arg.empty() || arg.find_first_of(" \t\"'\\$") != std::string::npos;
    line += quote ? "'" + arg + "'" : arg;
  }
  return line;
}

namespace {

constexpr const char* kPreloadLibrary = "libgpuscope_preload.so";
constexpr const char* kTorchHookFolder = "torch_hook";  // python/torch_hook, copied beside the library

}  // namespace

std::map<std::string, std::string> injection_environment(const capture::CaptureOptions& options,
                                                         const std::string& library, const std::string& prefix) {
  if (const char* existing = std::getenv("CUDA_INJECTION64_PATH"); existing && *existing)
    throw Error(std::string("CUDA_INJECTION64_PATH is already set (") + existing +
                "): another tool is injected; unset it to profile with gpuscope");
  std::map<std::string, std::string> env;
  env["CUDA_INJECTION64_PATH"] = library;
  // NVTX events reach CUPTI through our library, which forwards to libcupti.
  // A user's own NVTX tool wins: then NVTX ranges are not captured.
  if (!std::getenv("NVTX_INJECTION64_PATH")) env["NVTX_INJECTION64_PATH"] = library;
  // The preload library (beside the injection library) tells the capture when the program's
  // own CUPTI client takes the activity records (src/capture/preload.cpp). Without it the
  // capture still works; the report then only suspects such a loss.
  const std::string preload = (std::filesystem::path(library).parent_path() / kPreloadLibrary).string();
  if (::access(preload.c_str(), R_OK) == 0) {
    const char* existing = std::getenv("LD_PRELOAD");
    env["LD_PRELOAD"] = existing && *existing ? preload + ":" + existing : preload;
  }
  capture::CaptureOptions with_spool = options;
  with_spool.spool = prefix;
  env[capture::kConfigEnvVar] = capture::config_string(with_spool);
  if (!options.pytorch.empty()) {
    // Python imports sitecustomize from the hook folder (beside the library) at start-up.
    const std::string hook = (std::filesystem::path(library).parent_path() / kTorchHookFolder).string();
    if (::access((hook + "/sitecustomize.py").c_str(), R_OK) != 0)
      throw Error("--pytorch: the Python start-up hook is missing (" + hook + "/sitecustomize.py)");
    const char* existing = std::getenv("PYTHONPATH");
    env["PYTHONPATH"] = existing && *existing ? hook + ":" + existing : hook;
    env["GPUSCOPE_PYTORCH"] = options.pytorch;
  }
  return env;
}

}  // namespace gpuscope::cli
