// Rule unstable_timings: launches of the same kernel with the same launch shape (grid and block)
// vary a lot (CV >= 20 % over >= 5 launches). One kernel name run on different shapes (a cuDNN
// convolution kernel for every layer of a CNN) is different work, not instability, so shapes are
// judged apart; communication kernels, which wait for other ranks, are left to the straggler
// rule, and so are the launches that ran beside one on their GPU: DDP and FSDP overlap gradient
// all-reduces with backward compute on purpose, and a GEMM sharing the SMs with NCCL is slower by
// design, not unstable. In a process whose main thread repeats a range (a training step), a
// launch is judged against the same launch of the other steps (the k-th launch of its shape in
// its step, by launch call time; steps 2..N) when every step makes as many: one library GEMM
// kernel serving several layer sizes in each step is different work, not instability. Saving =
// time above that median (else the shape's), if every launch ran at it; causes are contention,
// clocks (power/thermal), data-dependent work or first-launch effects.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <tuple>
#include <vector>

#include "analysis/rules/rule.h"
#include "gpuscope/analysis.h"
#include "gpuscope/analysis_ranks.h"
#include "gpuscope/analysis_stats.h"
#include "gpuscope/analysis_timeline.h"

namespace gpuscope::analysis::rules {
namespace {

constexpr double kMinCvPercent = 20.0;
constexpr size_t kMinLaunches = 5;

// Each GPU's communication kernels (NCCL collectives), merged, per (run, process, device).
struct CollectiveTime {
  std::map<std::tuple<uint32_t, uint32_t, uint32_t>, std::vector<Interval>> busy;
  // Whether a timed kernel ran at the same time as a collective on its GPU.
  bool overlaps(const Kernel& k) const {
    const auto it = busy.find({k.run_id, k.pid, k.device});
    if (it == busy.end() || !timed(k.start, k.end)) return false;
    const std::vector<Interval>& in = it->second;
    const auto after = std::upper_bound(in.begin(), in.end(), k.start,
                                        [](TimeNs t, const Interval& i) { return t < i.end; });
    return after != in.end() && after->start < k.end;
  }
};

// Per process, the windows of its main thread's repeating range (an instance's start to the
// next one's; steps 2..N: the first pays for warm-up), and each kernel's launch call start.
struct StepWindows {
  std::map<uint32_t, std::vector<Interval>> windows;         // pid -> windows, by start
  std::map<std::pair<uint32_t, uint32_t>, TimeNs> launched;  // (pid, correlation) -> call start

  // The step a kernel was launched in: its window's index, nullopt outside every window.
  std::optional<size_t> step_of(const Kernel& k) const {
    const auto w = windows.find(k.pid);
    const auto call = launched.find({k.pid, k.correlation_id});
    if (w == windows.end() || call == launched.end()) return std::nullopt;
    const std::vector<Interval>& in = w->second;
    const auto it = std::upper_bound(in.begin(), in.end(), call->second,
                                     [](TimeNs t, const Interval& i) { return t < i.start; });
    if (it == in.begin() || call->second >= std::prev(it)->end) return std::nullopt;
    return static_cast<size_t>(std::prev(it) - in.begin());
  }
};

StepWindows step_windows(const Trace& trace) {
  StepWindows out;
  std::set<uint32_t> pids;
  for (const Kernel& k : trace.kernels) pids.insert(k.pid);
  for (uint32_t pid : pids) {
    const std::optional<MainThread> thread = main_thread(trace, pid);
    const std::optional<StringId> range = thread ? repeating_range(trace, *thread, 3) : std::nullopt;
    if (!range) continue;
    std::vector<Interval> steps = range_instances(trace, *thread, *range, true);
    steps.erase(steps.begin());  // repeating_range found 3 or more
    out.windows[pid] = std::move(steps);
  }
  for (const ApiCall& c : trace.api_calls)
    if (out.windows.count(c.pid)) out.launched.emplace(std::pair{c.pid, c.correlation_id}, c.start);
  return out;
}

// One launch shape's launches to judge, with where each stands in its step.
struct Launches {
  std::vector<const Kernel*> kernels;  // the first names the shape in the evidence
  std::vector<double> ns;
  // (pid, its ordinal among the shape's launches in its step, those beside a collective
  // included); nullopt when its process has no steps.
  std::vector<std::optional<std::pair<uint32_t, size_t>>> ordinal;
  std::map<std::pair<uint32_t, size_t>, size_t> per_step;  // (pid, step) -> every launch in it
};

// Each launch's reference: the median of the same launch (its ordinal in its step) over the
// steps, when every launch has steps and every step of its process has as many launches of the
// shape (and there are kMinLaunches steps or more); else nullopt.
std::optional<std::vector<double>> per_step_medians(const Launches& l, const StepWindows& steps) {
  if (l.per_step.size() < kMinLaunches) return std::nullopt;
  for (const auto& o : l.ordinal)
    if (!o) return std::nullopt;
  std::map<uint32_t, size_t> count;    // pid -> launches per step, when all its steps agree
  std::map<uint32_t, size_t> stepped;  // pid -> steps with launches
  for (const auto& [key, n] : l.per_step) {
    const auto [it, added] = count.emplace(key.first, n);
    if (!added && it->second != n) return std::nullopt;
    ++stepped[key.first];
  }
  for (const auto& [pid, n] : stepped)
    if (n != steps.windows.at(pid).size()) return std::nullopt;  // a step without the shape
  std::map<std::pair<uint32_t, size_t>, std::vector<double>> by_ordinal;
  for (size_t i = 0; i < l.ns.size(); ++i) by_ordinal[*l.ordinal[i]].push_back(l.ns[i]);
  std::map<std::pair<uint32_t, size_t>, double> medians;
  for (auto& [key, values] : by_ordinal) medians[key] = median(std::move(values));
  std::vector<double> out;
  for (size_t i = 0; i < l.ns.size(); ++i) out.push_back(medians[*l.ordinal[i]]);
  return out;
}

CollectiveTime collective_time(const Trace& trace) {
  CollectiveTime c;
  for (const Kernel& k : trace.kernels)
    if (timed(k.start, k.end) && classify_collective(trace.strings.get(k.name)) != Collective::None)
      c.busy[{k.run_id, k.pid, k.device}].push_back({k.start, k.end});
  for (auto& [key, intervals] : c.busy) intervals = merge_intervals(std::move(intervals));
  return c;
}

class UnstableRule final : public Rule {
 public:
  std::string id() const override { return "unstable_timings"; }

