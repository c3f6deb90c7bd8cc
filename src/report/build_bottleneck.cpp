// "Bottleneck": where the wall time went (attribution of the root process's
// main thread, categories sum to wall time) and the GPU timeline per device.
#include <fmt/format.h>

#include <algorithm>
#include <optional>

#include "gpuscope/analysis_timeline.h"
#include "report/builder.h"
#include "report/units.h"

namespace gpuscope::report {
namespace {

const char* category_title(analysis::TimeCategory c) {
  using analysis::TimeCategory;
  switch (c) {
    case TimeCategory::CudaInit: return "Before CUDA + context creation";
    case TimeCategory::KernelCompute: return "Kernel compute (host waiting)";
    case TimeCategory::MemoryOps: return "Memory operations";
    case TimeCategory::Allocation: return "Allocation / free";
    case TimeCategory::SyncWait: return "Synchronization wait (GPU idle)";
    case TimeCategory::OtherApi: return "Other CUDA API";
    case TimeCategory::HostOutsideCuda: return "Host work outside CUDA";
    case TimeCategory::Count: break;
  }
  return "?";
}

Table attribution_table(const analysis::Attribution& a) {
  Table t;
  t.key = "time_attribution";
  t.title = "Wall time by activity of the main thread";
  t.columns = {text_column("category", "Activity"), text_column("key", "Key"), num_column("time", "Time", Unit::Ns),
               num_column("wall_percent", "% of wall", Unit::Percent)};
  for (int c = 0; c < static_cast<int>(analysis::TimeCategory::Count); ++c) {
    const auto cat = static_cast<analysis::TimeCategory>(c);
    const double ns = static_cast<double>(a.get(cat));
    t.rows.push_back({text(category_title(cat)), text(analysis::to_string(cat)), num(ns, Unit::Ns),
                      opt_num(analysis::share_percent(ns, static_cast<double>(a.wall_ns)), Unit::Percent)});
  }
  t.notes.push_back(
      "Each ns of wall time counts once, by precedence: before CUDA + context creation > allocation call > "
      "copy/memset call > sync call (blamed on the kernel or copy it waited for) > other CUDA call > outside CUDA.");
  return t;
}

Table device_table(const analysis::Timeline& tl) {
  Table t;
  t.key = "gpu_timeline";
  t.title = "GPU timeline per device (per process)";
  t.columns = {num_column("pid", "PID", Unit::Plain),
               num_column("device", "Device", Unit::Plain),
               num_column("busy", "Busy", Unit::Ns),
               num_column("idle", "Idle gaps", Unit::Ns),
               num_column("kernel", "Kernels", Unit::Ns),
               num_column("copy", "Copies", Unit::Ns),
               num_column("overlap", "Copy under kernel", Unit::Ns),
               num_column("concurrent", "2+ streams", Unit::Ns)};
  for (const auto& d : tl.devices)
    t.rows.push_back({num(d.pid, Unit::Plain), num(d.device, Unit::Plain), num(double(d.busy_ns), Unit::Ns),
                      num(double(d.idle_ns), Unit::Ns), num(double(d.kernel_ns), Unit::Ns),
                      num(double(d.copy_ns), Unit::Ns), num(double(d.copy_kernel_overlap_ns), Unit::Ns),
                      num(double(d.concurrent_ns), Unit::Ns)});
  if (!t.rows.empty())
    t.notes.push_back("Idle gaps: GPU idle between its first and last activity. Kernels/Copies: union of each kind.");
  return t;
}

Table gap_table(const analysis::Timeline& tl, TimeNs origin, size_t top) {
  Table t;
  t.key = "idle_gaps";
  t.title = "Longest GPU idle gaps and what the CPU did";
  t.columns = {num_column("pid", "PID", Unit::Plain),
               num_column("at", "At", Unit::Ns),
               num_column("length", "Length", Unit::Ns),
               num_column("in_sync", "In sync", Unit::Ns),
               num_column("in_api", "In other API", Unit::Ns),
               num_column("outside", "Outside CUDA", Unit::Ns),
               text_column("main_api", "Main API call", TextStyle::Identifier)};
  // Each device's longest gaps, as many as analyze_timeline() lists by default (the timeline
  // here lists all, for the rules): the rows left out are counted among those.
  const size_t per_device = analysis::TimelineOptions{}.max_gaps;
  std::vector<std::pair<const analysis::DeviceTimeline*, const analysis::IdleGap*>> gaps;
  for (const auto& d : tl.devices)
    for (size_t i = 0; i < std::min(per_device, d.gaps.size()); ++i) gaps.emplace_back(&d, &d.gaps[i]);
  std::stable_sort(gaps.begin(), gaps.end(), [](const auto& a, const auto& b) {
    return a.second->end - a.second->start > b.second->end - b.second->start;
  });
  for (const auto& [d, g] : gaps)
    t.rows.push_back({num(d->pid, Unit::Plain), num(double(g->start - origin), Unit::Ns),
                      num(double(g->end - g->start), Unit::Ns), num(double(g->cpu.in_sync_ns), Unit::Ns),
                      num(double(g->cpu.in_api_ns), Unit::Ns), num(double(g->cpu.outside_ns), Unit::Ns),
                      text(g->cpu.main_api.empty() ? "-" : g->cpu.main_api)});
  t.empty_text = "none of 0.1 ms or more";
  limit_rows(t, top);
  if (!t.rows.empty()) t.notes.push_back("At: time since the run started.");
  return t;
}

}  // namespace

std::string steady_state_text(const analysis::SteadyState& steady, TimeNs wall_ns) {
  return fmt::format("steady state: steps 2–{} of {}, {} of {}", steady.steps, steady.range,
                     format_duration(static_cast<double>(steady.length())),
                     format_duration(static_cast<double>(wall_ns)));
}

Section build_bottleneck_section(const Trace& trace, size_t top, const analysis::RuleInputs& inputs) {
  Section s;
  s.key = "bottleneck";
  s.title = "Bottleneck";
  const auto& a = inputs.attribution;
  const auto& tl = inputs.timeline;
  // Without timestamps (an ncu CSV) there is no timeline to explain; without API calls the host
  // side of the wall time cannot be attributed, though the GPU timeline still can.
  for (const char* what : {kGapTimeline, kGapApiCalls}) {
    const SourceGap* gap = trace.gap(what);
    if (!gap) continue;
    s.lines.push_back({"not_in_source", "Not in the source", text(gap->what + ": " + gap->detail), ""});
    if (gap->what == kGapTimeline) return s;
    s.tables.push_back(device_table(tl));
    return s;
  }
  const analysis::Interval wall = analysis::wall_window(trace);
  if (inputs.steady)
    s.lines.push_back({"judged", "Judged", text(steady_state_text(*inputs.steady, wall.end - wall.start)),
                       "start-up and the first step: see Start-up"});
  if (a.thread)
    s.lines.push_back({"main_thread", "Main thread", text(fmt::format("pid {} tid {}", a.thread->pid, a.thread->tid)),
                       "the launched process's initial thread, else its thread with the most CUDA API time"});
  if (a.wall_ns > 0) {
    int top_cat = 0;  // the category with the most time: where to look first
    for (int c = 1; c < static_cast<int>(analysis::TimeCategory::Count); ++c)
      if (a.by_category[c] > a.by_category[top_cat]) top_cat = c;
    const auto cat = static_cast<analysis::TimeCategory>(top_cat);
    s.lines.push_back({"largest", "Largest share", text(category_title(cat)),
                       fmt::format("{:.1f}% of {}", 100.0 * double(a.get(cat)) / double(a.wall_ns),
                                   inputs.steady ? "the steady state" : "wall time")});
  }
  if (!inputs.steady)  // the steady state holds no context creation: the Start-up section shows it
    s.lines.push_back({"context_creation", "Context creation", num(double(a.context_creation_ns), Unit::Ns),
                       "excess of the first call that needed a context; part of start-up"});
  if (a.context_creation_ns > 0)
    s.lines.push_back({"context_creation_at", "Context created at",
                       num(double(a.context_creation_at - a.start), Unit::Ns), "since the run started"});
  const std::optional<double> delay = tl.launch_delay.count ? std::optional<double>(tl.launch_delay.median)
                                                            : std::nullopt;  // none: undefined
  s.lines.push_back(
      {"launch_delay_median", "Launch to start (median)", opt_num(delay, Unit::Ns),
       "kernel start minus its launch call's start, " + plural(tl.launch_delay.count, "kernel", "kernels")});
  s.tables.push_back(attribution_table(a));
  if (inputs.steady) s.tables.back().title = "Steady-state time by activity of the main thread";
  s.tables.push_back(device_table(tl));
  const TimeNs origin = trace.run.start > 0 ? trace.run.start
                                            : (tl.devices.empty() ? 0 : tl.devices.front().first_start);
  s.tables.push_back(gap_table(tl, origin, std::min<size_t>(top == 0 ? 10 : top, 10)));
  return s;
}

}  // namespace gpuscope::report
