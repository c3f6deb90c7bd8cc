// append_records (gpuscope/trace_tables.h): one pass over every table, so appending a bench run
// and merging captures cannot forget a table or a name.
#include "gpuscope/trace_tables.h"

#include <algorithm>
#include <cstdint>
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

// One table's order (stable: rows that tie keep theirs). Events by start, instants by timestamp;
// the overloads below are the tables whose order is not their time's.
template <class Row>
void sort_rows(std::vector<Row>& rows) {
  if constexpr (requires(const Row& r) { r.start; })
    std::stable_sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) { return a.start < b.start; });
  else if constexpr (requires(const Row& r) { r.timestamp; })
    std::stable_sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) { return a.timestamp < b.timestamp; });
}
void sort_rows(std::vector<Process>& rows) {
  std::stable_sort(rows.begin(), rows.end(), [](const Process& a, const Process& b) { return a.pid < b.pid; });
}
void sort_rows(std::vector<Device>& rows) {
  std::stable_sort(rows.begin(), rows.end(),
                   [](const Device& a, const Device& b) { return std::tie(a.pid, a.id) < std::tie(b.pid, b.id); });
}
void sort_rows(std::vector<MetricCollection>& rows) {
  std::stable_sort(rows.begin(), rows.end(), [](const MetricCollection& a, const MetricCollection& b) {
    return std::tie(a.pid, a.kind) < std::tie(b.pid, b.kind);
  });
}
void sort_rows(std::vector<HostOp>& rows) { sort_host_ops(rows); }

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

std::optional<std::pair<TimeNs, TimeNs>> time_span(const Trace& trace) {
  TimeNs first = INT64_MAX, last = INT64_MIN;
  const auto see = [&](TimeNs t) {
    if (t != 0) first = std::min(first, t), last = std::max(last, t);
  };
  see(trace.run.start), see(trace.run.end);
  for_each_table(
      [&](const auto& rows) {
        for (const auto& row : rows) {
          if constexpr (requires {
                          row.start;
                          row.end;
                        })
            see(row.start), see(row.end);
          if constexpr (requires { row.timestamp; }) see(row.timestamp);
        }
      },
      trace);
  if (first > last) return std::nullopt;
  return std::pair{first, last};
}

void sort_host_ops(std::vector<HostOp>& ops) {
  std::stable_sort(ops.begin(), ops.end(), [](const HostOp& a, const HostOp& b) {
    return a.start != b.start ? a.start < b.start : a.end > b.end;
  });
}

void sort_records(Trace& trace) {
  for_each_table([](auto& rows) { sort_rows(rows); }, trace);
}

}  // namespace gpuscope
