// Per-device and per-stream timeline: busy time, idle gaps (and what the CPU
// did meanwhile), copy/kernel overlap, cross-stream concurrency, launch delay.
// A device is (pid, ordinal): each process's view of its GPU, so a gap means
// "this process left the GPU idle", which is what its owner can act on.
#include <algorithm>
#include <map>
#include <tuple>
#include <unordered_map>

#include "analysis/timeline_util.h"
#include "gpuscope/analysis_timeline.h"

namespace gpuscope::analysis {
namespace {

struct Op {
  TimeNs start, end;
  uint32_t stream;
  bool kernel;
};

using DeviceKey = std::pair<uint32_t, uint32_t>;  // pid, device

// [start, end) clipped to the window; false when nothing of it is inside.
bool clip(const std::optional<Interval>& window, TimeNs& start, TimeNs& end) {
  if (!window) return true;
  start = std::max(start, window->start);
  end = std::min(end, window->end);
  return end > start;
}

std::map<DeviceKey, std::vector<Op>> ops_by_device(const Trace& t, const std::optional<Interval>& window) {
  std::map<DeviceKey, std::vector<Op>> out;
  auto add = [&](uint32_t pid, uint32_t device, TimeNs start, TimeNs end, uint32_t stream, bool kernel) {
    if (clip(window, start, end)) out[{pid, device}].push_back({start, end, stream, kernel});
  };
  for (const auto& k : t.kernels) add(k.pid, k.device, k.start, k.end, k.stream, true);
  for (const auto& m : t.memcpys) add(m.pid, m.device, m.start, m.end, m.stream, false);
  for (const auto& m : t.memsets) add(m.pid, m.device, m.start, m.end, m.stream, false);
  return out;
}

// Sweep over start/end points: time with >= 2 distinct streams active. Sorted by time only:
// time is added only between distinct times, and by then every point of the earlier time has
// been counted, whatever their order.
TimeNs concurrent_time(const std::vector<Op>& ops) {
  struct Point {
    TimeNs time;
    int32_t delta;  // +1 start, -1 end
    uint32_t stream;
  };
  std::vector<Point> points;
  points.reserve(2 * ops.size());
  for (const Op& o : ops) {
    if (o.end <= o.start) continue;
    points.push_back({o.start, +1, o.stream});
    points.push_back({o.end, -1, o.stream});
  }
  std::sort(points.begin(), points.end(), [](const Point& a, const Point& b) { return a.time < b.time; });
  std::unordered_map<uint32_t, int> active;  // stream -> open ops
  size_t streams_active = 0;
  TimeNs total = 0, prev = 0;
  for (const auto& [time, delta, stream] : points) {
    if (streams_active >= 2) total += time - prev;
    prev = time;
    int& n = active[stream];
    if (delta > 0 && n++ == 0) ++streams_active;
    if (delta < 0 && --n == 0) --streams_active;
  }
  return total;
}

// API calls of one process sorted by start, so a gap only looks at the calls that can
// overlap it: max_end[i] is the latest end of calls 0..i, so the calls before the first
// max_end past the gap's start all ended before it (one long call early on, such as context
// creation, does not make every later gap scan back to it).
struct CallIndex {
  std::vector<const ApiCall*> by_start;
  std::vector<TimeNs> max_end;
};

std::map<uint32_t, CallIndex> index_calls(const Trace& t) {
  std::map<uint32_t, CallIndex> out;
  for (const ApiCall& c : t.api_calls) out[c.pid].by_start.push_back(&c);
  for (auto& entry : out) {
    CallIndex& idx = entry.second;  // not a structured binding: clang 14 cannot capture one in a lambda
    std::vector<const ApiCall*> by_start;
    by_start.reserve(idx.by_start.size());
    for (uint32_t i : stable_order(idx.by_start.size(), [&](size_t i) { return idx.by_start[i]->start; }))
      by_start.push_back(idx.by_start[i]);
    idx.by_start = std::move(by_start);
    idx.max_end.reserve(idx.by_start.size());
    for (const ApiCall* c : idx.by_start)
      idx.max_end.push_back(idx.max_end.empty() ? c->end : std::max(idx.max_end.back(), c->end));
  }
  return out;
}

GapActivity cpu_during(const Trace& t, const CallIndex& calls, TimeNs start, TimeNs end) {
  GapActivity a;
  std::vector<Interval> sync, api;
  std::map<std::string, TimeNs> by_name;
  auto it = calls.by_start.begin() +
            (std::upper_bound(calls.max_end.begin(), calls.max_end.end(), start) - calls.max_end.begin());
  for (; it != calls.by_start.end() && (*it)->start < end; ++it) {
    const ApiCall& c = **it;
    if (c.end <= start) continue;
    const Interval clipped{std::max(c.start, start), std::min(c.end, end)};
    const std::string& name = t.strings.get(c.name);
    (classify_api(name) == ApiClass::Synchronization ? sync : api).push_back(clipped);
    by_name[name] += clipped.end - clipped.start;
  }
  a.in_sync_ns = union_length(sync);
  sync.insert(sync.end(), api.begin(), api.end());
  const TimeNs in_any = union_length(std::move(sync));
  a.in_api_ns = in_any - a.in_sync_ns;
  a.outside_ns = (end - start) - in_any;
  TimeNs best = 0;
  for (const auto& [name, ns] : by_name)
    if (ns > best) best = ns, a.main_api = name;
  return a;
}

DeviceTimeline device_timeline(const Trace& t, const CallIndex& calls, DeviceKey key, std::vector<Op> ops,
                               const TimelineOptions& opt) {
  DeviceTimeline d;
  d.pid = key.first;
  d.device = key.second;
  std::vector<Interval> all, kernels, copies;
  all.reserve(ops.size());
  for (const Op& o : ops) {
    all.push_back({o.start, o.end});
    (o.kernel ? kernels : copies).push_back({o.start, o.end});
  }
  const auto merged = merge_intervals(std::move(all));  // merges as union_length() does
  for (const Interval& i : merged) d.busy_ns += i.end - i.start;
  d.kernel_ns = union_length(std::move(kernels));
  d.copy_ns = union_length(std::move(copies));
  d.copy_kernel_overlap_ns = d.kernel_ns - (d.busy_ns - d.copy_ns);  // inclusion-exclusion, each step in int64
  d.concurrent_ns = concurrent_time(ops);
  if (merged.empty()) return d;
  d.first_start = merged.front().start;
  d.last_end = merged.back().end;
  for (size_t i = 1; i < merged.size(); ++i) {
    const TimeNs gs = merged[i - 1].end, ge = merged[i].start;
    d.idle_ns += ge - gs;
    if (ge - gs >= opt.min_gap_ns) d.gaps.push_back({gs, ge, cpu_during(t, calls, gs, ge)});
  }
  std::stable_sort(d.gaps.begin(), d.gaps.end(),
                   [](const IdleGap& a, const IdleGap& b) { return (a.end - a.start) > (b.end - b.start); });
  if (d.gaps.size() > opt.max_gaps) d.gaps.resize(opt.max_gaps);
  return d;
}

std::vector<StreamBusy> stream_busy(const Trace& t, const std::optional<Interval>& window) {
  std::map<std::tuple<uint32_t, uint32_t, uint32_t>, std::pair<StreamBusy, std::vector<Interval>>> acc;
  auto slot = [&](uint32_t pid, uint32_t dev, uint32_t stream) -> auto& {
    auto& s = acc[{pid, dev, stream}];
    s.first.pid = pid, s.first.device = dev, s.first.stream = stream;
    return s;
  };
  auto add = [&](uint32_t pid, uint32_t dev, uint32_t stream, TimeNs start, TimeNs end, size_t StreamBusy::*count) {
    if (!clip(window, start, end)) return;
    auto& s = slot(pid, dev, stream);
    ++(s.first.*count);
    s.second.push_back({start, end});
  };
  for (const auto& k : t.kernels) add(k.pid, k.device, k.stream, k.start, k.end, &StreamBusy::kernels);
  for (const auto& m : t.memcpys) add(m.pid, m.device, m.stream, m.start, m.end, &StreamBusy::copies);
  for (const auto& m : t.memsets) add(m.pid, m.device, m.stream, m.start, m.end, &StreamBusy::memsets);
  std::vector<StreamBusy> out;
  for (auto& [key, s] : acc) {
    s.first.busy_ns = union_length(std::move(s.second));
    out.push_back(s.first);
  }
  return out;
}

Stats launch_delays(const Trace& t, const std::optional<Interval>& window) {
  auto key = [](uint32_t pid, uint32_t corr) { return (static_cast<uint64_t>(pid) << 32) | corr; };
  using Keyed = std::pair<uint64_t, TimeNs>;  // (pid, correlation), start
  // API calls by key (stable: of equal keys the first call is the launch call).
  std::vector<Keyed> calls;
  calls.reserve(t.api_calls.size());
  for (const ApiCall& c : t.api_calls)
    if (c.correlation_id != 0) calls.push_back({key(c.pid, c.correlation_id), c.start});
  radix_sort(calls, [](const Keyed& k) { return k.first; });  // stable
  // A kernel replayed for metrics has no measured start (the importer places it), so no delay.
  std::vector<uint64_t> replayed;
  for (const KernelMetric& m : t.kernel_metrics) replayed.push_back(key(m.pid, m.correlation_id));
  std::sort(replayed.begin(), replayed.end());
  std::vector<Keyed> kernels;  // by key too, then one merge-like walk (describe() sorts the delays anyway)
  kernels.reserve(t.kernels.size());
  for (const Kernel& k : t.kernels) {
    if (k.graph_id != 0) continue;  // graph nodes share one launch call
    if (window && (k.start < window->start || k.start >= window->end)) continue;
    const uint64_t id = key(k.pid, k.correlation_id);
    if (!std::binary_search(replayed.begin(), replayed.end(), id)) kernels.push_back({id, k.start});
  }
  radix_sort(kernels, [](const Keyed& k) { return k.first; });
  std::vector<double> delays;
  delays.reserve(kernels.size());
  auto call = calls.begin();
  for (const auto& [id, start] : kernels) {
    while (call != calls.end() && call->first < id) ++call;
    if (call != calls.end() && call->first == id && start >= call->second)
      delays.push_back(static_cast<double>(start - call->second));
  }
  return describe(std::move(delays));
}

}  // namespace

Timeline analyze_timeline(const Trace& trace, const TimelineOptions& options) {
  Timeline tl;
  tl.streams = stream_busy(trace, options.window);
  const auto calls = index_calls(trace);
  const CallIndex none;
  for (auto& [key, ops] : ops_by_device(trace, options.window)) {
    auto it = calls.find(key.first);
    tl.devices.push_back(device_timeline(trace, it == calls.end() ? none : it->second, key, std::move(ops), options));
  }
  tl.launch_delay = launch_delays(trace, options.window);
  return tl;
}

}  // namespace gpuscope::analysis
