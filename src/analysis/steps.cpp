// summarize_steps(): training steps from an iteration range (gpuscope/analysis_steps.h).
#include "gpuscope/analysis_steps.h"

#include <algorithm>
#include <map>
#include <tuple>

#include "analysis/timeline_util.h"
#include "common/error.h"
#include "common/glob.h"

namespace gpuscope::analysis {

std::string detect_step_range(const Trace& trace) {
  for (const NvtxRange& r : trace.nvtx_ranges)
    if (glob_match(kProfilerStepRange, trace.strings.get(r.name))) return kProfilerStepRange;
  const std::optional<uint32_t> pid = root_pid(trace);
  const std::optional<MainThread> thread = pid ? main_thread(trace, *pid) : std::nullopt;
  if (!thread) return "";
  const std::optional<StringId> range = repeating_range(trace, *thread, kMinDetectedSteps);
  return range ? trace.strings.get(*range) : "";
}

std::vector<Interval> host_waits(const Trace& trace, uint32_t pid, uint32_t tid) {
  std::vector<uint32_t> blocking;  // correlation ids of the process's synchronous copies and memsets, sorted
  for (const Memcpy& m : trace.memcpys)
    if (m.pid == pid && !m.async) blocking.push_back(m.correlation_id);
  for (const Memset& m : trace.memsets)
    if (m.pid == pid && !m.async) blocking.push_back(m.correlation_id);
  std::sort(blocking.begin(), blocking.end());
  const ApiClasses classes(trace.strings);
  std::vector<Interval> out;
  for (const ApiCall& c : trace.api_calls) {
    if (c.pid != pid || c.tid != tid || c.end <= c.start || c.start <= 0) continue;
    const ApiClass k = classes(c.name);
    const bool waits = k == ApiClass::Synchronization ||
                       (k == ApiClass::Memory &&
                        std::binary_search(blocking.begin(), blocking.end(), c.correlation_id));
    if (waits) out.push_back({c.start, c.end});
  }
  return merge_intervals(std::move(out));
}

std::optional<StepSummary> summarize_steps(const Trace& trace, const std::string& range) {
  bool any = false;
  for (const NvtxRange& r : trace.nvtx_ranges) {
    if (glob_match(range, trace.strings.get(r.name))) {
      any = true;
      break;
    }
  }
  if (!any) return std::nullopt;

  StepSummary out;
  out.range = range;
  Iterations iterations;
  try {
    iterations = find_iterations(trace, {range, 0, 1, ""});
  } catch (const Error& e) {
    out.problem = e.what();  // e.g. instances overlapping on a thread: no steps to show
    return out;
  }
  out.unclosed = iterations.summary.unclosed;
  out.first_ratio = iterations.summary.first_ratio;

  // The range's name at each instance, for the step's label.
  std::map<std::tuple<uint32_t, uint32_t, uint32_t, TimeNs>, StringId> names;
  for (const NvtxRange& r : trace.nvtx_ranges)
    if (r.end > r.start && glob_match(range, trace.strings.get(r.name)))
      names[{r.run_id, r.pid, r.tid, r.start}] = r.name;

  // Per (run, process): its GPU work merged into busy intervals.
  std::map<std::pair<uint32_t, uint32_t>, std::vector<Interval>> busy;
  for (const Kernel& k : trace.kernels) busy[{k.run_id, k.pid}].push_back({k.start, k.end});
  for (const Memcpy& m : trace.memcpys) busy[{m.run_id, m.pid}].push_back({m.start, m.end});
  for (const Memset& m : trace.memsets) busy[{m.run_id, m.pid}].push_back({m.start, m.end});
  for (auto& [process, intervals] : busy) intervals = merge_intervals(std::move(intervals));

  std::map<std::pair<uint32_t, uint32_t>, std::vector<Interval>> waits;  // (pid, tid) -> host_waits()
  const std::vector<Interval> none;
  for (const Iteration& i : iterations.kept) {
    Step s;
    const auto name = names.find({i.run_id, i.pid, i.tid, i.start});
    s.name = name == names.end() ? "" : trace.strings.get(name->second);
    s.run_id = i.run_id, s.pid = i.pid, s.tid = i.tid;
    s.start = i.start;
    s.end = i.end;
    const auto process = busy.find({i.run_id, i.pid});
    const std::vector<Interval>& gpu = process == busy.end() ? none : process->second;
    s.gpu_busy_ns = covered_within(gpu, i.start, i.end);
    auto wait = waits.find({i.pid, i.tid});
    if (wait == waits.end()) wait = waits.emplace(std::pair{i.pid, i.tid}, host_waits(trace, i.pid, i.tid)).first;
    // GPU idle while waiting: the waits' time in the step that no GPU work covers.
    s.sync_idle_ns = union_within(gpu, wait->second, i.start, i.end) - s.gpu_busy_ns;
    s.launch_idle_ns = (i.end - i.start) - s.gpu_busy_ns - s.sync_idle_ns;
    out.steps.push_back(std::move(s));
  }
  auto launched = [&](uint32_t run, uint32_t pid, uint32_t correlation, TimeNs start, TimeNs end, bool kernel) {
    const std::optional<uint32_t> step = iterations.of_gpu(run, pid, correlation);
    if (!step) return;
    out.steps[*step].launched_gpu_ns += static_cast<double>(duration(start, end));
    out.steps[*step].kernels += kernel;
  };
  for (const Kernel& k : trace.kernels) launched(k.run_id, k.pid, k.correlation_id, k.start, k.end, true);
  for (const Memcpy& m : trace.memcpys) launched(m.run_id, m.pid, m.correlation_id, m.start, m.end, false);
  for (const Memset& m : trace.memsets) launched(m.run_id, m.pid, m.correlation_id, m.start, m.end, false);

  std::vector<double> durations, gpu_busy;
  for (const Step& s : out.steps) {
    durations.push_back(static_cast<double>(s.end - s.start));
    gpu_busy.push_back(static_cast<double>(s.gpu_busy_ns));
  }
  out.duration = describe(std::move(durations));
  out.gpu_busy = describe(std::move(gpu_busy));
  out.job = job_steps(trace, out.steps);
  return out;
}

}  // namespace gpuscope::analysis
