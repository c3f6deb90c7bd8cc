// Training steps: the instances of torch.profiler's ProfilerStep#N ranges (or another range
// given by name or glob), each with its duration and how busy the GPU was inside it; what the
// report's "Steps" section shows (docs/report.md). Built on find_iterations(), so a step
// owns what iterations own (analysis_iterations.h). Pure and deterministic; times in ns.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "gpuscope/analysis_iterations.h"
#include "gpuscope/analysis_stats.h"
#include "gpuscope/analysis_timeline.h"
#include "gpuscope/model.h"

namespace gpuscope::analysis {

inline constexpr char kProfilerStepRange[] = "ProfilerStep#*";

struct Step {
  std::string name;  // the range's name, e.g. "ProfilerStep#3"
  uint32_t pid = 0;
  TimeNs start = 0, end = 0;
  // Union of the process's kernels, copies and memsets (all its GPUs) within [start, end).
  TimeNs gpu_busy_ns = 0;
  // The GPU work launched inside the step (by its launch call), wherever it ran.
  size_t kernels = 0;
  double launched_gpu_ns = 0;
};

struct StepSummary {
  std::string range;
  std::vector<Step> steps;  // by process, then start
  Stats duration;           // over steps
  Stats gpu_busy;           // over steps, ns
  // First step / median of the others, largest over processes with >= 3 steps (0: fewer).
  double first_ratio = 0;
  size_t unclosed = 0;      // instances never closed, left out
  std::string problem;      // why the steps could not be used (overlapping instances); empty: fine
};

// The range whose instances are the run's steps: torch.profiler's ProfilerStep#N when the trace
// has them, else the outermost NVTX range that repeats at least kMinDetectedSteps times on the
// launched process's main thread (repeating_range); "" when there is none.
inline constexpr size_t kMinDetectedSteps = 3;
std::string detect_step_range(const Trace& trace);

// nullopt when no range matches `range` (the trace has no steps).
std::optional<StepSummary> summarize_steps(const Trace& trace, const std::string& range = kProfilerStepRange);

}  // namespace gpuscope::analysis
