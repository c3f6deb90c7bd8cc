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
  std::string name;                       // the range's name, e.g. "ProfilerStep#3"
  uint32_t run_id = 0, pid = 0, tid = 0;  // tid: the thread the range is on
  TimeNs start = 0, end = 0;
  // Union of the process's kernels, copies and memsets (all its GPUs) within [start, end).
  TimeNs gpu_busy_ns = 0;
  // The rest of the step, the GPU idle, split by what the step's thread did meanwhile:
  // inside a call that waits on the GPU (host_waits()), or anything else (launching work,
  // Python, host code). gpu_busy_ns + sync_idle_ns + launch_idle_ns = end - start.
  TimeNs sync_idle_ns = 0;
  TimeNs launch_idle_ns = 0;
  // The GPU work launched inside the step (by its launch call), wherever it ran.
  size_t kernels = 0;
  double launched_gpu_ns = 0;
};

// One rank's steps in a job of several (a process of the run with steps), ns.
struct RankSteps {
  uint32_t pid = 0;
  int32_t rank = -1;  // -1: the launcher set none
  Stats duration;     // over its steps
  double p90_ns = 0;  // 90th percentile of its step times (nearest rank)
};

// The steps of a job of several ranks: its k-th step ends when the last rank's k-th step ends (a
// synchronous job's step is over when its last rank is done) and starts when the first rank's
// starts, or when the job's previous step ended if that is later (the job's steps never overlap).
struct JobSteps {
  std::vector<RankSteps> ranks;  // by rank (unknown last), then pid
  std::vector<Interval> steps;   // the job's steps, in order
  Stats duration;                // over the job's steps
  double p90_ns = 0;
  size_t unmatched = 0;  // steps of ranks with more steps than the fewest, left out of the job's
};
inline constexpr double kStepP90 = 0.9;

struct StepSummary {
  std::string range;
  std::vector<Step> steps;  // by process, then start
  Stats duration;           // over steps
  Stats gpu_busy;           // over steps, ns
  // First step / median of the others, largest over processes with >= 3 steps (0: fewer).
  double first_ratio = 0;
  size_t unclosed = 0;          // instances never closed, left out
  std::string problem;          // why the steps could not be used (overlapping instances); empty: fine
  std::optional<JobSteps> job;  // when two or more processes of one run have steps (job_steps.cpp)
};

// ---- The steady state: steps 2..N -------------------------------------------------------

// What bounds a steady step. GPU-bound when the GPU is busy for at least kGpuBoundBusyShare of
// the median step; otherwise the larger of the two idle parts names the bound: launch-bound
// (idle while the host is not waiting on the GPU: it launches work or runs its own code, so
// the GPU runs dry) or sync-bound (idle while the host sits in a call waiting on the GPU).
enum class StepBound { GpuBound, LaunchBound, SyncBound };
const char* to_string(StepBound b);  // "GPU-bound", "launch-bound", "sync-bound"
inline constexpr double kGpuBoundBusyShare = 0.80;

// The steps after each process's first (the first pays for warm-up): medians over them, ns.
// The shares are of the median step, so "idle 52 % (0.61 of 1.16 ms)" reads consistently.
struct SteadySteps {
  size_t steps = 0;
  double step_ns = 0, gpu_busy_ns = 0, launch_idle_ns = 0, sync_idle_ns = 0;
  double busy_share = 0, launch_share = 0, sync_share = 0;  // fractions (0..1) of step_ns
  StepBound bound = StepBound::GpuBound;
};
// nullopt when no process has two steps.
std::optional<SteadySteps> steady_steps(const StepSummary& summary);

// The one-line verdict the report leads with, e.g. "launch-bound: the GPU is idle 52 % of each
// step (0.61 of 1.16 ms) while the host launches work; GPU busy 0.55 ms".
std::string verdict(const SteadySteps& s);

// The window of the run the rules and the Bottleneck judge when the program's process (root_pid)
// has steps: its steps 2..N, from the second step's start to the last step's end (the first step
// and all before it are start-up and warm-up, shown in the report's Start-up section). In a job of
// several ranks, the job's steps 2..N (JobSteps).
struct SteadyState {
  std::string range;            // the steps' range (a name or glob)
  uint32_t pid = 0;             // the program's process (root_pid)
  size_t steps = 0;             // its (the job's) steps; the window spans steps 2..steps
  Interval first;               // step 1
  std::vector<Interval> later;  // steps 2..N, by start
  TimeNs start = 0, end = 0;    // later.front().start .. later.back().end
  TimeNs length() const { return end - start; }
  bool contains(TimeNs t) const { return t >= start && t < end; }
};
// nullopt when the program's process has fewer than 2 usable steps (or the summary a problem).
std::optional<SteadyState> steady_state(const Trace& trace, const StepSummary& summary);
// detect_step_range() + summarize_steps() + steady_state(): what run_rules() judges by default.
std::optional<SteadyState> detect_steady_state(const Trace& trace);

// The calls of a thread during which the host waits on the GPU: synchronization calls
// (classify_api: *Synchronize, stream/event waits and queries) and copies/memsets whose GPU
// record is synchronous. Merged, sorted intervals.
std::vector<Interval> host_waits(const Trace& trace, uint32_t pid, uint32_t tid);

// The range whose instances are the run's steps: torch.profiler's ProfilerStep#N when the trace
// has them, else the outermost NVTX range that repeats at least kMinDetectedSteps times on the
// program's main thread (root_pid, repeating_range); "" when there is none.
inline constexpr size_t kMinDetectedSteps = 3;
std::string detect_step_range(const Trace& trace);

// nullopt when no range matches `range` (the trace has no steps).
std::optional<StepSummary> summarize_steps(const Trace& trace, const std::string& range = kProfilerStepRange);

// The job's steps from a summary's (steps by process, then start); nullopt unless two or more
// processes of one run have steps. Called by summarize_steps.
std::optional<JobSteps> job_steps(const Trace& trace, const std::vector<Step>& steps);

}  // namespace gpuscope::analysis
