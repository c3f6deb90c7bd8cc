// `gpuscope diff` output: a DiffResult laid out through the shared report model
// and renderers (text, markdown for pull-request comments, JSON).
#pragma once

#include <optional>
#include <string>

#include "gpuscope/analysis_diff.h"
#include "gpuscope/report.h"

namespace gpuscope {

struct DiffReportInfo {
  std::string base_label;  // how the base capture is named in the output (its path)
  std::string new_label;
  std::optional<double> fail_if_slower_percent;  // shown in the summary when set
  size_t top = 0;                                // rows per table; 0 = all
};

// Deterministic: the same result and info give the same bytes.
std::string render_diff(const analysis::DiffResult& diff, const DiffReportInfo& info, const ReportFormat& format);

}  // namespace gpuscope
