// analyze_startup(): the run before its first step (or first kernel launch), on the launched
// process's main thread (gpuscope/analysis_startup.h).
#include "gpuscope/analysis_startup.h"

#include <algorithm>

#include "analysis/timeline_util.h"

namespace gpuscope::analysis {
namespace {

// Start of the main thread's first kernel launch call; nullopt when it launches none.
std::optional<TimeNs> first_launch(const Trace& t, const MainThread& mt, const ApiClasses& classes) {
  std::optional<TimeNs> first;
  for (const ApiCall& c : t.api_calls)
    if (c.pid == mt.pid && c.tid == mt.tid && c.start > 0 && classes(c.name) == ApiClass::Launch)
      first = std::min(first.value_or(c.start), c.start);
  return first;
}

// Context creation on the main thread: the excess at the start of the call that created the
// context (as the Bottleneck's attribution counts it); {0, 0} when none.
Interval context_creation(const Trace& t, const MainThread& mt) {
  const auto cc = find_context_creation(t, mt.pid);
  if (!cc || t.api_calls[cc->api_index].tid != mt.tid) return {0, 0};
  const ApiCall& call = t.api_calls[cc->api_index];
  return {call.start, call.start + cc->excess_ns};
}

TimeNs clipped(const Interval& i, TimeNs start, TimeNs end) {
  return std::max<TimeNs>(0, std::min(i.end, end) - std::max(i.start, start));
}

// The main thread's time in the window by what it did (Startup's five parts). `context`:
// context_creation(t, mt).
void split_host_time(const Trace& t, const MainThread& mt, const ApiClasses& classes, const Interval& context,
                     Startup& s) {
  std::vector<Interval> calls, loading;  // clipped to the window; runtime and nested driver calls alike
  TimeNs first_call = s.end;
  for (const ApiCall& c : t.api_calls) {
    if (c.pid != mt.pid || c.tid != mt.tid || c.start <= 0 || c.end <= c.start) continue;
    const TimeNs from = std::max(c.start, s.start), to = std::min(c.end, s.end);
    if (to <= from) continue;
    first_call = std::min(first_call, from);
    calls.push_back({from, to});
    if (classes(c.name) == ApiClass::Loading) loading.push_back({from, to}), ++s.loading_calls;
  }
  const std::vector<Interval> in_calls = merge_intervals(std::move(calls));
  const std::vector<Interval> in_loading = merge_intervals(std::move(loading));
  const TimeNs api = covered_within(in_calls, s.start, s.end);
  // Loading nested in the context creation's stretch counts as context creation.
  s.context_creation_ns = clipped(context, s.start, s.end);
  const TimeNs loading_in_context = s.context_creation_ns ? covered_within(in_loading, std::max(context.start, s.start),
                                                                           std::min(context.end, s.end))
                                                          : 0;
  s.loading_ns = covered_within(in_loading, s.start, s.end) - loading_in_context;
  s.other_cuda_ns = api - s.context_creation_ns - s.loading_ns;
  s.before_cuda_ns = first_call - s.start;
  s.host_ns = s.length() - s.before_cuda_ns - api;
}

}  // namespace

std::optional<Startup> analyze_startup(const Trace& trace, const std::optional<SteadyState>& steady) {
  const std::optional<uint32_t> pid = root_pid(trace);
  const std::optional<MainThread> mt = pid ? main_thread(trace, *pid) : std::nullopt;
  const Interval wall = wall_window(trace);
  if (!mt || wall.end <= wall.start) return std::nullopt;
  const ApiClasses classes(trace.strings);
  Startup s;
  s.start = wall.start;
  s.wall_ns = wall.end - wall.start;
  s.until_first_step = steady && steady->pid == *pid;
  const std::optional<TimeNs> end = s.until_first_step ? std::optional(steady->first.start)
                                                       : first_launch(trace, *mt, classes);
  if (!end || *end <= s.start) return std::nullopt;
  s.end = std::min(*end, wall.end);
  const Interval context = context_creation(trace, *mt);
  split_host_time(trace, *mt, classes, context, s);

  std::vector<Interval> gpu;
  for (const Kernel& k : trace.kernels)
    if (k.pid == *pid) gpu.push_back({k.start, k.end});
  for (const Memcpy& m : trace.memcpys)
    if (m.pid == *pid) gpu.push_back({m.start, m.end});
  for (const Memset& m : trace.memsets)
    if (m.pid == *pid) gpu.push_back({m.start, m.end});
  s.gpu_busy_ns = covered_within(merge_intervals(std::move(gpu)), s.start, s.end);

  if (s.until_first_step) {
    std::vector<double> later;
    for (const Interval& i : steady->later) later.push_back(static_cast<double>(i.end - i.start));
    s.first_step_ns = steady->first.end - steady->first.start;
    s.steady_median_ns = static_cast<TimeNs>(median(std::move(later)));
    s.warmup_excess_ns = *s.first_step_ns - *s.steady_median_ns;
    s.first_step_context_ns = clipped(context, steady->first.start, steady->first.end);
  }
  return s;
}

}  // namespace gpuscope::analysis
