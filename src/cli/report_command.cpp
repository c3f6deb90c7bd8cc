#include <fstream>
#include <iostream>

#include "cli/commands.h"
#include "common/error.h"
#include "gpuscope/report.h"
#include "importers/importer.h"

namespace gpuscope::cli {

std::string render(const Trace& trace, const ReportSettings& settings) {
  const ReportFormat& format = parse_report_format(settings.format);
  gpuscope::ReportOptions options;
  options.top = settings.top;
  options.iteration_range = settings.iteration_range;
  return render_report(trace, options, format);
}

int run_report(const ReportOptions& options) {
  parse_report_format(options.report.format);  // a bad format fails before reading the file
  const std::string text = render(load_trace(options.input, options.metrics_from), options.report);
  if (options.output.empty() || options.output == "-") {
    std::cout << text << std::flush;
    return 0;
  }
  std::ofstream out(options.output, std::ios::binary | std::ios::trunc);
  if (!out) throw Error("cannot write " + options.output);
  out << text;
  if (!out.flush()) throw Error("cannot write " + options.output);
  return 0;
}

}  // namespace gpuscope::cli
