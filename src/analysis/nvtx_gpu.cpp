// project_nvtx_gpu(): the GPU work launched inside each NVTX range instance
// (gpuscope/analysis_nvtx_gpu.h has the rules).
#include "gpuscope/analysis_nvtx_gpu.h"

#include <algorithm>
#include <tuple>

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

std::vector<Call> launch_calls(const Trace& trace) {
  std::vector<Call> calls;
  calls.reserve(trace.api_calls.size());
  for (const ApiCall& c : trace.api_calls)
    if (c.correlation_id != 0) calls.push_back({c.run_id, c.pid, c.correlation_id, c.tid, c.start});
  // By key, then start: of two calls sharing a correlation id the earlier one is taken.
  std::sort(calls.begin(), calls.end(), [](const Call& a, const Call& b) {
    return std::tie(a.run, a.pid, a.correlation, a.start, a.tid) <
           std::tie(b.run, b.pid, b.correlation, b.start, b.tid);
  });
  return calls;
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
    const auto wanted = std::tie(run, pid, correlation);
    const auto call = std::lower_bound(calls.begin(), calls.end(), wanted,
                                       [](const Call& c, const auto& k) { return c.key() < k; });
    if (call == calls.end() || call->key() != wanted) {
      ++out.unlaunched;
      return;
    }
    launches.push_back({run, pid, call->tid, call->start, start, end, kernel});
  };
  launches.reserve(trace.kernels.size() + trace.memcpys.size() + trace.memsets.size());
  for (const Kernel& k : trace.kernels) add(k.run_id, k.pid, k.correlation_id, k.start, k.end, true);
  for (const Memcpy& m : trace.memcpys) add(m.run_id, m.pid, m.correlation_id, m.start, m.end, false);
  for (const Memset& m : trace.memsets) add(m.run_id, m.pid, m.correlation_id, m.start, m.end, false);
  std::sort(launches.begin(), launches.end(), [](const Launch& a, const Launch& b) {
    return std::tie(a.run, a.pid, a.tid, a.at, a.start, a.end) < std::tie(b.run, b.pid, b.tid, b.at, b.start, b.end);
  });

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
