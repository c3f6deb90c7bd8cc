// render_as(): a format's renderer, for the commands that build their own report model (diff,
// check, bench).
#include "report/renderers.h"

namespace gpuscope::report {

std::string render_as(const Report& report, const ReportFormat& format) { return format.render(report); }

}  // namespace gpuscope::report
