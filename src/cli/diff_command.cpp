// `gpuscope diff BASE NEW`: compare two captures item by item with statistics.
// Exit 0, or 1 when --fail-if-slower is given and a significant regression
// exceeds it (the regressions are also named on stderr, one line each).
#include <fmt/format.h>

#include <fstream>
#include <iostream>

#include "cli/compare_commands.h"
#include "cli/source_resolver.h"
#include "common/error.h"
#include "gpuscope/analysis_diff.h"
#include "gpuscope/diff_report.h"
#include "gpuscope/store.h"
#include "importers/importer.h"

namespace gpuscope::cli {
namespace {

struct DiffOptions {
  std::string base;
  std::string next;
  std::string output;  // empty or "-": stdout
  std::string format = "text";
  size_t top = 0;                                // rows per table, 0 = all
  std::optional<double> fail_if_slower_percent;  // exit 1 when a significant regression exceeds it
  StatsSettings stats;
  IterationSettings iterations;
};

}  // namespace

void write_output(const std::string& path, const std::string& text) {
  if (path.empty() || path == "-") {
    std::cout << text << std::flush;
    return;
  }
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) throw Error("cannot write " + path);
  out << text;
  if (!out.flush()) throw Error("cannot write " + path);
}

namespace {

int run_diff(const DiffOptions& options) {
  const ReportFormat& format = parse_report_format(options.format);
  if (options.fail_if_slower_percent && *options.fail_if_slower_percent < 0)
    throw Error("--fail-if-slower must be a percentage >= 0");
  const Trace base = load_trace(options.base);
  const Trace next = load_trace(options.next);
  analysis::CompareOptions compare;
  compare.alpha = options.stats.alpha;
  compare.min_change_percent = options.stats.min_change_percent;
  analysis::DiffResult diff = analysis::diff_traces(base, next, compare,
                                                    iteration_spec(options.iterations, options.base),
                                                    iteration_spec(options.iterations, options.next));
  if (diff.base_has_pc_samples && diff.new_has_pc_samples)
    diff.source_lines = analysis::diff_source_lines(base, next, make_source_resolver().get());

  DiffReportInfo info;
  info.base_label = options.base;
  info.new_label = options.next;
  info.fail_if_slower_percent = options.fail_if_slower_percent;
  info.top = options.top;
  write_output(options.output, render_diff(diff, info, format));

  if (!options.fail_if_slower_percent) return 0;
  const auto regressions = analysis::regressions_over(diff, *options.fail_if_slower_percent);
  for (const analysis::DiffItem* r : regressions)
    std::cerr << fmt::format("gpuscope: slower: {} {}{} +{:.1f}%\n", to_string(r->category), r->name,
                             r->detail.empty() ? "" : " [" + r->detail + "]", r->cmp.change_percent);
  return regressions.empty() ? 0 : 1;
}

}  // namespace

Command add_diff_command(CLI::App& app) {
  auto options = std::make_shared<DiffOptions>();
  DiffOptions& o = *options;
  CLI::App* command = app.add_subcommand(
      "diff", "Compare two captures (baseline, new) item by item, with statistics (docs/diff.md)");
  command->add_option("base", o.base, "Baseline: a capture or another profiler's file")->required();
  command->add_option("new", o.next, "New: a capture or another profiler's file")->required();
  command->add_option("-o,--output", o.output, "Write the comparison here instead of stdout");
  add_format_flag(*command, o.format, "Comparison format");
  command->add_option("--top", o.top, "Rows per table (default 0 = all)");
  command->add_option("--fail-if-slower", o.fail_if_slower_percent,
                      "Exit 1 when any significant regression exceeds PCT %");
  add_stats_flags(*command, o.stats);
  add_iteration_flags(*command, o.iterations, "compare one value per iteration per item");
  return {command, [options](const std::vector<std::string>&) { return run_diff(*options); }};
}

}  // namespace gpuscope::cli
