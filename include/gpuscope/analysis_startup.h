// Start-up: what the run spends before its steady state begins, split into what the trace can
// tell apart. What the report's "Start-up" section shows (docs/report.md); the rules judge the
// steady state instead (analysis_rules.h). Pure and deterministic; times in ns.
#pragma once

#include <cstddef>
#include <optional>

#include "gpuscope/analysis_steps.h"
#include "gpuscope/model.h"

namespace gpuscope::analysis {

struct Startup {
  // From the run's start (wall_window) to the first step's start, or, in a run without steps,
  // to the start of the main thread's first kernel launch call: before it no work of the run's
  // own has reached the GPU, so everything up to it is getting ready.
  TimeNs start = 0, end = 0;
  bool until_first_step = false;
  TimeNs wall_ns = 0;  // of the whole run, for the share
  // The launched process's main thread in [start, end), split; the five sum to end - start.
  TimeNs before_cuda_ns = 0;       // before its first CUDA call: interpreter, imports, model build
  TimeNs context_creation_ns = 0;  // find_context_creation()'s excess, when it falls in here
  TimeNs loading_ns = 0;           // in ApiClass::Loading calls (modules, libraries, handles)
  size_t loading_calls = 0;
  TimeNs other_cuda_ns = 0;  // in any other CUDA call
  TimeNs host_ns = 0;        // outside CUDA after its first call
  // The process's GPU work in the window (union): it runs alongside the host, not in the sum.
  TimeNs gpu_busy_ns = 0;
  // With steps: the first step's time, the median of steps 2..N, and the excess (warm-up; may
  // be negative when the first step was the faster).
  std::optional<TimeNs> first_step_ns, steady_median_ns, warmup_excess_ns;
  TimeNs first_step_context_ns = 0;  // context creation paid inside the first step (part of its excess)
  TimeNs length() const { return end - start; }
};

// nullopt without a main thread, or when nothing precedes the first step / launch.
std::optional<Startup> analyze_startup(const Trace& trace, const std::optional<SteadyState>& steady);

}  // namespace gpuscope::analysis
