// The registry of output formats: the one list the CLI's --format choices, --help and parsing
// come from. A new format is its renderer (renderers.h) plus one entry here.
#include <algorithm>

#include "common/error.h"
#include "common/names.h"
#include "gpuscope/report.h"
#include "report/renderers.h"

namespace gpuscope {

const std::vector<ReportFormat>& report_formats() {
  static const std::vector<ReportFormat> formats = {
      {"text", {"txt"}, "plain text for a terminal, about 120 columns", false, &report::render_text},
      {"markdown", {"md"}, "GitHub-flavoured markdown", false, &report::render_markdown},
      {"json", {}, "JSON for scripts: raw base-unit numbers with their units", false, &report::render_json},
      {"html",
       {"htm"},
       "one self-contained page: the report, an interactive timeline and charts",
       true,
       &report::render_html},
  };
  return formats;
}

std::vector<std::string> report_format_names() { return names_of(report_formats()); }

const ReportFormat& parse_report_format(std::string_view name) {
  if (const ReportFormat* f = find_named(report_formats(), name)) return *f;
  const std::string lower = lowercase(name);
  for (const ReportFormat& f : report_formats())
    if (std::find(f.aliases.begin(), f.aliases.end(), lower) != f.aliases.end()) return f;
  throw Error("unknown report format '" + std::string(name) + "' (expected " + or_list(report_format_names()) + ")");
}

}  // namespace gpuscope
