// render_as(): one switch from a ReportFormat to its renderer, for the
// commands that build their own report model (diff, check).
#include "report/renderers.h"

namespace gpuscope::report {

std::string render_as(const Report& report, ReportFormat format) {
  switch (format) {
    case ReportFormat::Text: return render_text(report);
    case ReportFormat::Markdown: return render_markdown(report);
    case ReportFormat::Json: return render_json(report);
  }
  return render_text(report);
}

}  // namespace gpuscope::report
