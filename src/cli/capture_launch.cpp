// Running a program under capture (see capture_launch.h); moved out of
// profile_command.cpp so that bench runs programs exactly as profile does.
#include "cli/capture_launch.h"

#include <unistd.h>

#include <chrono>
#include <cstdlib>

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

std::map<std::string, std::string> injection_environment(bool driver_api, int flush_ms, const std::string& library,
                                                         const std::string& prefix) {
  if (const char* existing = std::getenv("CUDA_INJECTION64_PATH"); existing && *existing)
    throw Error(std::string("CUDA_INJECTION64_PATH is already set (") + existing +
                "): another tool is injected; unset it to profile with gpuscope");
  std::map<std::string, std::string> env;
  env["CUDA_INJECTION64_PATH"] = library;
  // NVTX events reach CUPTI through our library, which forwards to libcupti.
  // A user's own NVTX tool wins: then NVTX ranges are not captured.
  if (!std::getenv("NVTX_INJECTION64_PATH")) env["NVTX_INJECTION64_PATH"] = library;
  env["GPUSCOPE_INJECT_CONFIG"] = "spool=" + prefix +
                                  ";driver_api=" + (driver_api ? "1" : "0") +
                                  ";flush_ms=" + std::to_string(flush_ms);
  return env;
}

}  // namespace gpuscope::cli
