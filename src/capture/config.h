// The one configuration input of the injection library: the environment variable
// GPUSCOPE_INJECT_CONFIG, written by `gpuscope profile`, e.g.
//   spool=/tmp/run1/capture;driver_api=0;flush_ms=500;buffer_kb=8192
// It is parsed here and nowhere else; everything downstream gets plain values.
//
// Keys (semicolon-separated key=value pairs; empty segments are ignored):
//   spool=/abs/prefix    required for capture: the spool is <prefix>.<pid>.spool
//   driver_api=0|1       also trace the CUDA driver API (default 0)
//   driver_launches=0|1  without driver_api: trace the driver API's launch functions, so
//                        kernels launched by libraries have their launch call (default 1)
//   flush_ms=N           CUPTI flush period in ms, 0..60000 (default 500; 0 = CUPTI's own
//                        heuristics and no periodic flush, i.e. no crash survival)
//   sync_flush_ms=N      flush CUPTI's completed records when a synchronization returns, at most
//                        every N ms, 0..60000 (default 10; 0 = after every synchronization),
//                        so that a GPU fault does not take their times (sync_flush.h)
//   buffer_kb=N          size of one CUPTI activity buffer in KiB, 64..262144 (default 8192)
//   cupti=/path          libcupti.so.13 to load when none is already loaded (optional)
//   metrics=a.sum,b.pct  per-kernel hardware metrics to collect with the range profiler,
//                        full Perfworks names, comma-separated (the CLI expands sets)
//   required=a.sum,...   those of `metrics` the user named (--metric): collected on any chip
//                        or not at all; the others come from sets, and a chip without them
//                        drops them (metrics_host.h, select_for_chip)
//   kernel_hex=HEX       only kernels whose name matches this ECMAScript regex (hex-encoded
//                        UTF-8, so any character can pass through this format)
//   launch_skip=N        skip the first N matching kernel launches (default 0)
//   launch_count=N       then measure at most N launches (default: all)
//   gpu_metrics_hz=N     sample GPU-wide counters at most N times a second, 1..20000
//                        (default 0 = off)
//   gpu_metrics_source=gpm|pm  what samples them: NVML GPM (default) or CUPTI's PM
//                        sampling (unsafe with CUDA 13.0; for investigating it only)
//   api=full|lean        full (default): every API call is recorded; lean: pure-query API
//                        functions get no records, only counts (api_filter.h)
//   range=profiler_api   record only between cudaProfilerStart/cuProfilerStart and the
//                        matching Stop (capture_range.h)
//   range=nvtx_hex:HEX   record only inside push/pop NVTX ranges with this message (hex-encoded
//                        UTF-8), optionally "message@domain"
//   range_end=stop|repeat  after the first range ends: stop recording for good (default), or
//                        record every later range too
//   range_repeat=N       with range_end=repeat: at most N ranges (default: no limit)
//   delay_ms=N           record only from N ms after CUDA started ...
//   duration_ms=N        ... and for N ms (either may be given alone; not with range=)
//   nccl_calls=0|1       record NCCL's calls and the kernels that carry them out, from NCCL's
//                        NVTX payloads and the driver's launches (default 1; nccl_calls.h)
// Values cannot contain ';'. Unknown or repeated keys are errors: the CLI writes this
// string, so a surprise here means a version mismatch we want to hear about.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace gpuscope::capture {

inline constexpr const char* kConfigEnvVar = "GPUSCOPE_INJECT_CONFIG";

struct InjectConfig {
  std::string spool_prefix;  // absolute path prefix, empty when not required and not given
  bool driver_api = false;
  bool driver_launches = true;
  bool nccl_calls = true;
  uint32_t flush_ms = 500;
  uint32_t sync_flush_ms = 10;
  uint32_t buffer_kb = 8192;
  std::string cupti_path;  // empty: search (see cupti_loader.h)
  std::vector<std::string> metrics;  // empty: no range profiling
  std::vector<std::string> required_metrics;  // of `metrics`: never dropped for the chip
  std::string kernel_regex;          // empty: every kernel
  uint64_t launch_skip = 0;
  uint64_t launch_count = UINT64_MAX;
  uint32_t gpu_metrics_hz = 0;       // 0: no GPU-wide sampling
  bool gpu_metrics_pm = false;       // gpu_metrics_source=pm: CUPTI PM sampling, not NVML GPM
  bool api_full = true;              // api=lean turns it off: the lean filter
  enum class Range : uint8_t { Whole, ProfilerApi, Nvtx, Timer } range = Range::Whole;
  std::string range_nvtx;            // Nvtx: the range's message
  std::string range_domain;          // Nvtx: its domain's name; empty: the default domain
  bool range_repeat = false;         // range_end=repeat
  uint32_t range_repeat_limit = 0;   // 0: no limit
  uint32_t delay_ms = 0, duration_ms = 0;  // Timer; duration 0: to the end

  size_t buffer_bytes() const { return size_t{buffer_kb} * 1024; }
};

struct ConfigResult {
  bool ok = false;
  InjectConfig config;
  std::string error;  // one line, no "gpuscope: " prefix; set when !ok
};

// Pure: parses `text` (may be null = variable not set). The capture library needs
// a spool (require_spool = true); the overhead-floor injector does not.
ConfigResult parse_config(const char* text, bool require_spool);

// "<prefix>.<pid>.spool"
std::string spool_path(const std::string& prefix, uint32_t pid);

}  // namespace gpuscope::capture
