// Across-run statistics of a bench capture (`gpuscope bench`): each run is one
// measurement, so run-to-run variation (clocks, placement, the OS) is in the
// spread, unlike per-instance statistics within one run. Pure, deterministic.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "gpuscope/analysis_compare.h"
#include "gpuscope/analysis_iterations.h"
#include "gpuscope/analysis_stats.h"
#include "gpuscope/model.h"

namespace gpuscope::analysis {

// A run-to-run coefficient of variation above this flags a measurement as
// unstable: a 5 % spread hides the few-percent changes a benchmark is for.
inline constexpr double kUnstableCvPercent = 5.0;

struct RunRow {
  uint32_t run_id = 0;
  TimeNs wall_ns = 0, gpu_busy_ns = 0, kernel_ns = 0, api_ns = 0, memcpy_ns = 0;
  size_t kernels = 0;
  int32_t exit_code = -1, term_signal = 0;
};

// One quantity measured once per run.
struct RunMetric {
  std::string name;            // "Wall time", "GPU busy", "Kernel time", or a kernel's name
  bool per_kernel = false;     // the per-run median duration of one kernel
  std::vector<double> values;  // ns, one per run that has it, in run order
  Stats stats;
  MeanInterval mean_ci;
  bool unstable = false;  // stats.cv_percent > kUnstableCvPercent
};

struct BenchSummary {
  std::vector<RunRow> runs;
  std::vector<RunMetric> metrics;  // wall, GPU busy, kernel time, then kernels by total time
};

// Empty summary for a capture without bench runs.
BenchSummary summarize_bench(const Trace& trace);

// Spread across iterations (`bench --iteration-range`): the iteration's
// duration, its summed kernel time, and each kernel's summed time per
// iteration (0 in iterations without it), pooled over all runs. Throws like
// find_iterations.
struct IterationBench {
  IterationSummary summary;
  std::vector<RunMetric> metrics;  // iteration time, kernel time, then kernels by total time
};
IterationBench summarize_iterations(const Trace& trace, const IterationSpec& spec);

// Per-run values of one diff total ("Wall time", ...) or the per-run median of
// an item's instances: what `diff` compares when both files are benches.
std::vector<double> per_run_medians(const std::vector<std::pair<uint32_t, double>>& instances);

}  // namespace gpuscope::analysis
