#include "importers/spool/comm_calls.h"

#include <algorithm>
#include <tuple>
#include <unordered_map>

namespace gpuscope::spool {
namespace {

bool is(const CommCallRecord& c, CommCallCode code) { return static_cast<CommCallCode>(c.call) == code; }

// A launch that carried calls out: its thread, when, and CUPTI's id of it.
struct Launch {
  uint32_t tid = 0;
  int64_t start_ns = 0;
  uint32_t correlation_id = 0;
};

// The capture's Launch records: exact, whatever API the launch went through.
std::vector<Launch> recorded_launches(const std::vector<CommCallRecord>& calls) {
  std::vector<Launch> out;
  for (const CommCallRecord& c : calls)
    if (is(c, CommCallCode::Launch)) out.push_back({c.tid, c.start_ns, c.correlation_id});
  return out;
}

// Without Launch records: the process's NCCL kernels whose launch call is in the API trace.
std::vector<Launch> traced_launches(const Trace& trace, uint32_t pid) {
  std::unordered_map<uint32_t, const ApiCall*> launch_calls;
  for (const ApiCall& a : trace.api_calls)
    if (a.pid == pid) launch_calls.emplace(a.correlation_id, &a);
  std::vector<Launch> out;
  std::unordered_map<StringId, bool> nccl_name;
  for (const Kernel& k : trace.kernels) {
    if (k.pid != pid) continue;
    auto [it, fresh] = nccl_name.try_emplace(k.name);
    if (fresh) it->second = is_nccl_kernel(trace.strings.get(k.name));
    if (!it->second) continue;
    if (const auto call = launch_calls.find(k.correlation_id); call != launch_calls.end())
      out.push_back({call->second->tid, call->second->start, k.correlation_id});
  }
  return out;
}

// The call's share of its kernel's size, in nccl-tests' terms; 0 when it cannot be known.
uint64_t size_of(const CommCallRecord& c, uint32_t ranks) {
  if (is(c, CommCallCode::AllGather) || is(c, CommCallCode::ReduceScatter))
    return ranks > 0 && c.bytes <= UINT64_MAX / ranks ? c.bytes * ranks : 0;  // NCCL records one rank's part
  return c.bytes;
}

// NCCL may carry out one group of calls (one large all-reduce among them) in several kernels,
// one after another on the communicator's stream; only the first follows the calls (and has a
// Launch record). Each later kernel of the process's streams that no call reached continues the
// group of the NCCL kernel before it on its stream: it gets the group's size and ranks with
// `calls` 0, so every collective is sized and the analysis can time the group as one operation.
void carry_groups(Trace& trace, uint32_t pid, size_t first_new) {
  std::unordered_map<uint32_t, const CollectiveCall*> by_correlation;
  for (size_t i = first_new; i < trace.collective_calls.size(); ++i)
    by_correlation.emplace(trace.collective_calls[i].correlation_id, &trace.collective_calls[i]);
  if (by_correlation.empty()) return;
  std::vector<const Kernel*> nccl;
  std::unordered_map<StringId, bool> nccl_name;
  for (const Kernel& k : trace.kernels) {
    if (k.pid != pid) continue;
    auto [it, fresh] = nccl_name.try_emplace(k.name);
    if (fresh) it->second = is_nccl_kernel(trace.strings.get(k.name));
    if (it->second) nccl.push_back(&k);
  }
  std::sort(nccl.begin(), nccl.end(), [](const Kernel* a, const Kernel* b) {
    return std::tie(a->device, a->stream, a->start) < std::tie(b->device, b->stream, b->start);
  });
  std::vector<CollectiveCall> carried;
  const CollectiveCall* group = nullptr;  // of the previous NCCL kernel on the same stream
  for (size_t i = 0; i < nccl.size(); ++i) {
    const Kernel& k = *nccl[i];
    if (i > 0 && (nccl[i - 1]->device != k.device || nccl[i - 1]->stream != k.stream)) group = nullptr;
    if (const auto own = by_correlation.find(k.correlation_id); own != by_correlation.end()) {
      group = own->second;
      continue;
    }
    if (!group) continue;
    CollectiveCall c = *group;
    c.correlation_id = k.correlation_id;
    c.calls = 0;
    carried.push_back(c);
  }
  trace.collective_calls.insert(trace.collective_calls.end(), carried.begin(), carried.end());
}

}  // namespace

void link_comm_calls(Trace& trace, uint32_t pid, int32_t world_size, const std::vector<CommCallRecord>& calls) {
  if (calls.empty()) return;
  std::unordered_map<uint64_t, uint32_t> ranks_of;  // communicator hash -> its size
  std::vector<CommCallRecord> ops;
  for (const CommCallRecord& c : calls) {
    if (is(c, CommCallCode::CommInit) && c.comm != 0 && c.ranks > 0) ranks_of[c.comm] = c.ranks;
    if (!is(c, CommCallCode::CommInit) && !is(c, CommCallCode::Launch)) ops.push_back(c);
  }
  std::vector<Launch> launches = recorded_launches(calls);
  if (launches.empty()) launches = traced_launches(trace, pid);
  const auto by_thread_time = [](const auto& a, const auto& b) {
    return std::tie(a.tid, a.start_ns) < std::tie(b.tid, b.start_ns);
  };
  std::sort(launches.begin(), launches.end(), by_thread_time);
  std::sort(ops.begin(), ops.end(), by_thread_time);

  // Each launch takes its thread's calls since the thread's previous launch (a group of calls
  // launches one kernel, after its last call).
  uint64_t unmatched = 0;
  size_t next = 0;
  const size_t first_new = trace.collective_calls.size();
  for (const Launch& l : launches) {
    for (; next < ops.size() && ops[next].tid < l.tid; ++next) ++unmatched;  // after their thread's last launch
    CollectiveCall out;
    out.pid = pid;
    out.correlation_id = l.correlation_id;
    out.calls = 0;
    bool sized = true;
    for (; next < ops.size() && ops[next].tid == l.tid && ops[next].start_ns <= l.start_ns; ++next) {
      const CommCallRecord& c = ops[next];
      const auto known = ranks_of.find(c.comm);
      const uint32_t ranks = known != ranks_of.end() ? known->second
                             : world_size > 0        ? static_cast<uint32_t>(world_size)
                                                     : 0;
      const uint64_t size = size_of(c, ranks);
      sized = sized && size > 0;
      out.bytes += size;
      out.ranks = out.ranks ? out.ranks : ranks;
      out.peer = out.calls == 0 ? c.peer : -1;  // one peer only when one call
      ++out.calls;
    }
    if (out.calls == 0) continue;
    if (!sized) out.bytes = 0;  // part of it unknown: no size rather than a wrong one
    trace.collective_calls.push_back(out);
  }
  carry_groups(trace, pid, first_new);
  unmatched += ops.size() - next;
  if (unmatched)
    trace.data_loss.push_back({pid, "nccl_calls_without_kernel", unmatched,
                               "NCCL calls no NCCL kernel of their thread followed (launched elsewhere, or outside "
                               "the capture); their bytes are not counted"});
}

}  // namespace gpuscope::spool
