// project_nvtx_gpu(): the GPU work launched inside each NVTX range instance
// (gpuscope/analysis_nvtx_gpu.h has the rules).
#include "gpuscope/analysis_nvtx_gpu.h"

#include <algorithm>
#include <map>
#include <tuple>
#include <utility>

#include "analysis/capture_sites.h"
#include "analysis/radix_sort.h"
#include "gpuscope/analysis_stats.h"

namespace gpuscope::analysis {
namespace {

// A launching API call, found by (run, pid, correlation id).
struct Call {
  uint32_t run, pid, correlation, tid;
  TimeNs start;
  auto key() const { return std::tie(run, pid, correlation); }
};

// One piece of GPU work placed on the host thread and moment of its launch call.
struct Launch {
  uint32_t run, pid, tid;
  TimeNs at;          // launch call start
  TimeNs start, end;  // on the GPU
  bool kernel;
  auto key() const { return std::tie(run, pid, tid, at); }
};

// Sorts items by (group(item), key(item)): radix-sorted by key (a stable sort), then placed stably
// by group (a trace has few processes and threads), where std::sort on the whole tuple compares
// ~log2(n) times per item. Items of equal group and key end in no particular order.
template <class T, class GroupFn, class KeyFn>
void sort_by_group(std::vector<T>& items, GroupFn group, KeyFn key) {
  radix_sort(items, key);
  std::map<decltype(group(items.front())), size_t> next;  // group -> its items' count, then next slot
  for (const T& item : items) ++next[group(item)];
  if (next.size() < 2) return;
  size_t offset = 0;
  for (auto& [g, slot] : next) offset += std::exchange(slot, offset);
  std::vector<T> placed(items.size());
  for (const T& item : items) placed[next[group(item)]++] = item;
  items.swap(placed);
}

// By key (run, pid, correlation id); calls sharing an id in no particular order (launch_of picks).
std::vector<Call> launch_calls(const Trace& trace) {
  std::vector<Call> calls;
  calls.reserve(trace.api_calls.size());
  for (const ApiCall& c : trace.api_calls)
    if (c.correlation_id != 0) calls.push_back({c.run_id, c.pid, c.correlation_id, c.tid, c.start});
  sort_by_group(
      calls, [](const Call& c) { return std::pair(c.run, c.pid); },
      [](const Call& c) { return uint64_t{c.correlation}; });
  return calls;
}

// The call that launched GPU work of this id: of calls sharing it, the earliest (then the lowest
// thread id); nullptr when none.
const Call* launch_of(const std::vector<Call>& calls, uint32_t run, uint32_t pid, uint32_t correlation) {
  const auto wanted = std::tie(run, pid, correlation);
  auto call = std::lower_bound(calls.begin(), calls.end(), wanted,
                               [](const Call& c, const auto& k) { return c.key() < k; });
  if (call == calls.end() || call->key() != wanted) return nullptr;
  const Call* best = &*call;
  for (++call; call != calls.end() && call->key() == wanted; ++call)
    if (std::tie(call->start, call->tid) < std::tie(best->start, best->tid)) best = &*call;
  return best;
}

}  // namespace

NvtxGpuProjection project_nvtx_gpu(const Trace& trace) {
  NvtxGpuProjection out;
  out.ranges.resize(trace.nvtx_ranges.size());
  if (trace.nvtx_ranges.empty()) return out;  // nothing to project onto: skip sorting a million launches

  const std::vector<Call> calls = launch_calls(trace);
  std::vector<Launch> launches;
  auto add = [&](uint32_t run, uint32_t pid, uint32_t correlation, TimeNs start, TimeNs end, bool kernel) {
    if (start == 0 || end == 0 || end < start) {
      ++out.untimed;
      return;
    }
    ++out.gpu_records;
    if (correlation == 0) {  // no id: nothing names its launch call
      ++out.unlaunched;
      return;
    }
    const Call* call = launch_of(calls, run, pid, correlation);
    if (!call) {
      ++out.unlaunched;
      return;
    }
    launches.push_back({run, pid, call->tid, call->start, start, end, kernel});
  };
  launches.reserve(trace.kernels.size() + trace.memcpys.size() + trace.memsets.size());
  const detail::CaptureSites sites(trace);
  for (const Kernel& k : trace.kernels) {
    // A replayed kernel sits where its graph node was made.
    const GraphNode* node = sites.node_of(k);
    if (node && k.start != 0 && k.end != 0 && k.end >= k.start) {
      ++out.gpu_records;
      launches.push_back({k.run_id, k.pid, node->tid, node->timestamp, k.start, k.end, true});
      continue;
    }
    add(k.run_id, k.pid, k.correlation_id, k.start, k.end, true);
  }
  for (const Memcpy& m : trace.memcpys) add(m.run_id, m.pid, m.correlation_id, m.start, m.end, false);
  for (const Memset& m : trace.memsets) add(m.run_id, m.pid, m.correlation_id, m.start, m.end, false);
  // By (run, pid, tid, at); what a range sums of its launches does not depend on their order.
  sort_by_group(
      launches, [](const Launch& l) { return std::tuple(l.run, l.pid, l.tid); },
      [](const Launch& l) { return time_key(l.at); });

  // A range's launches are one contiguous run of `launches`: its thread, at in [start, end).
  auto first_at = [&](uint32_t run, uint32_t pid, uint32_t tid, TimeNs at) {
    const auto wanted = std::tie(run, pid, tid, at);
    return std::lower_bound(launches.begin(), launches.end(), wanted,
                            [](const Launch& l, const auto& k) { return l.key() < k; });
  };
  for (size_t i = 0; i < trace.nvtx_ranges.size(); ++i) {
    const NvtxRange& r = trace.nvtx_ranges[i];
    if (r.end <= r.start) continue;  // never closed: no interval to launch in
    const auto first = first_at(r.run_id, r.pid, r.tid, r.start);
    const auto last = first_at(r.run_id, r.pid, r.tid, r.end);
    if (first == last) continue;
    NvtxInstanceGpu& g = out.ranges[i];
    std::vector<Interval> intervals;
    intervals.reserve(static_cast<size_t>(last - first));
    g.gpu_start = first->start;
    for (auto l = first; l != last; ++l) {
      intervals.push_back({l->start, l->end});
      g.gpu_start = std::min(g.gpu_start, l->start);
      g.gpu_end = std::max(g.gpu_end, l->end);
      g.kernels += l->kernel;
      ++g.activities;
    }
    g.gpu_ns = union_length(std::move(intervals));
  }
  return out;
}

}  // namespace gpuscope::analysis
