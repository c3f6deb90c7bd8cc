#include "capture/config.h"

#include <charconv>
#include <string_view>

namespace gpuscope::capture {
namespace {

ConfigResult failure(std::string message) {
  ConfigResult result;
  result.error = std::move(message);
  return result;
}

// Whole-string unsigned decimal in [lo, hi]; no sign, no spaces, no suffix.
bool parse_uint(std::string_view text, uint32_t lo, uint32_t hi, uint32_t& out) {
  if (text.empty()) return false;
  uint64_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size()) return false;
  if (value < lo || value > hi) return false;
  out = static_cast<uint32_t>(value);
  return true;
}

bool parse_u64(std::string_view text, uint64_t& out) {
  if (text.empty()) return false;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return ec == std::errc() && end == text.data() + text.size();
}

bool decode_hex(std::string_view hex, std::string& out) {
  if (hex.size() % 2 != 0) return false;
  out.clear();
  for (size_t i = 0; i < hex.size(); i += 2) {
    unsigned value = 0;
    auto [end, ec] = std::from_chars(hex.data() + i, hex.data() + i + 2, value, 16);
    if (ec != std::errc() || end != hex.data() + i + 2) return false;
    out.push_back(static_cast<char>(value));
  }
  return true;
}

std::vector<std::string> split_commas(std::string_view text) {
  std::vector<std::string> out;
  while (!text.empty()) {
    const size_t comma = text.find(',');
    if (comma != 0) out.emplace_back(text.substr(0, comma));
    text = comma == std::string_view::npos ? std::string_view() : text.substr(comma + 1);
  }
  return out;
}

}  // namespace

