// The steady state of a run with steps (gpuscope/analysis_steps.h): what bounds a step after
// warm-up (steady_steps, verdict) and the window the rules and the Bottleneck judge
// (steady_state). Times in ns.
#include <fmt/format.h>

#include <algorithm>

#include "gpuscope/analysis_steps.h"

namespace gpuscope::analysis {

const char* to_string(StepBound b) {
  switch (b) {
    case StepBound::GpuBound: return "GPU-bound";
    case StepBound::LaunchBound: return "launch-bound";
    case StepBound::SyncBound: return "sync-bound";
  }
  return "?";
}

std::optional<SteadySteps> steady_steps(const StepSummary& summary) {
  // Steps are sorted by process, then start: a step is steady unless it is its process's first.
  std::vector<double> step, busy, launch, sync;
  const Step* prev = nullptr;
  for (const Step& s : summary.steps) {
    const bool first = !prev || prev->run_id != s.run_id || prev->pid != s.pid;
    prev = &s;
    if (first) continue;
    step.push_back(static_cast<double>(s.end - s.start));
    busy.push_back(static_cast<double>(s.gpu_busy_ns));
    launch.push_back(static_cast<double>(s.launch_idle_ns));
    sync.push_back(static_cast<double>(s.sync_idle_ns));
  }
  if (step.empty()) return std::nullopt;
  SteadySteps out;
  out.steps = step.size();
  out.step_ns = median(std::move(step));
  out.gpu_busy_ns = median(std::move(busy));
  out.launch_idle_ns = median(std::move(launch));
  out.sync_idle_ns = median(std::move(sync));
  if (out.step_ns <= 0) return out;  // zero-length steps: nothing bounds them
  out.busy_share = out.gpu_busy_ns / out.step_ns;
  out.launch_share = out.launch_idle_ns / out.step_ns;
  out.sync_share = out.sync_idle_ns / out.step_ns;
  if (out.busy_share >= kGpuBoundBusyShare) out.bound = StepBound::GpuBound;
  else out.bound = out.launch_idle_ns >= out.sync_idle_ns ? StepBound::LaunchBound : StepBound::SyncBound;
  return out;
}

std::string verdict(const SteadySteps& s) {
  const auto ms = [](double ns) { return fmt::format("{:.2f}", ns / 1e6); };
  switch (s.bound) {
    case StepBound::GpuBound:
      return fmt::format("GPU-bound: the GPU is busy {:.0f}% of each step ({} of {} ms)", 100 * s.busy_share,
                         ms(s.gpu_busy_ns), ms(s.step_ns));
    case StepBound::LaunchBound:
      return fmt::format(
          "launch-bound: the GPU is idle {:.0f}% of each step ({} of {} ms) while the host launches "
          "work; GPU busy {} ms",
          100 * s.launch_share, ms(s.launch_idle_ns), ms(s.step_ns), ms(s.gpu_busy_ns));
    case StepBound::SyncBound:
      return fmt::format(
          "sync-bound: the GPU is idle {:.0f}% of each step ({} of {} ms) while the host waits on it; "
          "GPU busy {} ms",
          100 * s.sync_share, ms(s.sync_idle_ns), ms(s.step_ns), ms(s.gpu_busy_ns));
  }
  return "";
}

std::optional<SteadyState> steady_state(const Trace& trace, const StepSummary& summary) {
  const std::optional<uint32_t> pid = root_pid(trace);
  if (!pid || !summary.problem.empty()) return std::nullopt;
  // The job's steps when several ranks have them (the program's process is one of them), else the
  // program's own, by start (of its first run in the file, should it hold several).
  const bool job = summary.job && std::any_of(summary.job->ranks.begin(), summary.job->ranks.end(),
                                              [&](const RankSteps& r) { return r.pid == *pid; });
  std::vector<Interval> mine;
  std::optional<uint32_t> run;
  if (job) mine = summary.job->steps;
  for (const Step& s : summary.steps) {
    if (job || s.pid != *pid || (run && s.run_id != *run)) continue;
    run = s.run_id;
    mine.push_back({s.start, s.end});
  }
  if (mine.size() < 2) return std::nullopt;
  std::sort(mine.begin(), mine.end(), [](const Interval& a, const Interval& b) { return a.start < b.start; });
  SteadyState out;
  out.range = summary.range;
  out.pid = *pid;
  out.steps = mine.size();
  out.first = mine.front();
  out.later.assign(mine.begin() + 1, mine.end());
  out.start = out.later.front().start;
  for (const Interval& i : out.later) out.end = std::max(out.end, i.end);
  return out;
}

std::optional<SteadyState> detect_steady_state(const Trace& trace) {
  const std::string range = detect_step_range(trace);
  if (range.empty()) return std::nullopt;
  const std::optional<StepSummary> summary = summarize_steps(trace, range);
  return summary ? steady_state(trace, *summary) : std::nullopt;
}

}  // namespace gpuscope::analysis
