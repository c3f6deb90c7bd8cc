// append_records (gpuscope/trace_tables.h): one pass over every table, so appending a bench run
// and merging captures cannot forget a table or a name.
#include "gpuscope/trace_tables.h"

#include <algorithm>
#include <tuple>
#include <type_traits>

namespace gpuscope {
namespace {

// Re-interns a row's names (StringIds index its own trace's table). Rows without names take the
// template; every row type with a StringId field has its overload here.
template <class Row>
void rename(Row&, const StringTable&, StringTable&) {}
StringId moved(StringId id, const StringTable& from, StringTable& to) { return to.intern(from.get(id)); }
void rename(ApiCall& c, const StringTable& f, StringTable& t) { c.name = moved(c.name, f, t); }
void rename(Kernel& k, const StringTable& f, StringTable& t) {
  k.name = moved(k.name, f, t);
  k.mangled_name = moved(k.mangled_name, f, t);
}
void rename(NvtxRange& r, const StringTable& f, StringTable& t) {
  r.name = moved(r.name, f, t);
  r.domain = moved(r.domain, f, t);
}
void rename(NvtxMark& m, const StringTable& f, StringTable& t) {
  m.name = moved(m.name, f, t);
  m.domain = moved(m.domain, f, t);
}
void rename(CuptiOverhead& o, const StringTable& f, StringTable& t) { o.kind = moved(o.kind, f, t); }
void rename(KernelMetric& m, const StringTable& f, StringTable& t) { m.metric = moved(m.metric, f, t); }
void rename(GpuMetricSample& g, const StringTable& f, StringTable& t) { g.metric = moved(g.metric, f, t); }
void rename(HostOp& o, const StringTable& f, StringTable& t) {
  o.name = moved(o.name, f, t);
  o.category = moved(o.category, f, t);
  o.input_shapes = moved(o.input_shapes, f, t);
}
void rename(ApiCount& c, const StringTable& f, StringTable& t) { c.name = moved(c.name, f, t); }

uint32_t mapped(const std::map<uint32_t, uint32_t>& pids, uint32_t pid) {
  const auto it = pids.find(pid);
  return it == pids.end() ? pid : it->second;
}

// Every time point of a row moves by `shift` ns: start/end pairs and single timestamps. Durations
// (ApiCount::total_ns, MetricCollection::interval_ns) are differences and stay.
template <class Row>
void shift(Row& row, TimeNs shift) {
  if constexpr (requires {
                  row.start;
                  row.end;
                })
    row.start += shift, row.end += shift;
  if constexpr (requires { row.timestamp; }) row.timestamp += shift;
}

template <class Event>
void sort_by_start(std::vector<Event>& events) {
  std::stable_sort(events.begin(), events.end(), [](const Event& a, const Event& b) { return a.start < b.start; });
}

}  // namespace

void append_records(Trace& into, const Trace& from, const AppendMap& map) {
  const StringTable& names = from.strings;
  StringTable& to = into.strings;
  for_each_table(
      [&](auto& dst, const auto& src) {
        dst.reserve(dst.size() + src.size());
        for (auto row : src) {
          rename(row, names, to);
          row.pid = mapped(map.pids, row.pid);
          if constexpr (std::is_same_v<decltype(row), Process>) row.parent_pid = mapped(map.pids, row.parent_pid);
          if (map.shift_ns) shift(row, map.shift_ns);
          if (map.run_id) row.run_id = *map.run_id;
          dst.push_back(std::move(row));
        }
      },
      into, from);
}

void sort_host_ops(std::vector<HostOp>& ops) {
  std::stable_sort(ops.begin(), ops.end(), [](const HostOp& a, const HostOp& b) {
    return a.start != b.start ? a.start < b.start : a.end > b.end;
  });
}

void sort_records(Trace& trace) {
  sort_by_start(trace.api_calls);
  sort_by_start(trace.kernels);
  sort_by_start(trace.memcpys);
  sort_by_start(trace.memsets);
  sort_by_start(trace.synchronizations);
  sort_by_start(trace.nvtx_ranges);
  sort_by_start(trace.overheads);
  std::stable_sort(trace.memory_events.begin(), trace.memory_events.end(),
                   [](const MemoryEvent& a, const MemoryEvent& b) { return a.timestamp < b.timestamp; });
  std::stable_sort(trace.nvtx_marks.begin(), trace.nvtx_marks.end(),
                   [](const NvtxMark& a, const NvtxMark& b) { return a.timestamp < b.timestamp; });
  std::stable_sort(trace.processes.begin(), trace.processes.end(),
                   [](const Process& a, const Process& b) { return a.pid < b.pid; });
  std::stable_sort(trace.devices.begin(), trace.devices.end(),
                   [](const Device& a, const Device& b) { return std::tie(a.pid, a.id) < std::tie(b.pid, b.id); });
  sort_by_start(trace.gpu_metric_samples);
  std::stable_sort(trace.metric_collections.begin(), trace.metric_collections.end(),
                   [](const MetricCollection& a, const MetricCollection& b) {
                     return std::tie(a.pid, a.kind) < std::tie(b.pid, b.kind);
                   });
  sort_host_ops(trace.host_ops);
}

}  // namespace gpuscope