  std::optional<Finding> check(const RuleContext& ctx) const override {
    const CollectiveTime communication = collective_time(ctx.trace);
    const StepWindows steps = step_windows(ctx.trace);
    std::map<detail::LaunchShape, Launches> by_shape;
    std::map<detail::LaunchShape, size_t> beside;  // launches left out: they overlapped a collective
    for (const Kernel& k : ctx.trace.kernels) {
      // With steps, only the launches of steps 2..N are judged (start-up is not the loop).
      const std::optional<size_t> step = steps.step_of(k);
      if (steps.windows.count(k.pid) && !step) continue;
      const detail::LaunchShape shape = detail::launch_shape(k);
      Launches& l = by_shape[shape];
      std::optional<std::pair<uint32_t, size_t>> ordinal;
      if (step) ordinal = std::pair{k.pid, l.per_step[{k.pid, *step}]++};
      if (communication.overlaps(k)) {
        ++beside[shape];
        continue;
      }
      l.kernels.push_back(&k);
      l.ns.push_back(static_cast<double>(duration(k.start, k.end)));
      l.ordinal.push_back(ordinal);
    }
    Finding f;
    TimeNs saving = 0;
    std::vector<std::string> named;
    for (const auto& [shape, launches] : by_shape) {
      const std::vector<double>& values = launches.ns;
      if (values.size() < kMinLaunches) continue;  // also none at all: every launch beside a collective
      const std::string& name = detail::kernel_name(ctx.trace, *launches.kernels.front());
      // A collective's kernel lasts until the last rank arrives: its spread is the other ranks'
      // lateness (the straggler rule's), not this kernel's instability.
      if (classify_collective(name) != Collective::None) continue;
      // Each launch against its reference: the same launch in the other steps, else the shape's median.
      const Stats s = describe(values);
      const std::optional<std::vector<double>> per_step = per_step_medians(launches, steps);
      const std::vector<double> reference = per_step ? *per_step : std::vector<double>(values.size(), s.median);
      std::vector<double> ratios;
      for (size_t i = 0; i < values.size(); ++i) ratios.push_back(reference[i] > 0 ? values[i] / reference[i] : 1.0);
      const double cv = describe(ratios).cv_percent;
      if (cv < kMinCvPercent) continue;
      TimeNs above = 0;
      for (size_t i = 0; i < values.size(); ++i)
        above = add_saturated(above, static_cast<TimeNs>(std::max(0.0, values[i] - reference[i])));
      saving = add_saturated(saving, above);
      if (std::find(named.begin(), named.end(), name) == named.end()) named.push_back(name);
      std::string line = fmt::format("{} ({}): {} launches, CV {:.0f}%{}, median {}, max {}; {} above {}", name,
                                     detail::launch_config_text(*launches.kernels.front()), values.size(), cv,
                                     per_step ? " against the same launch in the other steps" : "",
                                     ms(static_cast<TimeNs>(s.median)), ms(static_cast<TimeNs>(s.max)), ms(above),
                                     per_step ? "it" : "the median");
      if (const auto left = beside.find(shape); left != beside.end())
        line += fmt::format(" ({} more beside a collective, left out)", left->second);
      f.evidence.push_back(std::move(line));
    }
    if (!ctx.worth(saving)) return std::nullopt;
    f.rule = id();
    f.title = "Unstable kernel timings";
    f.saving_ns = saving;
    f.estimate =
        "time above each launch's reference if every launch ran at it: the median of the same launch in the other "
        "steps (its ordinal in its step), else of its kernel's launch shape (grid, block)";
    f.spans = kernel_launch_spans(ctx.trace, named);
    f.advice =
        "Look for contention (other processes, concurrent streams), clock changes (lock clocks when "
        "benchmarking), first-launch effects, or data-dependent work.";
    return f;
  }
};

}  // namespace

std::unique_ptr<Rule> make_unstable_timings_rule() { return std::make_unique<UnstableRule>(); }

}  // namespace gpuscope::analysis::rules
