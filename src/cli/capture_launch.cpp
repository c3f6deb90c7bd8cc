// Running a program under capture (see capture_launch.h); moved out of
// profile_command.cpp so that bench runs programs exactly as profile does.
#include "cli/capture_launch.h"

#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>

#include "common/error.h"

namespace gpuscope::cli {

int64_t realtime_ns() {
  // CLOCK_REALTIME: the clock CUPTI stamps its records with on Linux.
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::system_clock::now().time_since_epoch())
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

// The config format cannot carry ';' or '=' inside values, and a regex may hold both.
std::string hex(const std::string& text) {
  static const char digits[] = "0123456789abcdef";
  std::string out;
  for (unsigned char c : text) out += {digits[c >> 4], digits[c & 15]};
  return out;
}

}  // namespace

std::map<std::string, std::string> injection_environment(const CaptureSettings& settings, const std::string& library,
                                                         const std::string& prefix) {
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
  std::string config = "spool=" + prefix + ";driver_api=" + (settings.driver_api ? "1" : "0") +
                       ";flush_ms=" + std::to_string(settings.flush_ms) +
                       ";sync_flush_ms=" + std::to_string(settings.sync_flush_ms);
  if (!settings.metrics.empty()) {
    config += ";metrics=";
    for (size_t i = 0; i < settings.metrics.size(); ++i) config += (i ? "," : "") + settings.metrics[i];
    if (!settings.required_metrics.empty()) {
      config += ";required=";
      for (size_t i = 0; i < settings.required_metrics.size(); ++i)
        config += (i ? "," : "") + settings.required_metrics[i];
    }
    if (!settings.kernel_regex.empty()) config += ";kernel_hex=" + hex(settings.kernel_regex);
    if (settings.launch_skip > 0) config += ";launch_skip=" + std::to_string(settings.launch_skip);
    if (settings.launch_count > 0) config += ";launch_count=" + std::to_string(settings.launch_count);
  }
  if (settings.gpu_metrics_hz > 0) config += ";gpu_metrics_hz=" + std::to_string(settings.gpu_metrics_hz);
  if (!settings.driver_launches) config += ";driver_launches=0";
  if (!settings.nccl_calls) config += ";nccl_calls=0";
  if (!settings.api_full) config += ";api=lean";
  if (settings.range == "profiler_api") config += ";range=profiler_api";
  if (settings.range == "nvtx") config += ";range=nvtx_hex:" + hex(settings.range_nvtx);
  if (settings.range_repeat) config += ";range_end=repeat";
  if (settings.range_repeat_limit > 0) config += ";range_repeat=" + std::to_string(settings.range_repeat_limit);
  if (settings.delay_ms > 0) config += ";delay_ms=" + std::to_string(settings.delay_ms);
  if (settings.duration_ms > 0) config += ";duration_ms=" + std::to_string(settings.duration_ms);
  env["GPUSCOPE_INJECT_CONFIG"] = config;
  if (!settings.pytorch.empty()) {
    // Python imports sitecustomize from the hook folder (beside the library) at start-up.
    const std::string hook = (std::filesystem::path(library).parent_path() / kTorchHookFolder).string();
    if (::access((hook + "/sitecustomize.py").c_str(), R_OK) != 0)
      throw Error("--pytorch: the Python start-up hook is missing (" + hook + "/sitecustomize.py)");
    const char* existing = std::getenv("PYTHONPATH");
    env["PYTHONPATH"] = existing && *existing ? hook + ":" + existing : hook;
    env["GPUSCOPE_PYTORCH"] = settings.pytorch;
  }
  return env;
}

}  // namespace gpuscope::cli
