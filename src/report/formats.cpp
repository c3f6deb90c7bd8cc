// The registry of output formats: the one list the CLI's --format choices, --help and parsing
// come from. A new format is its renderer (renderers.h) plus one entry here.
#include <algorithm>
#include <cctype>

#include "common/error.h"
#include "gpuscope/report.h"
#include "report/renderers.h"

namespace gpuscope {

const std::vector<ReportFormat>& report_formats() {
  static const std::vector<ReportFormat> formats = {
      {"text", {"txt"}, "plain text for a terminal, about 120 columns", false, &report::render_text},
      {"markdown", {"md"}, "GitHub-flavoured markdown", false, &report::render_markdown},
      {"json", {}, "JSON for scripts: raw base-unit numbers with their units", false, &report::render_json},
      {"html", {"htm"}, "one self-contained page: the report, an interactive timeline and charts", true,
       &report::render_html},
  };
  return formats;
}

std::vector<std::string> report_format_names() {
  std::vector<std::string> names;
  for (const ReportFormat& f : report_formats()) names.push_back(f.name);
  return names;
}

const ReportFormat& parse_report_format(std::string_view name) {
  std::string lower(name);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  for (const ReportFormat& f : report_formats())
    if (f.name == lower || std::find(f.aliases.begin(), f.aliases.end(), lower) != f.aliases.end()) return f;
  std::string list;
  const auto names = report_format_names();
  for (size_t i = 0; i < names.size(); ++i) list += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + names[i];
  throw Error("unknown report format '" + std::string(name) + "' (expected " + list + ")");
}

}  // namespace gpuscope
