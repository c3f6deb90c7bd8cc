// Attribution of the wall time: one category per ns of the root process's main
// thread, so the categories sum to the wall time exactly.
//
// Why follow the CPU thread: it issues all the work, so whenever it is not
// blocked its own activity decides when the run ends; when it is blocked in a
// synchronization, the GPU work it waits for is what the run is spending time
// on. Precedence (docs/report.md "Bottleneck"):
//   startup (before its first CUDA call; context-creation excess of the first
//   call that needs a context) > allocation call > copy/memset call >
//   synchronization call (compute kernel running on a device of the process ->
//   KernelCompute, else a copy/memset running -> MemoryOps, else SyncWait; an NCCL kernel
//   is no compute) >
//   other CUDA call (launches included) > outside CUDA.
#include <algorithm>
#include <unordered_map>

#include "analysis/timeline_util.h"
#include "gpuscope/analysis_ranks.h"
#include "gpuscope/analysis_timeline.h"

namespace gpuscope::analysis {
namespace {

using Window = Interval;

}  // namespace

Interval wall_window(const Trace& t) {
  if (t.run.start > 0 && t.run.end > t.run.start) return {t.run.start, t.run.end};
  Window w{INT64_MAX, INT64_MIN};
  auto add = [&](TimeNs s, TimeNs e) {
    if (e <= 0) return;
    w.start = std::min(w.start, s);
    w.end = std::max(w.end, e);
  };
  for (const auto& e : t.api_calls) add(e.start, e.end);
  for (const auto& e : t.kernels) add(e.start, e.end);
  for (const auto& e : t.memcpys) add(e.start, e.end);
  for (const auto& e : t.memsets) add(e.start, e.end);
  if (w.start >= w.end) return {0, 0};
  return w;
}

namespace {

// Runtime calls when the thread made any (driver calls nest inside them).
std::vector<const ApiCall*> thread_calls(const Trace& t, const MainThread& mt) {
  std::vector<const ApiCall*> calls;
  bool runtime = false;
  for (const ApiCall& c : t.api_calls)
    if (c.pid == mt.pid && c.tid == mt.tid && c.domain == ApiDomain::Runtime) runtime = true;
  const ApiDomain domain = runtime ? ApiDomain::Runtime : ApiDomain::Driver;
  for (const ApiCall& c : t.api_calls)
    if (c.pid == mt.pid && c.tid == mt.tid && c.domain == domain && c.end > c.start) calls.push_back(&c);
  stable_sort_unless_sorted(calls.begin(), calls.end(),
                            [](const ApiCall* a, const ApiCall* b) { return a->start < b->start; });
  return calls;
}

class Attributor {
 public:
  Attributor(const Trace& t, uint32_t pid, Attribution& out) : out_(out) {
    std::vector<Interval> k, c;
    // Communication kernels are no compute: the host waiting on a collective waits for the
    // other ranks and the link (the Ranks section tells which), so that time is a sync wait.
    std::unordered_map<StringId, bool> communication;
    for (const auto& e : t.kernels) {
      if (e.pid != pid) continue;
      auto [it, fresh] = communication.try_emplace(e.name);
      if (fresh) it->second = classify_collective(t.strings.get(e.name)) != Collective::None;
      if (!it->second) k.push_back({e.start, e.end});
    }
    for (const auto& e : t.memcpys)
      if (e.pid == pid) c.push_back({e.start, e.end});
    for (const auto& e : t.memsets)
      if (e.pid == pid) c.push_back({e.start, e.end});
    kernels_ = merge_intervals(k);
    copies_ = merge_intervals(c);
  }

  void add(TimeCategory c, TimeNs ns) { out_.by_category[static_cast<int>(c)] += ns; }

  void sync(TimeNs s, TimeNs e) {
    const TimeNs kernel = covered_within(kernels_, s, e);
    TimeNs copy = covered_within(copies_, s, e);
    // Kernels win inside a sync: copy ns that ran under a kernel went to KernelCompute.
    const TimeNs both = kernel + copy - union_in(s, e);
    copy -= both;
    add(TimeCategory::KernelCompute, kernel);
    add(TimeCategory::MemoryOps, copy);
    add(TimeCategory::SyncWait, (e - s) - kernel - copy);
  }

 private:
  TimeNs union_in(TimeNs s, TimeNs e) const { return union_within(kernels_, copies_, s, e); }

  Attribution& out_;
  std::vector<Interval> kernels_, copies_;
};

TimeCategory category_of(ApiClass c) {
  switch (c) {
    case ApiClass::Allocation: return TimeCategory::Allocation;
    case ApiClass::Memory: return TimeCategory::MemoryOps;
    case ApiClass::Synchronization: return TimeCategory::SyncWait;
    default: return TimeCategory::OtherApi;
  }
}

}  // namespace

const char* to_string(TimeCategory c) {
  switch (c) {
    case TimeCategory::CudaInit: return "cuda_init";
    case TimeCategory::KernelCompute: return "kernel_compute";
    case TimeCategory::MemoryOps: return "memory_operations";
    case TimeCategory::Allocation: return "allocation";
    case TimeCategory::SyncWait: return "synchronization_wait";
    case TimeCategory::OtherApi: return "other_cuda_api";
    case TimeCategory::HostOutsideCuda: return "host_outside_cuda";
    case TimeCategory::Count: break;
  }
  return "unknown";
}

Attribution attribute_wall_time(const Trace& trace, std::optional<Interval> steady) {
  Attribution a;
  const Window w = steady ? Window{steady->start, steady->end} : wall_window(trace);
  a.steady = steady.has_value();
  a.wall_ns = w.end - w.start;
  a.start = w.start;
  const auto pid = root_pid(trace);
  if (a.wall_ns <= 0 || !pid) {
    a.by_category[static_cast<int>(TimeCategory::HostOutsideCuda)] = std::max<TimeNs>(a.wall_ns, 0);
    return a;
  }
  a.thread = main_thread(trace, *pid);
  if (!a.thread) {
    a.by_category[static_cast<int>(TimeCategory::HostOutsideCuda)] = a.wall_ns;
    return a;
  }
  const auto calls = thread_calls(trace, *a.thread);
  // The steady state comes after the start-up: no call in it is the first, none creates the context.
  std::optional<ContextCreation> ctx;
  if (!steady) ctx = find_context_creation(trace, *pid);
  Attributor at(trace, *pid, a);
  const ApiClasses classes(trace.strings);

  TimeNs cursor = w.start;  // everything before cursor is attributed
  bool first = !steady;
  for (const ApiCall* c : calls) {
    TimeNs s = std::max(c->start, cursor), e = std::min(c->end, w.end);
    if (e <= s) continue;
    at.add(first ? TimeCategory::CudaInit : TimeCategory::HostOutsideCuda, s - cursor);
    first = false;
    if (ctx && &trace.api_calls[ctx->api_index] == c) {
      const TimeNs startup = std::min(ctx->excess_ns, e - s);
      at.add(TimeCategory::CudaInit, startup);
      a.context_creation_ns = startup;
      a.context_creation_at = c->start;
      s += startup;
    }
    const ApiClass cls = classes(c->name);
    if (cls == ApiClass::Synchronization) at.sync(s, e);
    else at.add(category_of(cls), e - s);
    cursor = e;
  }
  at.add(first ? TimeCategory::CudaInit : TimeCategory::HostOutsideCuda, w.end - cursor);
  return a;
}

}  // namespace gpuscope::analysis
