// Flags several commands take (commands.h, compare_commands.h).
#include <cstdlib>

#include "cli/compare_commands.h"
#include "common/names.h"
#include "gpuscope/report.h"

namespace gpuscope::cli {

const char* const kInputHelp =
    "A .gpuscope capture, or another profiler's file: an nsys SQLite export, a torch.profiler "
    "(Kineto) JSON trace (.json or .json.gz) or an ncu CSV; read in memory, nothing is written";

// The choices are the format registry's.
void add_format_flag(CLI::App& command, std::string& format, const std::string& what) {
  command.add_option("--format", format, what + ": " + or_list(report_format_names()))
      ->check(CLI::IsMember(report_format_names(), CLI::ignore_case));
}

void add_report_flags(CLI::App& command, ReportSettings& settings) {
  add_format_flag(command, settings.format, "Report format");
  command.add_option("--top", settings.top, "Rows per table (0 = all)");
  command.add_option("--source-dir", settings.source_dirs,
                     "Where to find the kernels' source files when they are not at the paths their line tables "
                     "name (built elsewhere): DIR joined with the path's tail, longest first (repeatable)");
}

void add_metrics_from_flag(CLI::App& command, std::vector<std::string>& files) {
  command.add_option("--metrics-from", files,
                     "Attach per-kernel metrics from this ncu CSV (--csv --page raw or details) to the "
                     "capture's kernels, matched by kernel name and launch order (repeatable)");
}

void add_stats_flags(CLI::App& command, StatsSettings& settings) {
  command.add_option("--alpha", settings.alpha, "Significance level of the rank test (default 0.05)")
      ->check(CLI::Range(1e-9, 0.5));
  command
      .add_option("--min-change", settings.min_change_percent,
                  "Changes of the median smaller than PCT % are 'no change' (default 2)")
      ->check(CLI::Range(0.0, 1000.0));
}

CLI::Validator range_name_check() {
  return CLI::Validator(
      [](const std::string& name) { return name.empty() ? std::string("an empty NVTX range name") : std::string(); },
      "");
}

void add_iteration_flags(CLI::App& command, IterationSettings& settings, const std::string& what) {
  auto* range = command
                    .add_option("--iteration-range", settings.range,
                                "Each instance of this NVTX range (name or glob, e.g. 'ProfilerStep#*') is one "
                                "iteration: " +
                                    what + " (docs/diff.md, Iterations)")
                    ->check(range_name_check());
  command
      .add_option("--skip-iterations", settings.skip,
                  "Leave out the first K iterations of each process (warm-up; default 0)")
      ->needs(range);
}

std::string env_or_empty(const char* name) {
  const char* value = std::getenv(name);
  return value ? value : "";
}

}  // namespace gpuscope::cli
