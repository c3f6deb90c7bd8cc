// append_records (gpuscope/trace_tables.h): one pass over every table, so appending a bench run
// and merging captures cannot forget a table or a name.
#include "gpuscope/trace_tables.h"

#include <algorithm>
#include <cstdint>
#include <tuple>
#include <type_traits>
#include <vector>

namespace gpuscope {
namespace {

// `from`'s string ids as `to`'s: each name is re-interned (hashed) once, not once per row.
class Renamer {
 public:
  Renamer(const StringTable& from, StringTable& to) : from_(from), to_(to), ids_(from.size(), kUnmapped) {}
  StringId operator()(StringId id) {
    if (id >= ids_.size()) return to_.intern(from_.get(id));
    if (ids_[id] == kUnmapped) ids_[id] = to_.intern(from_.get(id));
    return ids_[id];
  }

 private:
  static constexpr StringId kUnmapped = ~StringId{0};
  const StringTable& from_;
  StringTable& to_;
  std::vector<StringId> ids_;  // from's id -> to's id, kUnmapped until first seen
};

// Re-interns a row's names (StringIds index its own trace's table). Rows without names take the
// template; every row type with a StringId field has its overload here.
template <class Row>
void rename(Row&, Renamer&) {}
void rename(ApiCall& c, Renamer& to) { c.name = to(c.name); }
void rename(Kernel& k, Renamer& to) {
  k.name = to(k.name);
  k.mangled_name = to(k.mangled_name);
}
void rename(NvtxRange& r, Renamer& to) {
  r.name = to(r.name);
  r.domain = to(r.domain);
}
void rename(NvtxMark& m, Renamer& to) {
  m.name = to(m.name);
  m.domain = to(m.domain);
}
void rename(CuptiOverhead& o, Renamer& to) { o.kind = to(o.kind); }
void rename(KernelMetric& m, Renamer& to) { m.metric = to(m.metric); }
void rename(GpuMetricSample& g, Renamer& to) { g.metric = to(g.metric); }
void rename(HostOp& o, Renamer& to) {
  o.name = to(o.name);
  o.category = to(o.category);
  o.input_shapes = to(o.input_shapes);
}
void rename(ApiCount& c, Renamer& to) { c.name = to(c.name); }
void rename(PcSample& p, Renamer& to) {
  p.function = to(p.function);
  p.stall_reason = to(p.stall_reason);
}

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
  Renamer renamer(from.strings, into.strings);
  for_each_table(
      [&](auto& dst, const auto& src) {
        dst.reserve(dst.size() + src.size());
        for (auto row : src) {
          rename(row, renamer);
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
