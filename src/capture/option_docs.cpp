#include "capture/option_docs.h"

namespace gpuscope::capture {
namespace {

// "(0..60000, default 500)", "(default full)", or "" when there is nothing to say.
std::string bounds_and_default(const OptionSpec& spec) {
  const std::string fallback = option_text(CaptureOptions(), spec);
  // No default to show: empty, or a number that is 0 where 0 means "not given".
  const bool unset = fallback.empty() || (fallback == "0" && (spec.type == OptionType::Seconds || spec.min > 0));
  std::string range;
  if ((spec.type == OptionType::Count || spec.type == OptionType::Seconds) && spec.max != UINT64_MAX) {
    CaptureOptions edge;
    edge.*std::get<uint64_t CaptureOptions::*>(spec.field) = spec.min;
    range = option_text(edge, spec) + "..";
    edge.*std::get<uint64_t CaptureOptions::*>(spec.field) = spec.max;
    range += option_text(edge, spec);
  }
  if (spec.type == OptionType::Switch || (range.empty() && unset)) return "";
  if (unset) return "(" + range + ")";
  return "(" + range + (range.empty() ? "" : ", ") + "default " + fallback + ")";
}

std::string escape_bars(std::string text) {
  for (size_t at = text.find('|'); at != std::string::npos; at = text.find('|', at + 2)) text.insert(at, "\\");
  return text;
}

}  // namespace

std::string option_help(const OptionSpec& spec) {
  const std::string extra = bounds_and_default(spec);
  return std::string(spec.help) + (extra.empty() ? "" : " " + extra);
}

std::string capture_options_markdown() {
  std::string table = "| option | commands | meaning |\n| --- | --- | --- |\n";
  for (const OptionSpec& spec : capture_option_table()) {
    if (spec.scope == OptionScope::LibraryOnly) continue;
    std::string flag = option_flag(spec);
    if (*spec.implicit) flag += std::string("[=") + spec.value_name + "]";
    else if (*spec.value_name) flag += std::string(" ") + spec.value_name;
    std::string meaning = option_help(spec) + ".";
    if (*spec.details) meaning += std::string(" ") + spec.details;
    table += "| `" + escape_bars(flag) + "` | " + (spec.scope == OptionScope::Capture ? "profile, bench" : "profile") +
             " | " + escape_bars(meaning) + " |\n";
  }
  return table;
}

}  // namespace gpuscope::capture
