// Running a program under capture: what `profile` and `bench` share.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "gpuscope/model.h"

namespace gpuscope::cli {

// CLOCK_REALTIME in ns: the clock CUPTI stamps its records with on Linux.
int64_t realtime_ns();

std::string hostname();

// argv as one shell-like line (arguments with spaces or quotes in single quotes).
std::string join_command(const std::vector<std::string>& argv);

// What the capture library is asked to record (its config string, src/capture/config.h).
struct CaptureSettings {
  bool driver_api = false;
  bool driver_launches = true;       // the driver API's launch functions (driver_launches=, cupti_session.h)
  bool nccl_calls = true;            // NCCL's calls and their kernels (nccl_calls=, src/capture/nccl_calls.h)
  int flush_ms = 500;
  int sync_flush_ms = 10;             // flush at a synchronization at most this often (sync_flush.h)
  std::vector<std::string> metrics;  // full metric names (sets already expanded); empty: none
  std::vector<std::string> required_metrics;  // of `metrics`, the user's own --metric names
  std::string kernel_regex;          // only these kernels get metrics; empty: all
  uint64_t launch_skip = 0;
  uint64_t launch_count = 0;         // 0: no limit
  uint32_t gpu_metrics_hz = 0;       // GPU-wide sampling (NVML GPM), at most this many/s; 0: off
  bool api_full = true;              // record every API call; false: the lean trace (api=lean)
  std::string pytorch;               // ops, shapes or modules: the Python start-up hook; empty: off
  // Recording windows (src/capture/config.h): "" (whole run), "profiler_api" or an NVTX message
  // "NAME[@DOMAIN]" in range_nvtx.
  std::string range;
  std::string range_nvtx;
  bool range_repeat = false;
  uint32_t range_repeat_limit = 0;   // 0: no limit
  uint32_t delay_ms = 0, duration_ms = 0;
};

// Parses the capture-scope options (--api, --pytorch, --capture-range, --capture-range-end,
// --delay, --duration) into `settings`; throws Error with one line on a bad value.
void parse_capture_scope(const std::string& api, const std::string& pytorch, const std::string& capture_range,
                         const std::string& capture_range_end, double delay_s, double duration_s,
                         CaptureSettings& settings);

// The environment that injects the capture library and tells it where to spool; with
// libgpuscope_preload.so beside the library, also LD_PRELOAD (prepended to the user's).
// Throws if another tool's CUDA_INJECTION64_PATH is already set.
std::map<std::string, std::string> injection_environment(const CaptureSettings& settings, const std::string& library,
                                                         const std::string& spool_prefix);

}  // namespace gpuscope::cli
