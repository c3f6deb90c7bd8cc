#include "capture/config.h"

#include <charconv>
#include <set>
#include <string_view>

namespace gpuscope::capture {
namespace {

ConfigResult failure(const std::string& message) {
  ConfigResult result;
  result.error = std::string(kConfigEnvVar) + message;
  return result;
}

bool needs_escape(unsigned char c) { return c == '%' || c == ';' || c == ',' || c < 0x20 || c == 0x7f; }

std::string escape(std::string_view text) {
  static const char digits[] = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : text) {
    if (needs_escape(c)) out += {'%', digits[c >> 4], digits[c & 15]};
    else out += static_cast<char>(c);
  }
  return out;
}

bool unescape(std::string_view text, std::string& out) {
  out.clear();
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '%') {
      out += text[i];
      continue;
    }
    unsigned value = 0;
    if (i + 3 > text.size()) return false;
    const auto [end, ec] = std::from_chars(text.data() + i + 1, text.data() + i + 3, value, 16);
    if (ec != std::errc() || end != text.data() + i + 3) return false;
    out += static_cast<char>(value);
    i += 2;
  }
  return true;
}

// The list's items, split at ',' and unescaped; false on a bad escape.
bool split_list(std::string_view text, std::vector<std::string>& items) {
  while (true) {
    const size_t comma = text.find(',');
    if (!unescape(text.substr(0, comma), items.emplace_back())) return false;
    if (comma == std::string_view::npos) return true;
    text.remove_prefix(comma + 1);
  }
}

}  // namespace

std::string config_string(const CaptureOptions& options) {
  std::string config;
  for (const OptionSpec& spec : capture_option_table()) {
    if (is_default(options, spec)) continue;
    std::string value;
    if (spec.type == OptionType::List) {
      for (const std::string& item : options.*std::get<std::vector<std::string> CaptureOptions::*>(spec.field))
        value += (value.empty() ? "" : ",") + escape(item);
    } else {
      value = escape(option_text(options, spec));
    }
    config += (config.empty() ? "" : ";") + std::string(spec.name) + "=" + value;
  }
  return config;
}

ConfigResult parse_config(const char* text, bool require_spool) {
  if (text == nullptr) return failure(" is not set; run the program under `gpuscope profile`");
  ConfigResult result;
  CaptureOptions& options = result.config.options;
  std::set<std::string_view> seen;
  std::string_view rest(text);
  while (!rest.empty()) {
    const size_t semi = rest.find(';');
    const std::string_view item = rest.substr(0, semi);
    rest = semi == std::string_view::npos ? std::string_view() : rest.substr(semi + 1);
    if (item.empty()) continue;
    const size_t eq = item.find('=');
    if (eq == std::string_view::npos || eq == 0)
      return failure(": expected key=value, got '" + std::string(item) + "'");
    const std::string_view key = item.substr(0, eq), value = item.substr(eq + 1);
    const OptionSpec* spec = find_capture_option(key);
    if (spec == nullptr) return failure(": unknown key '" + std::string(key) + "'");
    if (!seen.insert(spec->name).second) return failure(": key '" + std::string(key) + "' given twice");
    std::vector<std::string> values;
    if (spec->type == OptionType::List ? !split_list(value, values) : !unescape(value, values.emplace_back()))
      return failure(": bad %-escape in '" + std::string(item) + "'");
    for (const std::string& one : values)
      if (std::string expected = set_option(options, *spec, one); !expected.empty())
        return failure(": bad value '" + one + "' for " + std::string(key) + " (expected " + expected + ")");
  }
  if (require_spool && options.spool.empty())
    return failure(" has no spool=/abs/prefix; run the program under `gpuscope profile`");
  if (std::string error = check_combination(options); !error.empty()) return failure(": " + error);
  result.config.metrics = metric_names(options);
  result.config.window = recording_window(options);
  result.ok = true;
  return result;
}

std::string spool_path(const std::string& prefix, uint32_t pid) {
  return prefix + "." + std::to_string(pid) + ".spool";
}

}  // namespace gpuscope::capture
