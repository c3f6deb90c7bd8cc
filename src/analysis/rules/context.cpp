// RuleContext: the main thread, the repeated part of the run, positions and
// NVTX ranges for evidence. Built once, shared by every rule.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <tuple>

#include "analysis/grouping.h"
#include "analysis/rules/rule.h"

namespace gpuscope::analysis::rules {
namespace {

RepeatedPart from_nvtx(const Trace& t, const MainThread& mt) {
  const std::optional<StringId> best = repeating_range(t, mt, 2);
  RepeatedPart p;
  if (!best) return p;
  auto instances = range_instances(t, mt, *best);
  p.range_name = t.strings.get(*best);
  p.instances = instances.size();
  p.steady.assign(instances.begin() + 1, instances.end());
  return p;
}

RepeatedPart from_steady(const SteadyState& steady) {
  RepeatedPart p;
  p.range_name = steady.range;
  p.instances = steady.steps;
  p.steady = steady.later;
  return p;
}

RepeatedPart from_kernels(const Trace& t, const MainThread& mt) {
  std::map<StringId, size_t> launches;  // mangled name -> launches
  for (const Kernel& k : t.kernels)
    if (k.pid == mt.pid) ++launches[k.mangled_name];
  std::optional<StringId> best;  // the first name (by id) of the most launches, 2 or more
  size_t most = 0;
  for (const auto& [name, n] : launches)
    if (n >= 2 && n > most) best = name, most = n;
  RepeatedPart p;
  if (!best) return p;
  LastByKey<uint32_t, TimeNs> call_end;  // correlation -> launch call end
  for (const ApiCall& c : t.api_calls)
    if (c.pid == mt.pid) call_end.add(c.correlation_id, c.end);
  call_end.seal();
  TimeNs first = INT64_MAX, last = INT64_MIN;
  for (const Kernel& k : t.kernels) {
    if (k.pid != mt.pid || k.mangled_name != *best) continue;
    if (const TimeNs* end = call_end.find(k.correlation_id)) first = std::min(first, *end);
    last = std::max(last, k.end);
  }
  p.instances = most;
  if (first < last) p.steady.push_back({first, last});
  return p;
}

// nvtx_at()'s steps: a sweep over the ranges' starts and ends keeps the open ranges in a heap,
// deepest on top (ties: the earlier in the trace, which a scan in trace order keeps); a range
// leaves the heap when it surfaces closed. O(R log R) once, then a binary search per lookup.
void index_nvtx(RuleContext& ctx) {
  std::vector<const NvtxRange*> ranges;  // of the main thread, by start
  for (const NvtxRange& r : ctx.trace.nvtx_ranges)
    if (r.pid == ctx.main->pid && r.tid == ctx.main->tid && r.end > r.start) ranges.push_back(&r);
  std::sort(ranges.begin(), ranges.end(), [](const NvtxRange* a, const NvtxRange* b) { return a->start < b->start; });
  std::vector<TimeNs>& bounds = ctx.nvtx_bounds;
  for (const NvtxRange* r : ranges) bounds.push_back(r->start), bounds.push_back(r->end);
  std::sort(bounds.begin(), bounds.end());
  bounds.erase(std::unique(bounds.begin(), bounds.end()), bounds.end());
  const auto outer = [](const NvtxRange* a, const NvtxRange* b) {  // a below b in the heap
    return a->depth != b->depth ? a->depth < b->depth : a > b;
  };
  std::vector<const NvtxRange*> open;
  size_t next = 0;
  ctx.nvtx_innermost.reserve(bounds.size());
  for (TimeNs b : bounds) {
    for (; next < ranges.size() && ranges[next]->start <= b; ++next) {
      open.push_back(ranges[next]);
      std::push_heap(open.begin(), open.end(), outer);
    }
    while (!open.empty() && open.front()->end <= b) {
      std::pop_heap(open.begin(), open.end(), outer);
      open.pop_back();
    }
    ctx.nvtx_innermost.push_back(open.empty() ? nullptr : open.front());
  }
}

}  // namespace

bool RepeatedPart::contains(TimeNs t) const {
  // steady is sorted by start and its instances do not overlap: look at the last one starting at or before t.
  auto it = std::upper_bound(steady.begin(), steady.end(), t, [](TimeNs v, const Interval& i) { return v < i.start; });
  return it != steady.begin() && t < std::prev(it)->end;
}

RuleContext make_context(const Trace& trace, const RuleInputs& inputs) {
  RuleContext ctx{trace, inputs};
  ctx.torch = std::make_shared<const TorchOps>(trace);
  ctx.source = inputs.source;
  if (!ctx.source && has_pc_samples(trace))
    ctx.source = std::make_shared<const SourceProfile>(profile_source(trace, nullptr, kSourceRows, 0));
  ctx.kernel_groups = summarize_kernels(trace);
  ctx.top_occupancy = kernel_occupancy(trace, ctx.kernel_groups, 5);
  const Attribution& a = inputs.attribution;
  ctx.wall_ns = a.wall_ns;
  ctx.main = a.thread;
  ctx.run_start = trace.run.start > 0 ? trace.run.start : 0;
  if (!ctx.main) return ctx;
  ctx.context_creation = find_context_creation(trace, ctx.main->pid);
  ctx.repeated = ctx.steady && ctx.steady->pid == ctx.main->pid ? from_steady(*ctx.steady)
                                                                : from_nvtx(trace, *ctx.main);
  if (ctx.repeated.steady.empty()) ctx.repeated = from_kernels(trace, *ctx.main);
  std::vector<size_t>& all = ctx.all_main_calls;
  for (size_t i = 0; i < trace.api_calls.size(); ++i) {
    const ApiCall& c = trace.api_calls[i];
    if (c.pid == ctx.main->pid && c.tid == ctx.main->tid) all.push_back(i);
  }
  stable_sort_unless_sorted(all.begin(), all.end(),
                            [&](size_t x, size_t y) { return trace.api_calls[x].start < trace.api_calls[y].start; });
  if (ctx.run_start == 0 && !all.empty()) ctx.run_start = trace.api_calls[all.front()].start;
  for (size_t i : all)
    if (ctx.judged(trace.api_calls[i].start)) ctx.main_calls.push_back(i);
  ctx.retimer.emplace(trace, *ctx.main);
  index_nvtx(ctx);
  return ctx;
}

std::vector<EvidenceSpan> RuleContext::repeated_spans() const {
  std::vector<EvidenceSpan> out;
  if (main)
    for (const Interval& i : repeated.steady) out.push_back({main->pid, i.start, i.end});
  return out;
}

std::string RuleContext::at(TimeNs t) const { return fmt::format("{:.3f} s into the run", (t - run_start) / 1e9); }

std::string RuleContext::nvtx_at(TimeNs t) const {
  const auto after = std::upper_bound(nvtx_bounds.begin(), nvtx_bounds.end(), t);
  const NvtxRange* best = after == nvtx_bounds.begin() ? nullptr : nvtx_innermost[after - nvtx_bounds.begin() - 1];
  return best ? trace.strings.get(best->name) : std::string();
}

bool RuleContext::worth(TimeNs saving_ns) const {
  return saving_ns >= 50'000 && static_cast<double>(saving_ns) >= 0.005 * static_cast<double>(wall_ns);
}

bool RuleContext::worth_in_loop(TimeNs saving_ns) const {
  if (worth(saving_ns)) return true;
  TimeNs loop = 0;
  for (const Interval& i : repeated.steady) loop = add_saturated(loop, i.end - i.start);
  return saving_ns >= 50'000 && static_cast<double>(saving_ns) >= 0.01 * static_cast<double>(loop);
}

// PCIe Gen5 x16 (cc 9.x, 10.x): 50 GB/s (the H200 capture in tests/data measures 55.4 GB/s
// pinned); Gen4 x16 (cc 8.x): 25 GB/s; Gen3 x16 (older): 12 GB/s; NVLink-C2C (GH200/GB200):
// 200 GB/s. All bytes/s per direction.
Bandwidth default_link_bandwidth(const Trace& t, uint32_t pid, uint32_t device) {
  const Device* d = nullptr;
  for (const Device& x : t.devices)
    if (x.pid == pid && x.id == device) d = &x;
  if (d && (d->name.find("GH200") != std::string::npos || d->name.find("GB200") != std::string::npos))
    return {200e9, "default for NVLink-C2C (GH200/GB200): 200 GB/s"};
  if (d && d->compute_major >= 9) return {50e9, "default for PCIe Gen5 x16: 50 GB/s"};
  if (d && d->compute_major == 8) return {25e9, "default for PCIe Gen4 x16: 25 GB/s"};
  return {12e9, "default for PCIe Gen3 x16: 12 GB/s"};
}

std::vector<EvidenceSpan> evidence_spans(std::vector<EvidenceSpan> spans) {
  std::erase_if(spans, [](const EvidenceSpan& s) { return s.start <= 0 || s.end < s.start; });
  const auto by_start = [](const EvidenceSpan& a, const EvidenceSpan& b) {
    return std::tie(a.start, a.end, a.pid) < std::tie(b.start, b.end, b.pid);
  };
  if (spans.size() > kMaxEvidenceSpans) {
    // The longest; of equal lengths the earlier ones (spans equal in all of start, end and pid
    // are alike, so which of them stays makes no difference). A partial sort: a rule may pass
    // a million launches.
    const auto longer = [&](const EvidenceSpan& a, const EvidenceSpan& b) {
      return a.end - a.start != b.end - b.start ? a.end - a.start > b.end - b.start : by_start(a, b);
    };
    std::partial_sort(spans.begin(), spans.begin() + kMaxEvidenceSpans, spans.end(), longer);
    spans.resize(kMaxEvidenceSpans);
  }
  std::sort(spans.begin(), spans.end(), by_start);
  return spans;
}

std::vector<EvidenceSpan> kernel_launch_spans(const Trace& t, const std::vector<std::string>& names) {
  std::vector<EvidenceSpan> out;
  for (const Kernel& k : t.kernels)
    if (std::find(names.begin(), names.end(), detail::kernel_name(t, k)) != names.end()) out.push_back(span_of(k));
  return evidence_spans(std::move(out));
}

std::string ms(TimeNs ns) { return fmt::format("{:.2f} ms", ns / 1e6); }
std::string gbps(double bps) { return fmt::format("{:.1f} GB/s", bps / 1e9); }

}  // namespace gpuscope::analysis::rules
