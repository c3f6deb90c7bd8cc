// CUDA API classes, the main thread of a process, and context creation.
// Context creation has no record of its own in CUPTI's activity stream: it
// shows as the first context-needing call being far longer than its peers.
#include <algorithm>
#include <map>

#include "gpuscope/analysis_timeline.h"

namespace gpuscope::analysis {
namespace {

bool starts_with(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }
bool contains(const std::string& s, const char* part) { return s.find(part) != std::string::npos; }

// A later call of the same name must exist to tell what "normal" costs; the
// thresholds keep a large-but-normal allocation from looking like startup.
constexpr TimeNs kMinContextExcessNs = 1'000'000;
constexpr double kMinContextRatio = 10.0;

// Calls whose job is to set up the device/context (programs call them once, first, exactly
// to create the context up front): when one of them is the first long call and has no later
// peer to compare with, its whole duration is context creation.
bool creates_context(const std::string& n) {
  return n == "cudaSetDevice" || n == "cudaInitDevice" || n == "cudaSetDeviceFlags" || n == "cudaFree" ||
         n == "cuInit" || n == "cuDevicePrimaryCtxRetain" || n.rfind("cuCtxCreate", 0) == 0;
}

}  // namespace

ApiClass classify_api(const std::string& n) {
  if (starts_with(n, "cudaMalloc") || starts_with(n, "cudaFree") || starts_with(n, "cudaHostAlloc") ||
      starts_with(n, "cudaHostRegister") || starts_with(n, "cudaHostUnregister") || starts_with(n, "cuMemAlloc") ||
      starts_with(n, "cuMemFree") || starts_with(n, "cuMemHostAlloc") || starts_with(n, "cuMemHostRegister") ||
      starts_with(n, "cuMemCreate") || starts_with(n, "cuMemRelease") || starts_with(n, "cuMemMap") ||
      starts_with(n, "cuMemUnmap"))
    return ApiClass::Allocation;
  if (starts_with(n, "cudaMemcpy") || starts_with(n, "cudaMemset") || starts_with(n, "cuMemcpy") ||
      starts_with(n, "cuMemset") || starts_with(n, "cudaMemPrefetch") || starts_with(n, "cuMemPrefetch"))
    return ApiClass::Memory;
  if (contains(n, "Synchronize") || n == "cudaStreamWaitEvent" || n == "cuStreamWaitEvent" ||
      starts_with(n, "cudaStreamQuery") || starts_with(n, "cudaEventQuery"))
    return ApiClass::Synchronization;
  if (starts_with(n, "cudaLaunch") || starts_with(n, "cuLaunch") || starts_with(n, "cudaGraphLaunch") ||
      starts_with(n, "cuGraphLaunch"))
    return ApiClass::Launch;
  return ApiClass::Other;
}

std::optional<MainThread> main_thread(const Trace& trace, uint32_t pid) {
  std::map<uint32_t, TimeNs> api_time;  // tid -> summed call time
  for (const ApiCall& c : trace.api_calls)
    if (c.pid == pid) api_time[c.tid] += duration(c.start, c.end);
  if (api_time.empty()) return std::nullopt;
  // The process's initial thread (Linux: tid == pid) runs main(); helper threads that only
  // initialize CUDA or poll must not take over even when their calls are long.
  if (api_time.count(pid)) return MainThread{pid, pid};
  auto best = std::max_element(api_time.begin(), api_time.end(),
                               [](const auto& a, const auto& b) { return a.second < b.second; });
  return MainThread{pid, best->first};  // max_element keeps the first (lowest tid) on ties
}

std::optional<uint32_t> root_pid(const Trace& trace) {
  const Process* best = nullptr;
  for (const Process& p : trace.processes) {
    const bool parent_captured = std::any_of(trace.processes.begin(), trace.processes.end(),
                                             [&](const Process& q) { return q.pid == p.parent_pid; });
    if (parent_captured) continue;
    if (!best || p.start < best->start || (p.start == best->start && p.pid < best->pid)) best = &p;
  }
  if (best) return best->pid;
  if (!trace.api_calls.empty()) return trace.api_calls.front().pid;  // imported traces without processes
  return std::nullopt;
}

std::optional<ContextCreation> find_context_creation(const Trace& trace, uint32_t pid) {
  // Calls of this process in time order, runtime domain preferred (driver calls nest in them).
  std::vector<size_t> order;
  const bool any_runtime = std::any_of(trace.api_calls.begin(), trace.api_calls.end(), [&](const ApiCall& c) {
    return c.pid == pid && c.domain == ApiDomain::Runtime;
  });
  const ApiDomain domain = any_runtime ? ApiDomain::Runtime : ApiDomain::Driver;
  for (size_t i = 0; i < trace.api_calls.size(); ++i)
    if (trace.api_calls[i].pid == pid && trace.api_calls[i].domain == domain) order.push_back(i);
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return trace.api_calls[a].start < trace.api_calls[b].start; });

  std::map<StringId, bool> seen;  // names whose first call was already checked
  for (size_t pos = 0; pos < order.size(); ++pos) {
    const ApiCall& first = trace.api_calls[order[pos]];
    if (seen[first.name]) continue;
    seen[first.name] = true;
    std::vector<double> later;
    for (size_t q = pos + 1; q < order.size(); ++q) {
      const ApiCall& c = trace.api_calls[order[q]];
      if (c.name == first.name) later.push_back(static_cast<double>(duration(c.start, c.end)));
    }
    const double d = static_cast<double>(duration(first.start, first.end));
    if (later.empty()) {
      if (creates_context(trace.strings.get(first.name)) && d >= kMinContextExcessNs)
        return ContextCreation{order[pos], static_cast<TimeNs>(d)};
      continue;
    }
    const double typical = describe(later).median;
    if (d - typical >= kMinContextExcessNs && d >= kMinContextRatio * std::max(typical, 1.0))
      return ContextCreation{order[pos], static_cast<TimeNs>(d - typical)};
  }
  return std::nullopt;
}

}  // namespace gpuscope::analysis
