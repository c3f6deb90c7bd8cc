// What the comparing subcommands share: `diff` (baseline vs new), `check` (CI gates) and `bench`
// (the spread across runs).
#pragma once

#include <string>

#include "cli/commands.h"
#include "gpuscope/analysis_iterations.h"

namespace gpuscope::cli {

// Shared statistics settings (docs/diff.md).
struct StatsSettings {
  double alpha = 0.05;            // --alpha: significance level
  double min_change_percent = 2;  // --min-change PCT: smaller changes are "no change"
};
void add_stats_flags(CLI::App& command, StatsSettings& settings);

// --iteration-range NAME [--skip-iterations K] (docs/diff.md, "Iterations").
struct IterationSettings {
  std::string range;  // NVTX range name or glob; empty: compare instances / runs as usual
  size_t skip = 0;    // the first K instances per process are warm-up
};
void add_iteration_flags(CLI::App& command, IterationSettings& settings, const std::string& what);

// The analysis spec for one file; label (its path) names it in errors.
inline analysis::IterationSpec iteration_spec(const IterationSettings& settings, const std::string& label) {
  analysis::IterationSpec spec;
  spec.range = settings.range;
  spec.skip = settings.skip;
  spec.label = label;
  return spec;
}

// Writes text to path, or to stdout for "" and "-". Throws gpuscope::Error.
void write_output(const std::string& path, const std::string& text);

}  // namespace gpuscope::cli
