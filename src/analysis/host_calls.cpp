// CUDA API classes, the main thread of a process, and context creation.
// Context creation has no record of its own in CUPTI's activity stream: it
// shows as the first context-needing call being far longer than its peers.
#include <algorithm>
#include <map>
#include <set>
#include <span>
#include <tuple>
#include <unordered_map>

#include "gpuscope/analysis_timeline.h"

namespace gpuscope::analysis {
namespace {

// A later call of the same name must exist to tell what "normal" costs; the
// thresholds keep a large-but-normal allocation from looking like startup.
constexpr TimeNs kMinContextExcessNs = 1'000'000;
constexpr double kMinContextRatio = 10.0;

}  // namespace

std::optional<MainThread> main_thread(const Trace& trace, uint32_t pid) {
  std::map<uint32_t, TimeNs> api_time;  // tid -> summed call time
  for (const ApiCall& c : trace.api_calls)
    if (c.pid == pid) api_time[c.tid] = add_saturated(api_time[c.tid], duration(c.start, c.end));
  if (api_time.empty()) return std::nullopt;
  // The process's initial thread (Linux: tid == pid) runs main(); helper threads that only
  // initialize CUDA or poll must not take over even when their calls are long.
  if (api_time.count(pid)) return MainThread{pid, pid};
  auto best = std::max_element(api_time.begin(), api_time.end(),
                               [](const auto& a, const auto& b) { return a.second < b.second; });
  return MainThread{pid, best->first};  // max_element keeps the first (lowest tid) on ties
}

namespace {

// The process whose parent was not captured (earliest start, then lowest pid, on ties).
const Process* launched_process(const Trace& trace) {
  const Process* best = nullptr;
  for (const Process& p : trace.processes) {
    const bool parent_captured = std::any_of(trace.processes.begin(), trace.processes.end(),
                                             [&](const Process& q) { return q.pid == p.parent_pid; });
    if (parent_captured) continue;
    if (!best || p.start < best->start || (p.start == best->start && p.pid < best->pid)) best = &p;
  }
  return best;
}

// Whether `p` descends from `ancestor` through captured processes (a launcher's ranks may be its
// grandchildren: mpirun -> orted -> rank).
bool descends_from(const Trace& trace, const Process& p, uint32_t ancestor) {
  std::map<uint32_t, uint32_t> parent;
  for (const Process& q : trace.processes) parent.emplace(q.pid, q.parent_pid);
  uint32_t at = p.parent_pid;
  for (size_t hops = 0; hops < trace.processes.size(); ++hops) {
    if (at == ancestor) return true;
    const auto up = parent.find(at);
    if (up == parent.end()) return false;
    at = up->second;
  }
  return false;
}

}  // namespace

std::optional<uint32_t> root_pid(const Trace& trace) {
  const Process* launched = launched_process(trace);
  if (!launched) {
    if (!trace.api_calls.empty()) return trace.api_calls.front().pid;  // imported traces without processes
    return std::nullopt;
  }
  std::set<uint32_t> with_kernels;
  // A process's kernels come in runs: one set insertion per run, not per kernel.
  for (size_t i = 0; i < trace.kernels.size(); ++i)
    if (i == 0 || trace.kernels[i].pid != trace.kernels[i - 1].pid) with_kernels.insert(trace.kernels[i].pid);
  if (with_kernels.count(launched->pid)) return launched->pid;
  // A launcher (torchrun, mpirun, srun, ...): it ran no kernels while processes it started did. Its
  // first rank is the program: the lowest rank the launcher set, else the earliest to start.
  const Process* best = nullptr;
  const auto key = [](const Process* p) { return std::tuple(p->rank < 0, p->rank, p->start, p->pid); };
  for (const Process& p : trace.processes)
    if (with_kernels.count(p.pid) && descends_from(trace, p, launched->pid) && (!best || key(&p) < key(best)))
      best = &p;
  return best ? best->pid : launched->pid;
}

namespace {

// What the first call of a name would cost without context creation, judged by its later
// peers: for allocations whose sizes are known (memory records), its bytes at the later
// calls' median ns per byte (pinning host memory costs per byte); else the later calls'
// median duration. The ratio a first call must exceed is lower for the sized estimate.
struct Typical {
  double ns = 0;
  double min_ratio = kMinContextRatio;
};

constexpr uint64_t kMinSizedBytes = 1 << 20;
constexpr double kMinSizedRatio = 3.0;

// `peers`: indices of the later calls of first's name, in any order (only medians are read).
Typical typical_cost(const Trace& t, const ApiCall& first, std::span<const size_t> peers,
                     const std::unordered_map<uint32_t, uint64_t>& bytes) {
  std::vector<double> durations, ns_per_byte;
  durations.reserve(peers.size());
  for (size_t i : peers) {
    const ApiCall& c = t.api_calls[i];
    durations.push_back(static_cast<double>(duration(c.start, c.end)));
    auto it = bytes.find(c.correlation_id);
    if (it != bytes.end() && it->second >= kMinSizedBytes)
      ns_per_byte.push_back(static_cast<double>(duration(c.start, c.end)) / static_cast<double>(it->second));
  }
  auto own = bytes.find(first.correlation_id);
  if (own != bytes.end() && ns_per_byte.size() >= 2)
    return {static_cast<double>(own->second) * median(std::move(ns_per_byte)), kMinSizedRatio};
  return {median(std::move(durations)), kMinContextRatio};
}

std::unordered_map<uint32_t, uint64_t> allocation_bytes(const Trace& t, uint32_t pid) {
  std::unordered_map<uint32_t, uint64_t> out;  // correlation id -> bytes allocated
  for (const MemoryEvent& m : t.memory_events)
    if (m.pid == pid && m.op == MemoryOp::Alloc && m.correlation_id != 0) out[m.correlation_id] += m.bytes;
  return out;
}

}  // namespace

std::optional<ContextCreation> find_context_creation(const Trace& trace, uint32_t pid) {
  // Calls of this process, runtime domain preferred (driver calls nest in them), by name.
  const bool any_runtime = std::any_of(trace.api_calls.begin(), trace.api_calls.end(), [&](const ApiCall& c) {
    return c.pid == pid && c.domain == ApiDomain::Runtime;
  });
  const ApiDomain domain = any_runtime ? ApiDomain::Runtime : ApiDomain::Driver;
  std::map<StringId, std::vector<size_t>> by_name;  // name -> its calls, in record order
  for (size_t i = 0; i < trace.api_calls.size(); ++i) {
    const ApiCall& c = trace.api_calls[i];
    if (c.pid == pid && c.domain == domain) by_name[c.name].push_back(i);
  }
  const auto bytes = allocation_bytes(trace, pid);

  // Each name's first call leads its list: the earliest start, of equal starts the earlier
  // record (the order a stable sort by start gives). The rest are its later peers, whose order
  // does not matter, so no call is sorted.
  const auto earlier = [&](size_t a, size_t b) {
    return std::pair(trace.api_calls[a].start, a) < std::pair(trace.api_calls[b].start, b);
  };
  std::vector<const std::vector<size_t>*> names;
  for (auto& [name, calls] : by_name) {
    std::iter_swap(calls.begin(), std::min_element(calls.begin(), calls.end(), earlier));
    names.push_back(&calls);
  }
  std::sort(names.begin(), names.end(), [&](const auto* a, const auto* b) { return earlier(a->front(), b->front()); });
  for (const std::vector<size_t>* calls : names) {  // in time order: the first match is the context creation
    const size_t i = calls->front();
    const ApiCall& first = trace.api_calls[i];
    const double d = static_cast<double>(duration(first.start, first.end));
    if (calls->size() == 1) {
      if (creates_context(trace.strings.get(first.name)) && d >= kMinContextExcessNs)
        return ContextCreation{i, static_cast<TimeNs>(d)};
      continue;
    }
    const Typical typical = typical_cost(trace, first, std::span(*calls).subspan(1), bytes);
    if (d - typical.ns >= kMinContextExcessNs && d >= typical.min_ratio * std::max(typical.ns, 1.0))
      return ContextCreation{i, static_cast<TimeNs>(d - typical.ns)};
  }
  return std::nullopt;
}

std::optional<StringId> repeating_range(const Trace& trace, const MainThread& thread, size_t min_instances) {
  struct Seen {
    uint32_t depth = UINT32_MAX;
    TimeNs total = 0;
    size_t count = 0;
  };
  std::map<StringId, Seen> seen;
  for (const NvtxRange& r : trace.nvtx_ranges) {
    if (r.pid != thread.pid || r.tid != thread.tid || r.end <= r.start) continue;
    Seen& s = seen[r.name];
    s.depth = std::min(s.depth, r.depth);
    s.total = add_saturated(s.total, r.end - r.start);
    ++s.count;
  }
  std::optional<StringId> best;
  for (const auto& [name, s] : seen) {
    if (s.count < min_instances) continue;
    const Seen* b = best ? &seen[*best] : nullptr;
    if (!b || s.depth < b->depth || (s.depth == b->depth && s.total > b->total)) best = name;
  }
  return best;
}

std::vector<Interval> range_instances(const Trace& trace, const MainThread& thread, StringId name, bool to_next) {
  std::vector<Interval> out;
  for (const NvtxRange& r : trace.nvtx_ranges)
    if (r.pid == thread.pid && r.tid == thread.tid && r.name == name && r.end > r.start)
      out.push_back({r.start, r.end});
  std::sort(out.begin(), out.end(), [](const Interval& a, const Interval& b) { return a.start < b.start; });
  if (to_next)
    for (size_t i = 0; i + 1 < out.size(); ++i) out[i].end = out[i + 1].start;
  return out;
}

}  // namespace gpuscope::analysis
