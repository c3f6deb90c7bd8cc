// Public entry point for reports: a Trace in, a rendered report out.
// The CLI (`gpuscope report`, and the end of `gpuscope profile`) calls this.
// Sections, definitions and units: docs/report.md.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "gpuscope/model.h"

namespace gpuscope {

enum class ReportFormat { Text, Markdown, Json };

struct ReportOptions {
  size_t top = 15;  // rows per table; 0 = all
};

// Deterministic: the same trace and options give the same bytes.
// Text fits about 120 columns (long names are shortened in the middle);
// markdown is GitHub-flavoured; JSON carries raw base-unit numbers with units.
std::string render_report(const Trace& trace, const ReportOptions& options, ReportFormat format);

// "text", "markdown" (or "md"), "json"; throws gpuscope::Error on anything else.
ReportFormat parse_report_format(std::string_view name);

}  // namespace gpuscope
