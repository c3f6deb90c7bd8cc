#include <fstream>
#include <iostream>

#include "cli/commands.h"
#include "cli/source_resolver.h"
#include "common/error.h"
#include "gpuscope/report.h"
#include "importers/importer.h"

namespace gpuscope::cli {
namespace {

struct ReportOptions {
  std::string input;                      // any file gpuscope reads (importers/importer.h)
  std::string output;                     // empty: stdout
  std::vector<std::string> metrics_from;  // --metrics-from FILE: per-kernel metrics (ncu CSV) to attach
  ReportSettings report;
};

}  // namespace

std::string render(const Trace& trace, const ReportSettings& settings) {
  const ReportFormat& format = parse_report_format(settings.format);
  gpuscope::ReportOptions options;
  options.top = settings.top;
  options.iteration_range = settings.iteration_range;
  if (analysis::has_pc_samples(trace)) options.source = make_source_resolver(settings.source_dirs);
  return render_report(trace, options, format);
}

namespace {

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

}  // namespace

Command add_report_command(CLI::App& app) {
  auto options = std::make_shared<ReportOptions>();
  ReportOptions& o = *options;
  CLI::App* command = app.add_subcommand("report", "Explain a capture: where the time goes");
  command->add_option("file", o.input, kInputHelp)->required();
  add_metrics_from_flag(*command, o.metrics_from);
  command->add_option("-o,--output", o.output, "Write the report here instead of stdout");
  add_report_flags(*command, o.report);
  command
      ->add_option("--iteration-range", o.report.iteration_range,
                   "The NVTX range (name or glob) whose instances are the steps the report leads with; default: "
                   "'ProfilerStep#*', else the outermost range repeating 3+ times on the main thread. With "
                   "steps, the Bottleneck and the Recommendations judge steps 2..N (the steady state)")
      ->check(range_name_check());
  return {command, [options](const std::vector<std::string>&) { return run_report(*options); }};
}

}  // namespace gpuscope::cli
