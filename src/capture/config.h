// The one configuration input of the injection library: the environment variable
// GPUSCOPE_INJECT_CONFIG, written by `gpuscope profile` and `bench` from the capture options
// (options.h), e.g.
//   spool=/tmp/run1/capture;driver_api=1;flush_ms=250;kernel=gemm%3B
// One key=value pair per option that differs from its default; keys are the options' names;
// values as set_option() reads them, with '%', ';', ',' and control bytes written as %XX; a
// List's values are joined by ','. Unknown or repeated keys are errors: the CLI writes this
// string, so a surprise here means a version mismatch we want to hear about.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "capture/options.h"

namespace gpuscope::capture {

inline constexpr const char* kConfigEnvVar = "GPUSCOPE_INJECT_CONFIG";

std::string config_string(const CaptureOptions& options);

// What the capture library acts on: the options and what they resolve to.
struct InjectConfig {
  CaptureOptions options;
  std::vector<std::string> metrics;  // metric_names(options): empty, no range profiling
  RecordingWindow window;            // recording_window(options)

  size_t buffer_bytes() const { return size_t{options.buffer_kb} * 1024; }
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
