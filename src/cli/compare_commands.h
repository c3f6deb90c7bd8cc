// The comparing subcommands: `diff` (baseline vs new) and `check` (CI gates).
// main.cpp fills these plain structs from flags; the commands return exit codes.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "gpuscope/analysis_iterations.h"

namespace gpuscope::cli {

// Shared statistics settings (docs/diff.md).
struct StatsSettings {
  double alpha = 0.05;             // --alpha: significance level
  double min_change_percent = 2;   // --min-change PCT: smaller changes are "no change"
};

// --iteration-range NAME [--skip-iterations K] (docs/diff.md, "Iterations").
struct IterationSettings {
  std::string range;  // NVTX range name or glob; empty: compare instances / runs as usual
  size_t skip = 0;    // the first K instances per process are warm-up
};

// The analysis spec for one file; label (its path) names it in errors.
inline analysis::IterationSpec iteration_spec(const IterationSettings& settings, const std::string& label) {
  analysis::IterationSpec spec;
  spec.range = settings.range;
  spec.skip = settings.skip;
  spec.label = label;
  return spec;
}

struct DiffOptions {
  std::string base;
  std::string next;
  std::string output;  // empty or "-": stdout
  std::string format = "text";
  size_t top = 0;      // rows per table, 0 = all
  std::optional<double> fail_if_slower_percent;  // exit 1 when a significant regression exceeds it
  StatsSettings stats;
  IterationSettings iterations;
};

struct CheckOptions {
  std::string input;
  std::string rules;
  std::string baseline;  // empty: no baseline rules allowed
  std::string format = "text";
  std::string junit;     // empty: no JUnit XML
  std::vector<std::string> metrics_from;  // --metrics-from FILE: per-kernel metrics (ncu CSV) to attach
  StatsSettings stats;
  IterationSettings iterations;  // for [[baseline]] rules only
};

struct BenchOptions {
  int runs = 10;         // measured runs
  int warmup = 1;        // runs first, captured but not kept (caches, JIT, clocks)
  std::string output;    // capture name; empty: <program>-bench
  bool force = false;
  bool driver_api = false;
  int flush_ms = 500;
  uint32_t gpu_metrics_hz = 0;  // --gpu-metrics[=RATE]: NVML GPM samples in every run; 0: off
  std::string seed_env;  // when set: this variable = the run's index (1..runs; warm-ups 0) in its environment
  std::string format = "text";
  IterationSettings iterations;  // also print the spread across iterations
  std::string inject_library;  // resolved from GPUSCOPE_INJECT_LIB by main
  std::vector<std::string> command;
};

int run_diff(const DiffOptions& options);
int run_bench(const BenchOptions& options);
int run_check(const CheckOptions& options);

// Writes text to path, or to stdout for "" and "-". Throws gpuscope::Error.
void write_output(const std::string& path, const std::string& text);

}  // namespace gpuscope::cli