ConfigResult parse_config(const char* text, bool require_spool) {
  if (text == nullptr) {
    return failure(std::string(kConfigEnvVar) + " is not set; run the program under `gpuscope profile`");
  }
  ConfigResult result;
  InjectConfig& config = result.config;
  bool seen_spool = false, seen_driver = false, seen_launches = false, seen_nccl = false, seen_flush = false, seen_sync_flush = false, seen_buffer = false, seen_cupti = false,
       seen_metrics = false, seen_required = false, seen_kernel = false, seen_skip = false, seen_count = false,
       seen_hz = false, seen_source = false, seen_api = false, seen_range = false, seen_end = false,
       seen_repeat = false, seen_delay = false, seen_duration = false;

  std::string_view rest(text);
  while (!rest.empty()) {
    size_t semi = rest.find(';');
    std::string_view item = rest.substr(0, semi);
    rest = semi == std::string_view::npos ? std::string_view() : rest.substr(semi + 1);
    if (item.empty()) continue;

    size_t eq = item.find('=');
    if (eq == std::string_view::npos || eq == 0) {
      return failure(std::string(kConfigEnvVar) + ": expected key=value, got '" + std::string(item) + "'");
    }
    std::string_view key = item.substr(0, eq);
    std::string_view value = item.substr(eq + 1);
    auto repeated = [&](bool& seen) {
      if (seen) return true;
      seen = true;
      return false;
    };
    auto bad_value = [&](const char* expected) {
      return failure(std::string(kConfigEnvVar) + ": bad value '" + std::string(value) + "' for " +
                     std::string(key) + " (expected " + expected + ")");
    };
    auto duplicate = [&]() {
      return failure(std::string(kConfigEnvVar) + ": key '" + std::string(key) + "' given twice");
    };

    if (key == "spool") {
      if (repeated(seen_spool)) return duplicate();
      if (value.empty() || value.front() != '/') return bad_value("an absolute path prefix");
      config.spool_prefix = std::string(value);
    } else if (key == "driver_api") {
      if (repeated(seen_driver)) return duplicate();
      if (value == "0") config.driver_api = false;
      else if (value == "1") config.driver_api = true;
      else return bad_value("0 or 1");
    } else if (key == "driver_launches") {
      if (repeated(seen_launches)) return duplicate();
      if (value == "0") config.driver_launches = false;
      else if (value == "1") config.driver_launches = true;
      else return bad_value("0 or 1");
    } else if (key == "nccl_calls") {
      if (repeated(seen_nccl)) return duplicate();
      if (value == "0") config.nccl_calls = false;
      else if (value == "1") config.nccl_calls = true;
      else return bad_value("0 or 1");
    } else if (key == "flush_ms") {
      if (repeated(seen_flush)) return duplicate();
      if (!parse_uint(value, 0, 60000, config.flush_ms)) return bad_value("0..60000");
    } else if (key == "sync_flush_ms") {
      if (repeated(seen_sync_flush)) return duplicate();
      if (!parse_uint(value, 0, 60000, config.sync_flush_ms)) return bad_value("0..60000");
    } else if (key == "buffer_kb") {
      if (repeated(seen_buffer)) return duplicate();
      if (!parse_uint(value, 64, 262144, config.buffer_kb)) return bad_value("64..262144");
    } else if (key == "cupti") {
      if (repeated(seen_cupti)) return duplicate();
      if (value.empty()) return bad_value("a path to libcupti.so");
      config.cupti_path = std::string(value);
    } else if (key == "metrics") {
      if (repeated(seen_metrics)) return duplicate();
      config.metrics = split_commas(value);
      if (config.metrics.empty()) return bad_value("comma-separated metric names");
    } else if (key == "required") {
      if (repeated(seen_required)) return duplicate();
      config.required_metrics = split_commas(value);
      if (config.required_metrics.empty()) return bad_value("comma-separated metric names");
    } else if (key == "kernel_hex") {
      if (repeated(seen_kernel)) return duplicate();
      if (!decode_hex(value, config.kernel_regex) || config.kernel_regex.empty()) return bad_value("hex-encoded regex");
    } else if (key == "launch_skip") {
      if (repeated(seen_skip)) return duplicate();
      if (!parse_u64(value, config.launch_skip)) return bad_value("a count");
    } else if (key == "launch_count") {
      if (repeated(seen_count)) return duplicate();
      if (!parse_u64(value, config.launch_count) || config.launch_count == 0) return bad_value("a count >= 1");
    } else if (key == "gpu_metrics_hz") {
      if (repeated(seen_hz)) return duplicate();
      if (!parse_uint(value, 1, 20000, config.gpu_metrics_hz)) return bad_value("1..20000");
    } else if (key == "gpu_metrics_source") {
      if (repeated(seen_source)) return duplicate();
      if (value == "gpm") config.gpu_metrics_pm = false;
      else if (value == "pm") config.gpu_metrics_pm = true;
      else return bad_value("gpm or pm");
    } else if (key == "api") {
      if (repeated(seen_api)) return duplicate();
      if (value == "lean") config.api_full = false;
      else if (value == "full") config.api_full = true;
      else return bad_value("lean or full");
    } else if (key == "range") {
      if (repeated(seen_range)) return duplicate();
      std::string text;
      if (value == "profiler_api") {
        config.range = InjectConfig::Range::ProfilerApi;
      } else if (value.rfind("nvtx_hex:", 0) == 0 && decode_hex(value.substr(9), text) && !text.empty()) {
        config.range = InjectConfig::Range::Nvtx;
        const size_t at = text.rfind('@');
        config.range_nvtx = at == std::string::npos ? text : text.substr(0, at);
        config.range_domain = at == std::string::npos ? "" : text.substr(at + 1);
        if (config.range_nvtx.empty()) return bad_value("nvtx_hex: a non-empty message");
      } else {
        return bad_value("profiler_api or nvtx_hex:HEX");
      }
    } else if (key == "range_end") {
      if (repeated(seen_end)) return duplicate();
      if (value == "stop") config.range_repeat = false;
      else if (value == "repeat") config.range_repeat = true;
      else return bad_value("stop or repeat");
    } else if (key == "range_repeat") {
      if (repeated(seen_repeat)) return duplicate();
      if (!parse_uint(value, 1, UINT32_MAX, config.range_repeat_limit)) return bad_value("a count >= 1");
    } else if (key == "delay_ms") {
      if (repeated(seen_delay)) return duplicate();
      if (!parse_uint(value, 1, 86'400'000, config.delay_ms)) return bad_value("1..86400000");
    } else if (key == "duration_ms") {
      if (repeated(seen_duration)) return duplicate();
      if (!parse_uint(value, 1, 86'400'000, config.duration_ms)) return bad_value("1..86400000");
    } else {
      return failure(std::string(kConfigEnvVar) + ": unknown key '" + std::string(key) + "'");
    }
  }

  if (require_spool && config.spool_prefix.empty()) {
    return failure(std::string(kConfigEnvVar) + " has no spool=/abs/prefix; run the program under `gpuscope profile`");
  }
  if (seen_delay || seen_duration) {
    if (config.range != InjectConfig::Range::Whole)
      return failure(std::string(kConfigEnvVar) + ": delay_ms/duration_ms cannot be combined with range=");
    config.range = InjectConfig::Range::Timer;
  }
  if ((seen_end || seen_repeat) && config.range != InjectConfig::Range::ProfilerApi &&
      config.range != InjectConfig::Range::Nvtx)
    return failure(std::string(kConfigEnvVar) + ": range_end/range_repeat need range=");
  if (seen_repeat && !config.range_repeat)
    return failure(std::string(kConfigEnvVar) + ": range_repeat needs range_end=repeat");
  result.ok = true;
  return result;
}

std::string spool_path(const std::string& prefix, uint32_t pid) {
  return prefix + "." + std::to_string(pid) + ".spool";
}

}  // namespace gpuscope::capture
