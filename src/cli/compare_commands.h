// The comparing subcommands: `diff` (baseline vs new) and `check` (CI gates).
// main.cpp fills these plain structs from flags; the commands return exit codes.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace gpuscope::cli {

// Shared statistics settings (docs/diff.md).
struct StatsSettings {
  double alpha = 0.05;             // --alpha: significance level
  double min_change_percent = 2;   // --min-change PCT: smaller changes are "no change"
};

struct DiffOptions {
  std::string base;
  std::string next;
  std::string output;  // empty or "-": stdout
  std::string format = "text";
  size_t top = 0;      // rows per table, 0 = all
  std::optional<double> fail_if_slower_percent;  // exit 1 when a significant regression exceeds it
  StatsSettings stats;
};

struct CheckOptions {
  std::string input;
  std::string rules;
  std::string baseline;  // empty: no baseline rules allowed
  std::string format = "text";
  std::string junit;     // empty: no JUnit XML
  StatsSettings stats;
};

struct BenchOptions {
  int runs = 10;         // measured runs
  int warmup = 1;        // runs first, captured but not kept (caches, JIT, clocks)
  std::string output;    // capture name; empty: <program>-bench
  bool force = false;
  bool driver_api = false;
  int flush_ms = 500;
  std::string seed_env;  // when set: this variable = the run's index (1..runs; warm-ups 0) in its environment
  std::string format = "text";
  std::string inject_library;  // resolved from GPUSCOPE_INJECT_LIB by main
  std::vector<std::string> command;
};

int run_diff(const DiffOptions& options);
int run_bench(const BenchOptions& options);
int run_check(const CheckOptions& options);

// Writes text to path, or to stdout for "" and "-". Throws gpuscope::Error.
void write_output(const std::string& path, const std::string& text);

}  // namespace gpuscope::cli
