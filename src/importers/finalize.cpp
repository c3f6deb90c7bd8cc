#include "importers/finalize.h"

#include <algorithm>
#include <map>
#include <string>
#include <tuple>
#include <unordered_map>
#include <unordered_set>

#include "gpuscope/trace_tables.h"
#include "importers/torch_nvtx/torch_nvtx.h"
#include "importers/validate.h"

namespace gpuscope {

namespace {

uint64_t key(uint32_t pid, uint32_t correlation_id) { return (uint64_t{pid} << 32) | correlation_id; }

// Push/pop ranges nest per thread; depth is the number of enclosing ranges.
void assign_nvtx_depths(std::vector<NvtxRange>& ranges) {
  std::map<std::pair<uint32_t, uint32_t>, std::vector<TimeNs>> open_ends;  // (pid, tid) -> stack
  for (NvtxRange& range : ranges) {
    if (range.kind != NvtxKind::PushPop) continue;
    auto& stack = open_ends[{range.pid, range.tid}];
    while (!stack.empty() && stack.back() <= range.start) stack.pop_back();
    range.depth = static_cast<uint32_t>(stack.size());
    stack.push_back(range.end);
  }
}

// Framework ops nest per thread like push/pop ranges; `ops` sorted by start, parents first.
void assign_host_op_depths(std::vector<HostOp>& ops) {
  std::map<std::pair<uint32_t, uint32_t>, std::vector<TimeNs>> open_ends;  // (pid, tid) -> stack
  for (HostOp& op : ops) {
    auto& stack = open_ends[{op.pid, op.tid}];
    while (!stack.empty() && stack.back() <= op.start) stack.pop_back();
    op.depth = static_cast<uint32_t>(stack.size());
    stack.push_back(op.end);
  }
}

// GPU work whose launching API call is missing: either the API record was
// dropped, or the launch went through the driver API while only the runtime
// API was traced (libraries such as cuBLAS do that).
template <class Event>
uint64_t count_unmatched(const std::vector<Event>& events, const std::unordered_set<uint64_t>& api_keys) {
  uint64_t unmatched = 0;
  for (const Event& e : events)
    if (e.correlation_id && !api_keys.count(key(e.pid, e.correlation_id))) ++unmatched;
  return unmatched;
}

// A kernel metric is linked to its kernel by (pid, correlation id). One without a
// kernel is kept (its values are real measurements) but cannot be named or grouped:
// the kernel's activity record was lost (dropped, or the process died before CUPTI
// delivered it) while the range profiler's result was written.
void count_unmatched_metrics(Trace& trace) {
  std::unordered_set<uint64_t> kernels;
  for (const Kernel& k : trace.kernels) kernels.insert(key(k.pid, k.correlation_id));
  std::map<uint32_t, std::pair<uint64_t, std::unordered_set<uint32_t>>> lost;  // pid -> (values, launches)
  for (const KernelMetric& m : trace.kernel_metrics) {
    if (kernels.count(key(m.pid, m.correlation_id))) continue;
    auto& [values, launches] = lost[m.pid];
    ++values;
    launches.insert(m.correlation_id);
  }
  for (const auto& [pid, loss] : lost)
    trace.data_loss.push_back(
        {pid, "metrics_unmatched", loss.first,
         std::to_string(loss.first) + " kernel metric values of " + std::to_string(loss.second.size()) +
             " launches whose kernel record is not in the capture (lost or never delivered by CUPTI); "
             "kept in kernel_metrics but left out of per-kernel results"});
}

// CUPTI's activity record of a kernel replayed by the range profiler has no timestamps (seen
// on an H200 with CUDA 13.0: start = end = 0). Kernel replay makes the launch call return only
// after the last pass, so the kernel is placed to end with its launch call and to last its
// measured gpu__time_duration.sum (its real duration, from the metrics). Counted, so the
// report can say the timeline of such a capture is reconstructed.
void place_replayed_kernels(Trace& trace) {
  std::unordered_map<uint64_t, double> durations;
  for (const KernelMetric& m : trace.kernel_metrics)
    if (trace.strings.get(m.metric) == "gpu__time_duration.sum") durations[key(m.pid, m.correlation_id)] = m.value;
  if (durations.empty()) return;
  std::unordered_map<uint64_t, TimeNs> launch_ends;
  for (const ApiCall& a : trace.api_calls) {
    TimeNs& end = launch_ends[key(a.pid, a.correlation_id)];
    end = std::max(end, a.end);  // runtime and driver records share the id; take the outer end
  }
  std::map<uint32_t, uint64_t> placed;  // pid -> kernels
  for (Kernel& k : trace.kernels) {
    if (k.start != 0 || k.end != 0) continue;
    auto duration = durations.find(key(k.pid, k.correlation_id));
    auto end = launch_ends.find(key(k.pid, k.correlation_id));
    if (duration == durations.end() || end == launch_ends.end() || end->second == 0) continue;
    k.end = end->second;
    k.start = k.end - static_cast<TimeNs>(duration->second);
    ++placed[k.pid];
  }
  for (const auto& [pid, count] : placed)
    trace.data_loss.push_back({pid, "kernel_times_from_metrics", count,
                               "kernels replayed for metrics carry no CUPTI timestamps; placed at the end of their "
                               "launch call with their measured duration (gpu__time_duration.sum)"});
}

}  // namespace

void nest_ranges(Trace& trace) {
  assign_nvtx_depths(trace.nvtx_ranges);
  // An op and the first op inside it can start on the same nanosecond: the longer one is the parent.
  sort_host_ops(trace.host_ops);
  assign_host_op_depths(trace.host_ops);
}

void finalize_trace(Trace& trace) {
  place_replayed_kernels(trace);  // before validation: it gives timeless kernels their times
  validate_trace(trace);
  sort_records(trace);

  convert_torch_nvtx(trace);
  nest_ranges(trace);
  count_unmatched_metrics(trace);

  std::unordered_map<uint64_t, uint32_t> thread_of;
  std::unordered_set<uint64_t> api_keys;
  for (const ApiCall& call : trace.api_calls) {
    thread_of.emplace(key(call.pid, call.correlation_id), call.tid);
    api_keys.insert(key(call.pid, call.correlation_id));
  }
  for (Synchronization& sync : trace.synchronizations) {
    auto it = thread_of.find(key(sync.pid, sync.correlation_id));
    if (it != thread_of.end()) sync.tid = it->second;
  }

  if (trace.api_calls.empty()) return;  // nothing to match against
  const uint64_t unmatched = count_unmatched(trace.kernels, api_keys) + count_unmatched(trace.memcpys, api_keys) +
                             count_unmatched(trace.memsets, api_keys);
  if (unmatched)
    trace.data_loss.push_back({0, "unmatched_correlation", unmatched,
                               "GPU activities whose launching API call was not captured (driver-API launches are "
                               "traced with --driver-api)"});
}

}  // namespace gpuscope
