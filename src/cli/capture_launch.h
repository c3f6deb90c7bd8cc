// Running a program under capture: what `profile` and `bench` share.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "capture/options.h"

namespace gpuscope::cli {

// CLOCK_REALTIME in ns: the clock CUPTI stamps its records with on Linux.
int64_t realtime_ns();

std::string hostname();

// argv as one shell-like line (arguments with spaces or quotes in single quotes).
std::string join_command(const std::vector<std::string>& argv);

// The environment that injects the capture library and tells it where to spool; with
// libgpuscope_preload.so beside the library, also LD_PRELOAD (prepended to the user's).
// Throws if another tool's CUDA_INJECTION64_PATH is already set.
std::map<std::string, std::string> injection_environment(const capture::CaptureOptions& options,
                                                         const std::string& library, const std::string& spool_prefix);

}  // namespace gpuscope::cli
