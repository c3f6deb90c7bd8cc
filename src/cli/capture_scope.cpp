// What a capture records and when (see capture_launch.h: parse_capture_scope). The names follow
// nsys where nsys has the option (--capture-range, --capture-range-end, --delay, --duration).
#include <cmath>
#include <string>

#include "cli/capture_launch.h"
#include "common/error.h"

namespace gpuscope::cli {
namespace {

constexpr double kMaxSeconds = 86'400;  // a day: the capture library's bound

uint32_t milliseconds(double seconds, const char* option) {
  if (!std::isfinite(seconds) || seconds < 0 || seconds > kMaxSeconds)
    throw Error(std::string(option) + " must be a number of seconds between 0 and 86400");
  const double ms = std::round(seconds * 1000);
  if (seconds > 0 && ms < 1) throw Error(std::string(option) + " must be at least 0.001 s");
  return static_cast<uint32_t>(ms);
}

}  // namespace

void parse_capture_scope(const std::string& api, const std::string& pytorch, const std::string& capture_range,
                         const std::string& capture_range_end, double delay_s, double duration_s,
                         CaptureSettings& settings) {
  if (api == "lean") settings.api_full = false;
  else if (api != "full") throw Error("--api must be full or lean, not '" + api + "'");

  if (!pytorch.empty() && pytorch != "ops" && pytorch != "shapes" && pytorch != "modules")
    throw Error("--pytorch must be ops, shapes or modules, not '" + pytorch + "'");
  settings.pytorch = pytorch;

  if (capture_range == "cudaProfilerApi") {
    settings.range = "profiler_api";
  } else if (capture_range.rfind("nvtx:", 0) == 0) {
    settings.range_nvtx = capture_range.substr(5);
    if (settings.range_nvtx.empty() || settings.range_nvtx.front() == '@')
      throw Error("--capture-range nvtx:NAME[@DOMAIN] needs a range name");
    if (settings.range_nvtx.back() == '@') throw Error("--capture-range nvtx:NAME@DOMAIN needs a domain after '@'");
    settings.range = "nvtx";
  } else if (!capture_range.empty()) {
    throw Error("--capture-range must be cudaProfilerApi or nvtx:NAME[@DOMAIN], not '" + capture_range + "'");
  }

  if (capture_range_end == "repeat" || capture_range_end.rfind("repeat:", 0) == 0) {
    settings.range_repeat = true;
    if (capture_range_end.size() > 7) {
      const std::string count = capture_range_end.substr(7);
      if (count.empty() || count.size() > 9 || count.find_first_not_of("0123456789") != std::string::npos ||
          std::stoul(count) == 0)
        throw Error("--capture-range-end repeat:N needs a count of at least 1");
      settings.range_repeat_limit = static_cast<uint32_t>(std::stoul(count));
    }
  } else if (capture_range_end != "stop") {
    throw Error("--capture-range-end must be stop or repeat[:N], not '" + capture_range_end + "'");
  }
  if (capture_range_end != "stop" && settings.range.empty())
    throw Error("--capture-range-end needs --capture-range");

  settings.delay_ms = milliseconds(delay_s, "--delay");
  settings.duration_ms = milliseconds(duration_s, "--duration");
  if ((settings.delay_ms || settings.duration_ms) && !settings.range.empty())
    throw Error("--delay and --duration cannot be combined with --capture-range");
}

}  // namespace gpuscope::cli
